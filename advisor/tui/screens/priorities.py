"""Step 3: the evaluation matrix — a weight for every criterion, hard constraints, and a live ranking."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Checkbox, Label, Static, TabbedContent, TabPane

from advisor.tui import core
from advisor.tui.data.answers import CONSTRAINT_LISTS, constraint_list, with_constraint, with_weights
from advisor.tui.messages import AssessmentReady, WeightChanged
from advisor.tui.screens import team
from advisor.tui.screens.base import StepScreen
from advisor.tui.widgets.body import Body
from advisor.tui.widgets.ranking import ranking_table
from advisor.tui.widgets.weight_row import WeightRow

if TYPE_CHECKING:  # only for types: the core is imported through advisor.tui.core
    from advisor.profile import Profile
    from advisor.report import Report

#: Monte-Carlo draws for the live preview: enough for a ranking, cheap enough for every key press.
PREVIEW_DRAWS = 200


class PrioritiesScreen(StepScreen):
    """Weights (keys +/-, or the buttons), presets, pairwise questions, constraints, ranking preview."""

    step = "priorities"
    HELP = (
        "Each row is one criterion of the evaluation matrix with its description and its weight on the "
        "profiles' scale: 0 ignores it, 5 makes it decisive; the % beside it is its share of all the weights. "
        "Criteria you do not set keep the scenario's weight (its preset, scaled so its largest weight is 5), and "
        "only the weights you set are written as yours in an exported profile. Up/Down (or Tab) move between "
        "criteria; + or - change the focused one by 0.5, ] or [ by 1 (or click the buttons); Enter types a "
        "value (e.g. one the sensitivity names); 0 ignores it; "
        "the arrow keys never change a weight. `p` fills the weights from the scenario preset (it asks "
        "first when you set weights) and `u` undoes it; `w` asks pairwise 'which matters more?' questions "
        "instead (their answers are saved in the profile); `m` opens the team decision from several "
        "members' profiles. `t` switches to the Constraints tab: hard "
        "constraints, a framework that cannot meet one is excluded. "
        "The ranking preview on the right is recomputed by the core after every change."
    )
    BINDINGS = [
        Binding("p", "apply_preset", "Preset"),
        Binding("w", "pairwise", "Pairs"),
        Binding("u", "undo", "Undo"),
        Binding("t", "switch_tab", "Tab"),
        Binding("m", "team", "Team decision", show=False),  # members' profiles; in the help, not the footer
    ]
    action_team = team.open_team_screen  # several members' profiles -> the team's answer

    def __init__(self) -> None:
        super().__init__()
        self.last_report: Report | None = None
        self.last_error: str | None = None
        self.undo_stack: list[Profile] = []  # the walk's profile before each change of every weight at once

    def body(self) -> ComposeResult:
        """Tabs (weights, constraints) beside the ranking preview."""
        with Horizontal(id="priorities-body"):
            with TabbedContent(id="priorities-tabs"):
                with TabPane("Weights", id="tab-weights"):
                    yield Body(id="weights")
                with TabPane("Constraints", id="tab-constraints"):
                    yield Body(id="constraints")
            with Vertical(id="preview", classes="panel"):
                yield Label("Ranking preview", classes="section")
                yield Static("", id="preview-ranking")

    def on_screen_resume(self) -> None:
        """Scenario may have changed on the previous step."""
        self.refresh_from_app()

    def refresh_from_app(self) -> None:
        """Rebuild rows and toggles from the app's state, then ask for a ranking."""
        app = self.advisor
        weights_box = self.query_one("#weights", Body)
        cons_box = self.query_one("#constraints", Body)
        weights_box.remove_children()
        cons_box.remove_children()
        if app.kb is None:
            weights_box.mount(Static(self.kb_missing("Weights") or ""))
            return
        weights = app.effective_weights()
        weights_box.mount_all(
            WeightRow(cid, c.name, c.description, weights.get(cid, 0.0)) for cid, c in app.kb.criteria.items()
        )
        self.call_after_refresh(self._show_weights)
        from advisor.checklist import HARDWARE_LABELS  # display names of the hardware ids the constraints use
        from advisor.knowledge.schema import Hardware

        profile = app.walk.profile
        must_run_on, must_deploy_to, exclude = (constraint_list(profile, k) for k in CONSTRAINT_LISTS)
        widgets: list[Any] = [Label("Must run on", classes="section")]
        widgets += [
            Checkbox(HARDWARE_LABELS.get(h, h.value), h.value in must_run_on, name=f"hw-{h.value}", compact=True)
            for h in Hardware
        ]
        widgets.append(Label("Must deploy to", classes="section"))
        if app.kb.targets:
            for tid, t in app.kb.targets.items():
                # A checkbox label does not wrap: a long name keeps its head here, the whole in its tooltip.
                box = Checkbox(Text(t.name.split(" (")[0]), tid in must_deploy_to, name=f"dep-{tid}", compact=True)
                box.tooltip = t.name
                widgets.append(box)
        else:
            widgets.append(Static("no deployment targets in the knowledge base: not available", classes="dim"))
        widgets.append(Label("Rule out", classes="section"))
        widgets += [
            Checkbox(Text(fw.name), fid in exclude, name=f"ex-{fid}", compact=True)
            for fid, fw in app.kb.frameworks.items()
        ]
        cons_box.mount_all(widgets)
        self.request_ranking()

    def request_ranking(self) -> None:
        """Ask the core for a ranking under the current answers (in a worker)."""
        self.query_one("#preview-ranking", Static).update("scoring…")
        self.assess(draws=PREVIEW_DRAWS)

    def on_assessment_ready(self, message: AssessmentReady) -> None:
        """Show the ranking, or why there is none."""
        self.last_report, self.last_error = message.report, message.error
        target = self.query_one("#preview-ranking", Static)
        if message.report is None:
            target.update(self.not_available("Ranking", message.error))
        else:
            target.update(ranking_table(message.report))

    @on(WeightChanged)
    def _weight_changed(self, message: WeightChanged) -> None:
        """A weight changed: it is now the user's own (pairwise answers give way to weights), then re-rank."""
        app = self.advisor
        profile = app.walk.profile
        # After pairwise answers every weight was derived from them: all become the user's, on the same scale.
        mine = app.effective_weights() if profile.pairwise else dict(profile.weights or {})
        app.walk.profile = with_weights(profile, app.kb, {**mine, message.criterion: message.weight})
        app.save()
        self._show_weights()
        self.request_ranking()

    def _show_weights(self) -> None:
        """Every row's value and share as the core reads the walk now (the preset's where the user set none)."""
        weights = self.advisor.effective_weights()
        shares = core.shares(weights)
        for row in self.query(WeightRow):
            row.set_weight(weights.get(row.criterion, 0.0))
            row.set_share(shares.get(row.criterion))

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """A hard constraint toggled."""
        cid = event.checkbox.name or ""
        walk = self.advisor.walk
        for prefix, attr in zip(("hw-", "dep-", "ex-"), CONSTRAINT_LISTS, strict=True):
            if cid.startswith(prefix):
                values = constraint_list(walk.profile, attr)
                key = cid[len(prefix) :]
                if event.value and key not in values:
                    values.append(key)
                elif not event.value and key in values:
                    values.remove(key)
                walk.profile = with_constraint(walk.profile, attr, values)
        self.advisor.save()
        self.request_ranking()

    def _set_all(self, weights: dict[str, float], pairwise: list[list[Any]] | None = None) -> None:
        """Replace the user's weights at once (preset, pairwise answers, undo); `u` has the old ones back."""
        app = self.advisor
        self.undo_stack.append(app.walk.profile)
        del self.undo_stack[:-20]
        app.walk.profile = with_weights(app.walk.profile, app.kb, weights, pairwise or [])
        app.save()
        self._show_weights()
        self.request_ranking()

    def action_apply_preset(self) -> None:
        """Every weight back to the scenario preset's (or equal weights); asks first when the user set weights."""
        from advisor.tui.screens.confirm import ConfirmScreen

        app = self.advisor
        if app.kb is None:
            return
        profile = app.walk.profile
        source = f"the scenario {self._scenario_name()}" if profile.scenario else "equal weights"
        if not profile.weights and not profile.pairwise:
            self._apply_preset(source)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._apply_preset(source)

        own = "your pairwise answers' weights" if profile.pairwise else "the weights you set"
        app.push_screen(
            ConfirmScreen(f"Replace {own} with {source}?", "Every weight changes; `u` undoes it afterwards."),
            answered,
        )

    def _scenario_name(self) -> str:
        kb, sid = self.advisor.kb, self.advisor.walk.profile.scenario
        return kb.scenarios[sid].name if kb is not None and sid in kb.scenarios else str(sid)

    def _apply_preset(self, source: str) -> None:
        self._set_all({})  # none of the user's own: every weight is the preset's
        self.notify(f"weights set from {source}; u undoes", markup=False)

    def action_undo(self) -> None:
        """Put back the weights from before the last preset, pairwise answers or undo."""
        if not self.undo_stack:
            self.notify("nothing to undo")
            return
        self.advisor.walk.profile = self.undo_stack.pop()
        self.advisor.save()
        self._show_weights()
        self.request_ranking()
        self.notify("weights put back")

    def action_switch_tab(self) -> None:
        """Between the Weights and Constraints tabs."""
        tabs = self.query_one("#priorities-tabs", TabbedContent)
        target = "tab-constraints" if tabs.active == "tab-weights" else "tab-weights"
        # Focus leaves the old tab first: TabbedContent would switch back to the tab holding the focus.
        self.set_focus(None)
        tabs.active = target
        box = self.query_one("#constraints" if target == "tab-constraints" else "#weights", Body)

        def focus_first() -> None:
            first = next((w for w in box.query("*") if w.focusable), None)
            if first is not None:
                first.focus()

        self.call_after_refresh(focus_first)

    def action_pairwise(self) -> None:
        """Ask pairwise questions; the core's AHP turns the answers into weights (the answers are kept)."""
        from advisor.tui.screens.pairwise import PairwiseScreen

        app = self.advisor
        if app.kb is None or len(app.kb.criteria) < 2:
            return
        criteria = [(cid, c.name) for cid, c in app.kb.criteria.items()]

        def done(judgements: list[tuple[str, str, float]] | None) -> None:
            if not judgements:
                return
            try:
                _weights, cr = core.pairwise_weights(judgements)
            except Exception as exc:  # noqa: BLE001 - shown, weights unchanged
                self.notify(f"pairwise weights not available: {exc}", severity="error")
                return
            # The answers are kept; the core reads them as weights on the 0-5 scale (5 x the AHP share).
            self._set_all({}, [list(j) for j in judgements])
            if cr is not None and cr > 0.1:
                self.notify(f"answers are inconsistent (consistency ratio {cr:.2f} > 0.1)", severity="warning")

        self.app.push_screen(PairwiseScreen(criteria), done)
