"""What every step of the walk shares: header, step bar, footer, and typed access to the app."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header
from textual.worker import get_current_worker

from advisor.tui.plain import plain
from advisor.tui.widgets.stepbar import StepBar

if TYPE_CHECKING:
    from advisor.tui.app import AdvisorApp
    from advisor.tui.work import ScoringInput


class StepScreen(Screen[None]):
    """A step of the walk; subclasses set `step`, `HELP` and compose their body in `body()`."""

    step: ClassVar[str] = ""
    HELP: ClassVar[str] = ""

    @property
    def advisor(self) -> AdvisorApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Header, step bar, the step's body, footer."""
        yield Header()
        yield StepBar(self.step)
        yield from self.body()
        yield Footer(compact=True)  # compact: a step's keys and the walk's fit 80 columns

    def on_mount(self) -> None:
        """Register with the app, which relays evidence and knowledge updates to shown steps."""
        self.advisor.shown[self.step] = self

    def body(self) -> ComposeResult:
        """The step's own widgets."""
        yield from ()

    def kb_missing(self, what: str) -> Content | None:
        """Why `what` cannot be shown yet: the knowledge base is loading or failed; None when it is there."""
        app = self.advisor
        if app.kb is not None:
            return None
        if app.kb_error is None:
            return Content("Loading the knowledge base…")
        return self.not_available(what, app.kb_error)

    def not_available(self, what: str, why: str | None) -> Content:
        """The plain sentence shown where a core piece is missing (`why` carries paths and errors: never markup)."""
        return plain(f"{what}: not available" + (f" ({why})" if why else ""))

    def assess(self, weights: dict[str, float] | None = None, draws: int | None = None) -> None:
        """Score the walk's answers (`weights`: a what-if of them) in a worker; the result comes as `AssessmentReady`.

        A newer request from the same screen cancels an older one (exclusive), so fast key presses never
        queue up stale scorings; `draws` lowers the Monte-Carlo draws for previews.
        """
        self._assess(self.advisor.scoring_input(weights), draws)

    @work(thread=True, group="assess", exclusive=True, exit_on_error=False)
    def _assess(self, given: ScoringInput, draws: int | None) -> None:
        self.post_scoring(given, draws)

    def post_scoring(self, given: ScoringInput, draws: int | None) -> None:
        """Score `given` (in a worker of this screen) and post the result, unless a newer request superseded it."""
        ready = self.advisor.score(given, draws)
        if ready.report is None or not get_current_worker().is_cancelled:  # why there is none is always said
            self.post_message(ready)

    def refresh_from_app(self) -> None:
        """Redraw from the app's state (the knowledge base or the answers changed); screens override this."""
