"""A yes/no question before something the user would lose (their weights, their walk)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True for yes (`y`, Enter on Yes), False for no (Esc, Enter on No); No has the focus first.

    No `n` for "No": everywhere else `n` is "next", and a user walking with `n` must not answer a question with it.
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("escape", "answer(False)", "No", key_display="esc"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        """The question, what it would do, the two answers."""
        with Vertical(id="confirm"):
            yield Label(self.question, classes="section")
            if self.detail:
                yield Static(self.detail)
            with Horizontal(classes="buttons"):
                yield Button("No (esc)", id="no", compact=True)
                yield Button("Yes (y)", id="yes", variant="warning", compact=True)

    def on_mount(self) -> None:
        """The safe answer has the focus."""
        self.query_one("#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)
