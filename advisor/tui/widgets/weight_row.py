"""One criterion's weight on the profiles' 0-5 scale: name, a bar, the value and its share, -/+ or a typed value."""

from __future__ import annotations

import math

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Button, Input, Label, Static

from advisor.tui.messages import WeightChanged

#: The profiles' scale (advisor.profile.WEIGHT_SCALE_MAX): 0 ignores a criterion, 5 makes it decisive.
MAX_WEIGHT = 5.0
STEP = 0.5  # + and -; ] and [ move by a whole point, Enter types any value (e.g. a sensitivity threshold)
BAR_CELLS = 10


def weight_bar(weight: float) -> str:
    """A text bar for a weight (full at MAX_WEIGHT)."""
    filled = round(min(max(weight, 0.0), MAX_WEIGHT) / MAX_WEIGHT * BAR_CELLS)
    return "█" * filled + "░" * (BAR_CELLS - filled)


def parse_weight(text: str) -> float | None:
    """A typed weight, or None where it is not a number from 0 to MAX_WEIGHT."""
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and 0.0 <= value <= MAX_WEIGHT else None


class _MouseButton(Button, can_focus=False):
    """A -/+ button for the mouse; the keyboard uses the row's own keys, so Tab goes row to row."""


class WeightRow(Vertical, can_focus=True):
    """A focusable row: `+`/`-` step the weight, Enter types it, Up/Down move between rows; buttons for the mouse."""

    # Only explicit keys change a weight (arrows move between rows, never edit by accident).
    BINDINGS = [
        Binding("plus,equals_sign", "change(0.5)", "+½", key_display="+"),
        Binding("minus", "change(-0.5)", "-½", key_display="-"),
        Binding("enter", "edit", "Type"),
        # Off the footer (it has no room at 80 columns for them); the help lists them.
        Binding("right_square_bracket", "change(1)", "+1", key_display="]", show=False),
        Binding("left_square_bracket", "change(-1)", "-1", key_display="[", show=False),
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
        self.share: float | None = None  # of the total weight, shown as %
        self.set_reactive(WeightRow.weight, weight)

    def compose(self) -> ComposeResult:
        """Name, -/+ buttons, bar, value and share, the (hidden) field to type it; the description unless compact."""
        with Horizontal(classes="weight-line"):
            yield Label(self.title, classes="weight-name", markup=False)
            yield _MouseButton("-", classes="weight-minus", compact=True)
            yield Static(self._bar(), classes="weight-bar")
            yield _MouseButton("+", classes="weight-plus", compact=True)
            field = Input(
                classes="weight-input", compact=True, max_length=8, restrict=r"[0-9.]*", placeholder="0-5"
            )
            field.display = False
            yield field
        if not self.compact:
            yield Static(self.description, classes="weight-desc")

    def _bar(self) -> str:
        share = "" if self.share is None else f" {100 * self.share:3.0f}%"
        return f"{weight_bar(self.weight)} {self.weight:4.2f}{share}"

    def _redraw(self) -> None:
        # A row being replaced (the screen rebuilds its rows) may have lost its children already.
        for bar in self.query(".weight-bar").results(Static):
            bar.update(self._bar())

    def watch_weight(self, weight: float) -> None:
        """Redraw the bar and tell the screen."""
        self._redraw()
        self.post_message(WeightChanged(self.criterion, weight))

    def set_weight(self, weight: float) -> None:
        """Set the weight without announcing it (presets, resets)."""
        self.set_reactive(WeightRow.weight, weight)
        self._redraw()

    def set_share(self, share: float | None) -> None:
        """Show this weight's share of the total (the screen knows the others)."""
        self.share = share
        self._redraw()

    def action_change(self, step: float) -> None:
        """Step the weight up or down, within 0..MAX_WEIGHT."""
        self.weight = max(0.0, min(MAX_WEIGHT, round(self.weight + step, 2)))

    def action_set(self, value: float) -> None:
        """Set the weight outright (0: the criterion is ignored)."""
        self.weight = float(value)

    def action_edit(self) -> None:
        """Show the field to type the weight in (Enter sets it, Esc leaves it)."""
        field = self.query_one(".weight-input", Input)
        field.value = f"{self.weight:g}"
        field.display = True
        field.focus()

    @on(Input.Submitted, ".weight-input")
    def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        value = parse_weight(event.value)
        if value is None:
            self.notify(
                f"{self.title}: {event.value!r} is not a weight; type a number from 0 to {MAX_WEIGHT:g}",
                severity="warning",
                markup=False,
            )
            return
        event.input.display = False
        self.focus()
        self.weight = value

    @on(Input.Blurred, ".weight-input")
    def _left(self, event: Input.Blurred) -> None:
        event.input.display = False

    @on(Button.Pressed, ".weight-minus")
    def _minus(self, event: Button.Pressed) -> None:
        event.stop()
        self.focus()
        self.action_change(-STEP)

    @on(Button.Pressed, ".weight-plus")
    def _plus(self, event: Button.Pressed) -> None:
        event.stop()
        self.focus()
        self.action_change(STEP)
