""" "Which matters more?": pairwise questions whose answers the core turns into weights (AHP)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

#: Saaty-scale answers: (key, label, value for "left over right").
ANSWERS: tuple[tuple[str, str, float], ...] = (
    ("1", "left much more", 5.0),
    ("2", "left more", 3.0),
    ("3", "equal", 1.0),
    ("4", "right more", 1 / 3),
    ("5", "right much more", 1 / 5),
)


class PairwiseScreen(ModalScreen[list[tuple[str, str, float]] | None]):
    """Asks one question per adjacent pair of criteria; dismisses with the judgements (None if abandoned)."""

    BINDINGS = [
        *[Binding(k, f"answer({v})", label, key_display=k) for k, label, v in ANSWERS],
        Binding("escape", "dismiss_none", "Cancel"),
    ]

    def __init__(self, criteria: list[tuple[str, str]]) -> None:
        super().__init__()
        self.criteria = criteria
        # A chain plus skip-one links: every criterion connected, twice where possible (for consistency).
        self.pairs = [(i, i + 1) for i in range(len(criteria) - 1)]
        self.pairs += [(i, i + 2) for i in range(len(criteria) - 2)]
        self.index = 0
        self.judgements: list[tuple[str, str, float]] = []
        self._values: dict[Button, float] = {}

    def compose(self) -> ComposeResult:
        """Question, the two criteria, the five answers."""
        with Vertical(id="pairwise"):
            yield Label("Which matters more?", classes="section")
            yield Static("", id="pair-question")
            # One answer a line: five labels side by side do not fit 80 columns (the fifth was cut).
            with Vertical(id="pair-answers"):
                for k, label, v in ANSWERS:
                    button = Button(f"{k}  {label}", id=f"ans-{k}", compact=True)
                    self._values[button] = v
                    yield button
            yield Static("", id="pair-progress")

    def on_mount(self) -> None:
        """First question."""
        self._show()

    def _show(self) -> None:
        a, b = self.pairs[self.index]
        self.query_one("#pair-question", Static).update(
            f"[b]left:[/b] {escape(self.criteria[a][1])}\n[b]right:[/b] {escape(self.criteria[b][1])}"
        )
        self.query_one("#pair-progress", Static).update(
            f"question {self.index + 1} of {len(self.pairs)} — keys 1-5, Esc to cancel"
        )

    def action_answer(self, value: float) -> None:
        """Record an answer and move on; the last one closes the dialog."""
        a, b = self.pairs[self.index]
        self.judgements.append((self.criteria[a][0], self.criteria[b][0], float(value)))
        self.index += 1
        if self.index >= len(self.pairs):
            self.dismiss(self.judgements)
        else:
            self._show()

    def action_dismiss_none(self) -> None:
        """Abandon: the weights stay as they were."""
        self.dismiss(None)

    @on(Button.Pressed, "#pair-answers Button")
    def _clicked(self, event: Button.Pressed) -> None:
        """Mouse: the answer buttons (each carries its answer's value)."""
        self.action_answer(self._values[event.button])
