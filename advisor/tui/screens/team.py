"""The team decision, opened from the Priorities step: import several members' profiles, see the team's answer."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Header, Input, Label, Static

from advisor.tui.widgets.field import PATHS_CHARS, TextField
from advisor.tui.widgets.team_view import TeamView

if TYPE_CHECKING:
    from advisor.team.decision_schema import TeamDecisionDoc
    from advisor.tui.app import AdvisorApp


class TeamDecided(Message):
    """The worker's result: the decision document and Markdown, the left-out lines, or an error."""

    def __init__(self, document: TeamDecisionDoc | None, markdown: str, left_out: list[str]) -> None:
        super().__init__()
        self.document, self.markdown, self.left_out = document, markdown, left_out


class TeamScreen(ModalScreen[None]):
    """Member profile files in, the team decision out (aggregated by the core, as `team decide`).

    Modal, so that the walk's keys (back, next) stay with the Priorities step underneath.
    """

    DEFAULT_CSS = """
    TeamScreen { background: $background; }
    TeamScreen #team-body { height: 1fr; padding: 0 1; }
    TeamScreen #team-help { color: $text-muted; }
    """

    HELP = (
        "Type the members' profile files (YAML, separated by spaces; quote names with spaces) and press Enter. "
        "The team's answer uses the evidence the advisor has (the probe and any benchmarks run). A file that "
        "cannot be used is named in one line and left out. Esc goes back to the priorities."
    )
    BINDINGS = [Binding("escape", "app.pop_screen", "Back to priorities")]

    def __init__(self, paths: list[str] | None = None) -> None:
        super().__init__()
        self.initial = " ".join(shlex.quote(p) for p in paths or [])

    @property
    def advisor(self) -> AdvisorApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Header, the file field, the decision, footer."""
        yield Header()
        with Vertical(id="team-body"):
            yield Label("Team decision: each member's profile file", classes="section")
            yield Static(self.HELP, id="team-help")
            yield TextField(
                self.initial, placeholder="alice.yaml bob.yaml carol.yaml", id="team-files", max_length=PATHS_CHARS
            )
            yield TeamView(id="team-view")
        yield Footer()

    def on_mount(self) -> None:
        """Start in the file field."""
        self.query_one("#team-files", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Decide for the files given (in a worker: scoring every member takes a moment)."""
        try:
            paths = shlex.split(event.value)
        except ValueError as exc:
            self.query_one(TeamView).show(None, f"Team decision: not available ({exc})", [])
            return
        if not paths:
            return
        self.query_one(TeamView).show(None, "deciding…", [])
        self.decide(paths)

    def decide(self, paths: list[str]) -> None:
        """Run the core's team decision on the app's evidence; the result comes back as `TeamDecided`."""
        app = self.advisor
        self._decide(app.kb, app.probe or app.probe_fast, app.bench, paths)

    @work(thread=True, group="team-decide", exclusive=True, exit_on_error=False)
    def _decide(self, kb: Any, probe: Any, bench: Any, paths: list[str]) -> None:
        from advisor.errors import AdvisorError
        from advisor.report.words import left_out_words
        from advisor.team.members import load_members
        from advisor.team.session import decide_members, no_members_error

        if kb is None:
            self.post_message(TeamDecided(None, "Team decision: not available (the knowledge base is loading)", []))
            return
        evidence = "probe and benchmarks here" if bench else ("probe here, no benchmarks" if probe else "none")
        # As `team decide` does: each file left out says why, also when none is usable (the error says
        # "see the line for each", so the lines must be there).
        members, left_out = load_members(kb, paths)
        lines = [f"left out {x.path}: {left_out_words(x)}" for x in left_out]
        try:
            if not members:
                raise no_members_error(len(paths))
            out = decide_members(kb, members, left_out, probe=probe, bench=bench, evidence=evidence)
        except AdvisorError as exc:
            self.post_message(TeamDecided(None, f"Team decision: not available ({exc})", lines))
            return
        self.post_message(TeamDecided(out.document, out.markdown, lines))

    def on_team_decided(self, message: TeamDecided) -> None:
        """Show it."""
        self.query_one(TeamView).show(message.document, message.markdown, message.left_out)
        for line in message.left_out:
            self.notify(line, severity="warning")


def open_team_screen(screen: Any) -> None:
    """The Priorities step's `m` key: push the team decision screen (bound there as `action_team`)."""
    screen.app.push_screen(TeamScreen())
