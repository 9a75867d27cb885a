"""Step 5: the ranking, the selected framework's breakdown, exclusions, sensitivity, and a what-if panel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from advisor.report.words import exclusion_words
from advisor.tui import core
from advisor.tui.messages import AssessmentReady, EvidenceRunEnded, WeightChanged
from advisor.tui.screens.base import StepScreen
from advisor.tui.screens.priorities import PREVIEW_DRAWS
from advisor.tui.widgets.body import Body
from advisor.tui.widgets.explain import breakdown, sensitivity_sentence, short_status, warning_lines
from advisor.tui.widgets.weight_row import WeightRow

if TYPE_CHECKING:  # only for types: the core is imported through advisor.tui.core
    from advisor.report.models import RankingEntry, Report
    from advisor.tui.work import ScoringInput


class ResultsScreen(StepScreen):
    """Ranking, breakdown with rationale/sources/measured figures, exclusions, sensitivity, what-if."""

    step = "results"
    HELP = (
        "The ranking comes from the core's scoring of your answers and the evidence. Move through it with "
        "the arrow keys; the Breakdown tab explains the highlighted framework criterion by criterion "
        "(contribution = weight × score, with the knowledge base's rationale, sources and the figures "
        "measured here). Enter (or `c`) chooses it for onboarding. The What-if tab changes weights (0-5, as in "
        "profiles; Enter on a row types a value, + and - step it) without touching your answers and re-ranks at "
        "once; `r` resets it. The sensitivity names the one weight that changes the advice: type that value in "
        "What-if to see it."
    )
    BINDINGS = [
        Binding("c", "choose", "Choose"),
        Binding("r", "reset_whatif", "Reset what-if"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.report: Report | None = None
        self.whatif: dict[str, float] | None = None

    def body(self) -> ComposeResult:
        """Ranking on top, tabs below."""
        with Vertical(id="results-body"):
            yield Static("", id="run-status")
            yield Static("", id="verdict")
            yield DataTable(id="ranking", cursor_type="row", zebra_stripes=True)
            with TabbedContent(id="results-tabs"):
                with TabPane("Breakdown", id="tab-breakdown"):
                    with VerticalScroll():
                        yield Static("", id="breakdown")
                with TabPane("What-if", id="tab-whatif"):
                    yield Body(id="whatif")
                with TabPane("Sensitivity & exclusions", id="tab-sens"):
                    with VerticalScroll():
                        yield Static("", id="sensitivity")
                        yield Static("", id="exclusions")
                        yield Static("", id="warnings")

    def on_mount(self) -> None:
        """Columns; then score."""
        table = self.query_one("#ranking", DataTable)
        table.add_column(" ", key="chosen", width=1)  # ✓ marks the framework chosen for onboarding and export
        # Fixed widths: auto widths left the header behind the rows after a re-score (seen at 80x24 in tmux).
        for col, width in (("#", 2), ("framework", 14), ("score", 6), ("status", 28)):
            table.add_column(col, key=col, width=width)

    def on_screen_resume(self) -> None:
        """Answers or evidence may have changed: score again."""
        self.refresh_from_app()

    def refresh_from_app(self) -> None:
        """Show an opened report, or ask the core to score the walk's answers."""
        app = self.advisor
        self._show_run_status()
        self._build_whatif()
        if app.showing_loaded_report() and self.whatif is None and app.loaded_report is not None:
            self._show(app.loaded_report)
            app.keep_report(app.loaded_report, app.profile())
            return
        self.query_one("#verdict", Static).update("scoring…")
        self.assess(self.whatif)

    def _build_whatif(self) -> None:
        box = self.query_one("#whatif", Body)
        box.remove_children()
        app = self.advisor
        if app.kb is None:
            box.mount(Static(self.kb_missing("What-if") or ""))
            return
        weights = self.whatif or app.effective_weights()
        box.mount_all(
            WeightRow(cid, c.name, c.description, weights.get(cid, 0.0), compact=True)
            for cid, c in app.kb.criteria.items()
        )
        self.call_after_refresh(self._show_weights)

    def _show_weights(self) -> None:
        weights = self.whatif or self.advisor.effective_weights()
        shares = core.shares(weights)
        for row in self.query(WeightRow):
            row.set_weight(weights.get(row.criterion, 0.0))
            row.set_share(shares.get(row.criterion))

    @on(WeightChanged)
    def _weight_changed(self, message: WeightChanged) -> None:
        """What-if: re-rank at once under the changed weights, the others unchanged (the walk's answers too)."""
        message.stop()
        base = self.whatif or self.advisor.effective_weights()
        self.whatif = {**base, message.criterion: message.weight}
        self._show_weights()
        self.query_one("#verdict", Static).update("re-scoring (what-if)…")
        self._preview(self.advisor.scoring_input(self.whatif))

    # Its own group: a preview never cancels the full scoring of the walk's answers, nor one of those a preview.
    @work(thread=True, group="whatif", exclusive=True, exit_on_error=False)
    def _preview(self, given: ScoringInput) -> None:
        self.post_scoring(given, PREVIEW_DRAWS)

    def action_reset_whatif(self) -> None:
        """Back to the profile's weights."""
        self.whatif = None
        self._show_weights()
        self.refresh_from_app()

    def on_assessment_ready(self, message: AssessmentReady) -> None:
        """The core's report (or why there is none)."""
        if message.report is None:
            self.report = None
            self.query_one("#verdict", Static).update(self.not_available("Ranking", message.error))
            self.query_one("#ranking", DataTable).clear()
            return
        if self.whatif is None and message.profile is not None:
            self.advisor.keep_report(message.report, message.profile)
        self._show(message.report)

    def on_evidence_run_ended(self, message: EvidenceRunEnded) -> None:
        """A run finished while this step is open: score again with the new evidence."""
        if self.is_mounted:
            self._show_run_status()
            if self.is_current:
                self.refresh_from_app()

    def _show_run_status(self) -> None:
        running = self.advisor.evidence_running()
        status = self.query_one("#run-status", Static)
        status.display = running
        running_text = "Benchmarks are running on step 4 (Evidence): the ranking is scored again when they finish."
        status.update(running_text if running else "")

    def _show(self, report: Report) -> None:
        self.report = report
        table = self.query_one("#ranking", DataTable)
        keep = table.cursor_row
        table.clear()
        entries = report.ranking
        for i, entry in enumerate(entries, 1):
            table.add_row(
                "✓" if entry.framework == self.advisor.walk.chosen else "",
                str(i),
                Text(entry.name),
                f"{entry.total:.3f}",
                Text(short_status(entry)),
                key=entry.framework,
            )
        if entries:
            table.move_cursor(row=min(keep, len(entries) - 1))
        kb = self.advisor.kb
        names = {cid: c.name for cid, c in kb.criteria.items()} if kb else {}
        names.update({e.framework: e.name for e in entries})
        headline = report.recommendation.summary
        prefix = "[b]What-if:[/b] " if self.whatif is not None else ""
        sensitivity = sensitivity_sentence(report, names, core.advice_change_line(report))
        verdict = (headline or sensitivity) if entries else "No framework qualifies."
        self.query_one("#verdict", Static).update(prefix + escape(verdict))
        self.query_one("#sensitivity", Static).update(Text(sensitivity))
        self._show_exclusions(report)
        self._show_breakdown()

    def _show_exclusions(self, report: Report) -> None:
        lines = ["[b]Exclusions[/b]"]
        for ex in report.exclusions:
            reasons = exclusion_words(ex)
            fid = ex.framework
            kb = self.advisor.kb
            name = kb.frameworks[fid].name if kb is not None and fid in kb.frameworks else fid
            lines.append(escape(f"• {name}: {reasons}"))
        if len(lines) == 1:
            lines.append("none: every framework meets the hard constraints")
        self.query_one("#exclusions", Static).update("\n".join(lines))
        warnings = warning_lines(report.warnings)
        text = Text()
        if warnings:
            text.append("Warnings", style="bold")
            for line in warnings:
                text.append(f"\n• {line}")
        self.query_one("#warnings", Static).update(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Explain the highlighted framework."""
        self._show_breakdown()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter: choose it."""
        self.action_choose()

    def _selected(self) -> RankingEntry | None:
        if self.report is None:
            return None
        entries = self.report.ranking
        row = self.query_one("#ranking", DataTable).cursor_row
        return entries[row] if 0 <= row < len(entries) else None

    def _show_breakdown(self) -> None:
        entry = self._selected()
        target = self.query_one("#breakdown", Static)
        target.update(breakdown(entry) if entry is not None else "")

    def action_choose(self) -> None:
        """Use the highlighted framework for onboarding and export."""
        entry = self._selected()
        if entry is None:
            return
        self.advisor.walk.chosen = entry.framework
        self.advisor.save()
        if self.report is not None:
            self._show(self.report)  # the mark moves to the chosen row
        name = entry.name
        self.notify(f"chosen: {name} — press n for its onboarding checklist")
