"""What every step of the walk shares: header, step bar, footer, and typed access to the app."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header

from advisor.tui.messages import EvidenceDone
from advisor.tui.plain import plain
from advisor.tui.widgets.stepbar import StepBar

if TYPE_CHECKING:
    from advisor.tui.app import AdvisorApp


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

    def refresh_from_app(self) -> None:
        """Redraw from the app's state (the knowledge base or the answers changed); screens override this."""

    def on_evidence_done(self, message: EvidenceDone) -> None:
        """Evidence arrived (probe, bench); screens that show it override this."""
