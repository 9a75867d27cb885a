"""Step 6: the onboarding checklist for the chosen framework; ticks are saved through the core's progress store."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.markup import escape
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

from advisor.tui import core
from advisor.tui.messages import AssessmentReady
from advisor.tui.screens.base import StepScreen
from advisor.tui.widgets.ticklist import TickList

#: Short section names for the list, so that item titles take fewer lines at 80 columns.
SECTION_TAGS = {
    "install": "Install",
    "verify": "Verify",
    "concepts": "Concept",
    "pitfalls": "Pitfall",
    "tooling": "Tooling",
    "first_tasks": "Task",
}


def link_line(link: Any) -> str:
    """One link under an item: "name: url" for a web page; a Package URL (pkg:pypi/NAME) is its own name."""
    url, name = str(link.url), str(link.name)
    if url.startswith("pkg:") and name == url.split("@")[0]:
        return f"{link.purpose}: {url}" if link.purpose else url  # "install guide: pkg:pypi/torch"
    return f"{name}: {url}" if name and name != url else url


class OnboardingScreen(StepScreen):
    """Install, verify, concepts, pitfalls, tooling, first tasks — each item tickable (Space)."""

    step = "onboarding"
    HELP = (
        "The checklist the core builds for the chosen framework on this machine (coming from the team's "
        "current framework). Space ticks or unticks the highlighted item; ticks are saved in the user data "
        "folder and shown again next time, also by `fwadvisor checklist`. The panel explains the item."
    )
    BINDINGS = [Binding("t", "toggle_item", "Tick")]

    def __init__(self) -> None:
        super().__init__()
        self.checklist: Any = None
        self.framework: str | None = None
        self.from_framework: str | None = None

    def body(self) -> ComposeResult:
        """Title, list, detail."""
        yield Static("", id="checklist-title")
        with Horizontal(id="onboarding-body"):
            yield TickList[str](id="checklist", classes="flat")  # long titles wrap rather than end in "…"
            with VerticalScroll(id="item-detail-box", classes="panel"):
                yield Static("", id="item-detail")

    def on_screen_resume(self) -> None:
        """The chosen framework may have changed."""
        self.refresh_from_app()

    def chosen(self) -> str | None:
        """The chosen framework: the user's pick on Results, else the one the latest report recommends."""
        app = self.advisor
        try:
            return app.chosen_framework(app.report or app.loaded_report)
        except core.Unavailable:
            return None

    def refresh_from_app(self) -> None:
        """Ask the core for the checklist and show it with the saved ticks."""
        app = self.advisor
        title = self.query_one("#checklist-title", Static)
        sel = self.query_one("#checklist", SelectionList)
        sel.clear_options()
        self.checklist = None
        framework = self.chosen()
        if app.kb is None:
            title.update(self.kb_missing("Checklist") or "")
            return
        if framework is None:
            if app.report is None and app.loaded_report is None:
                # Resumed here: score the walk's answers for the recommendation (Results need not be visited).
                title.update("Scoring the answers for the recommendation…")
                self.assess()
                return
            title.update("No framework chosen yet: choose one on the Results step (Enter on a row).")
            return
        self.framework = framework
        try:
            self.checklist, self.from_framework = app.walk_checklist(framework)
        except Exception as exc:  # noqa: BLE001 - shown as the reason
            title.update(self.not_available("Checklist", str(exc)))
            return
        self._fill()

    def _fill(self) -> None:
        cl = self.checklist
        sel = self.query_one("#checklist", SelectionList)
        highlighted = sel.highlighted
        sel.clear_options()
        options = []
        for section in cl.sections:
            tag = SECTION_TAGS.get(section.id, section.title)
            for item in section.items:
                options.append(Selection(Text(f"{tag}: {item.title}"), item.id, item.done))
        sel.add_options(options)
        if options:
            sel.highlighted = min(highlighted or 0, len(options) - 1)
        self._title()

    def _title(self) -> None:
        cl = self.checklist
        done, total = cl.progress
        origin = f" (coming from {cl.from_name})" if cl.from_name else ""
        self.query_one("#checklist-title", Static).update(
            f"[b]{escape(cl.framework_name)} onboarding{escape(origin)}[/b] — {done}/{total} done — "
            f"`{escape(cl.command())}`"
        )

    def on_assessment_ready(self, message: AssessmentReady) -> None:
        """The recommendation arrived (see `refresh_from_app`): its checklist follows."""
        if message.report is None:
            self.query_one("#checklist-title", Static).update(self.not_available("Recommendation", message.error))
            return
        if message.profile is not None:
            self.advisor.keep_report(message.report, message.profile)
        self.refresh_from_app()

    def on_selection_list_selection_highlighted(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        """Explain the highlighted item."""
        if self.checklist is None:
            return
        item = self.checklist.item(event.selection.value)
        if item is None:
            return
        section = next((sec.title for sec in self.checklist.sections if item in sec.items), "")
        text = Text(f"{section}\n", style="dim")
        text.append(item.title, style="bold")
        if item.detail:
            text.append(f"\n{item.detail}")
        if item.code:
            text.append(f"\n\n{item.code}", style="italic")
        if item.done_when:
            text.append(f"\n\nDone when: {item.done_when}")
        for link in item.links:
            text.append(f"\n{link_line(link)}", style="dim")
        text.append(f"\n\nid: {item.id}", style="dim")
        self.query_one("#item-detail", Static).update(text)

    def on_selection_list_selection_toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        """Save the tick at once (atomically, by the core's progress store)."""
        if self.checklist is None or self.framework is None:
            return
        item_id = event.selection.value
        done = item_id in event.selection_list.selected
        try:
            core.progress_set(self.framework, self.from_framework, item_id, done)
        except Exception as exc:  # noqa: BLE001 - the tick could not be saved: say so
            self.notify(f"could not save the tick: {exc}", severity="error")
            return
        self.checklist = self.checklist.with_done(set(event.selection_list.selected))
        self._title()

    def action_toggle_item(self) -> None:
        """Tick or untick the highlighted item."""
        sel = self.query_one("#checklist", SelectionList)
        if sel.highlighted is not None:
            sel.toggle(sel.get_option_at_index(sel.highlighted).value)
