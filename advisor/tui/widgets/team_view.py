"""The team decision view: the same Markdown as `team decide --markdown`, with the left-out files on top."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from advisor.tui.plain import plain

if TYPE_CHECKING:  # only for types: the core is imported by the worker that decides
    from advisor.team.decision_schema import TeamDecisionDoc


class TeamView(VerticalScroll):
    """Shows one team decision (or why there is none); keeps the document it shows for tests and export."""

    DEFAULT_CSS = """
    TeamView { height: 1fr; }
    TeamView #team-left-out { color: $warning; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.document: TeamDecisionDoc | None = None
        self.markdown: str = ""
        self.left_out: list[str] = []

    def compose(self) -> ComposeResult:
        """The left-out lines and the decision."""
        yield Static("", id="team-left-out")
        yield Markdown("Give each member's profile file above and press Enter.", id="team-markdown")

    def show(self, document: TeamDecisionDoc | None, markdown: str, left_out: list[str]) -> None:
        """Show a decision (document None: `markdown` says why there is none)."""
        self.document, self.markdown, self.left_out = document, markdown, left_out
        self.query_one("#team-left-out", Static).update(plain("\n".join(left_out)))  # member paths: never markup
        self.query_one("#team-markdown", Markdown).update(markdown)
