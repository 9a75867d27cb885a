"""One criterion's weight: name, description, a bar, and -/+ (keys or mouse)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Button, Label, Static

from advisor.tui.messages import WeightChanged

#: Weights read like the scenario presets: percentages (any non-negative numbers; the core normalises).
STEP = 1.0
MAX_WEIGHT = 100.0
BAR_FULL = 30.0  # a weight of 30 (%) or more fills the bar
BAR_CELLS = 10


def weight_bar(weight: float) -> str:
    """A text bar for a weight (full at BAR_FULL)."""
    filled = round(min(weight, BAR_FULL) / BAR_FULL * BAR_CELLS)
    return "█" * filled + "░" * (BAR_CELLS - filled)


class _MouseButton(Button, can_focus=False):
    """A -/+ button for the mouse; the keyboard uses the row's own keys, so Tab goes row to row."""


class WeightRow(Vertical, can_focus=True):
    """A focusable row: `+`/`-` change the weight, Up/Down move between rows; the buttons serve the mouse."""

    # Only explicit keys change a weight (arrows move between rows, never edit by accident).
    BINDINGS = [
        Binding("plus,equals_sign", "change(1)", "+1", key_display="+"),
        Binding("minus", "change(-1)", "-1", key_display="-"),
        # Off the footer (it has no room at 80 columns for them); the help lists them.
        Binding("right_square_bracket", "change(5)", "+5", key_display="]", show=False),
        Binding("left_square_bracket", "change(-5)", "-5", key_display="[", show=False),
        Binding("0", "set(0)", "ignore", show=False),
        Binding("down", "app.focus_next", "Next criterion", show=False),
        Binding("up", "app.focus_previous", "Previous criterion", show=False),
    ]

    weight: reactive[float] = reactive(1.0, init=False)

    def __init__(self, criterion: str, name: str, description: str, weight: float, *, compact: bool = False) -> None:
        super().__init__(name=criterion, classes="weight-row" + (" -compact" if compact else ""))
        self.criterion = criterion
        self.title = name
        self.description = description
        self.compact = compact
        self.set_reactive(WeightRow.weight, weight)

    def compose(self) -> ComposeResult:
        """Name, -/+ buttons, bar and value; the description below unless compact."""
        with Horizontal(classes="weight-line"):
            yield Label(self.title, classes="weight-name", markup=False)
            yield _MouseButton("-", classes="weight-minus", compact=True)
            yield Static(self._bar(), classes="weight-bar")
            yield _MouseButton("+", classes="weight-plus", compact=True)
        if not self.compact:
            yield Static(self.description, classes="weight-desc")

    def _bar(self) -> str:
        return f"{weight_bar(self.weight)} {self.weight:4.3g}"

    def watch_weight(self, weight: float) -> None:
        """Redraw the bar and tell the screen."""
        self.query_one(".weight-bar", Static).update(self._bar())
        self.post_message(WeightChanged(self.criterion, weight))

    def set_weight(self, weight: float) -> None:
        """Set the weight without announcing it (presets, resets)."""
        self.set_reactive(WeightRow.weight, weight)
        if self.is_mounted:
            self.query_one(".weight-bar", Static).update(self._bar())

    def action_change(self, steps: int) -> None:
        """Step the weight up or down, within 0..MAX_WEIGHT."""
        self.weight = max(0.0, min(MAX_WEIGHT, round(self.weight + steps * STEP, 2)))

    def action_set(self, value: float) -> None:
        """Set the weight outright (0: the criterion is ignored)."""
        self.weight = float(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Mouse: the -/+ buttons."""
        event.stop()
        self.focus()
        self.action_change(1 if event.button.has_class("weight-plus") else -1)
