"""Step 3: the evaluation matrix — a weight for every criterion, hard constraints, and a live ranking."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Checkbox, Label, Static, TabbedContent, TabPane

from advisor.tui import core
from advisor.tui.messages import AssessmentReady, WeightChanged
from advisor.tui.screens import team
from advisor.tui.screens.base import StepScreen
from advisor.tui.widgets.body import Body
from advisor.tui.widgets.ranking import ranking_table
from advisor.tui.widgets.weight_row import WeightRow

#: Monte-Carlo draws for the live preview: enough for a ranking, cheap enough for every key press.
PREVIEW_DRAWS = 200


class PrioritiesScreen(StepScreen):
    """Weights (keys +/-, or the buttons), presets, pairwise questions, constraints, ranking preview."""

    step = "priorities"
    HELP = (
        "Each row is one criterion of the evaluation matrix with its description; weights read as "
        "percentages like the scenario presets (the core normalises them). Focus a row (Tab or click) and "
        "press + or - to change it by 1, ] or [ by 5 (or click the buttons); 0 ignores it. `p` fills the "
        "weights from the scenario preset; `w` asks pairwise 'which matters more?' questions instead. "
        "The Constraints tab holds hard constraints: a framework that cannot meet one is excluded. "
        "The ranking preview on the right is recomputed by the core after every change."
    )
    BINDINGS = [
        Binding("p", "apply_preset", "Preset"),
        Binding("w", "pairwise", "Which matters more?"),
        Binding("t", "team", "Team decision", show=False),  # in the help; the footer keeps the walk keys
    ]
    action_team = team.open_team_screen  # several members' profiles -> the team's answer

    def __init__(self) -> None:
        super().__init__()
        self.last_report: dict[str, Any] | None = None
        self.last_error: str | None = None

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
        from advisor.knowledge.schema import Hardware  # the ids the constraints use

        walk = app.walk
        widgets: list[Any] = [Label("Must run on", classes="section")]
        widgets += [
            Checkbox(h.value, h.value in walk.must_run_on, name=f"hw-{h.value}", compact=True) for h in Hardware
        ]
        widgets.append(Label("Must deploy to", classes="section"))
        if app.kb.targets:
            widgets += [
                Checkbox(t.name, tid in walk.must_deploy_to, name=f"dep-{tid}", compact=True)
                for tid, t in app.kb.targets.items()
            ]
        else:
            widgets.append(Static("no deployment targets in the knowledge base: not available", classes="dim"))
        widgets.append(Label("Rule out", classes="section"))
        widgets += [
            Checkbox(fw.name, fid in walk.exclude, name=f"ex-{fid}", compact=True)
            for fid, fw in app.kb.frameworks.items()
        ]
        cons_box.mount_all(widgets)
        self.request_ranking()

    def request_ranking(self) -> None:
        """Ask the core for a ranking under the current answers (in a worker)."""
        self.query_one("#preview-ranking", Static).update("scoring…")
        self.advisor.assess(self, draws=PREVIEW_DRAWS)

    def on_assessment_ready(self, message: AssessmentReady) -> None:
        """Show the ranking, or why there is none."""
        self.last_report, self.last_error = message.report, message.error
        target = self.query_one("#preview-ranking", Static)
        if message.report is None:
            target.update(self.not_available("Ranking", message.error))
        else:
            target.update(ranking_table(message.report))

    def on_weight_changed(self, message: WeightChanged) -> None:
        """A weight changed: remember it and re-rank."""
        self.advisor.walk.weights = {**self.advisor.effective_weights(), message.criterion: message.weight}
        self.advisor.save()
        self.request_ranking()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """A hard constraint toggled."""
        cid = event.checkbox.name or ""
        walk = self.advisor.walk
        for prefix, attr in (("hw-", "must_run_on"), ("dep-", "must_deploy_to"), ("ex-", "exclude")):
            if cid.startswith(prefix):
                values: list[str] = getattr(walk, attr)
                key = cid[len(prefix) :]
                if event.value and key not in values:
                    values.append(key)
                elif not event.value and key in values:
                    values.remove(key)
        self.advisor.save()
        self.request_ranking()

    def _set_all(self, weights: dict[str, float]) -> None:
        for row in self.query(WeightRow):
            row.set_weight(weights.get(row.criterion, 0.0))
        self.advisor.walk.weights = dict(weights)
        self.advisor.save()
        self.request_ranking()

    def action_apply_preset(self) -> None:
        """Fill every weight from the scenario preset (or equal weights without one)."""
        app = self.advisor
        if app.kb is None:
            return
        app.walk.weights = {}
        self._set_all(app.effective_weights())
        self.notify("weights set from " + (f"scenario {app.walk.scenario}" if app.walk.scenario else "equal weights"))

    def action_pairwise(self) -> None:
        """Ask pairwise questions; the core's AHP turns the answers into weights."""
        from advisor.tui.screens.pairwise import PairwiseScreen

        app = self.advisor
        if app.kb is None or len(app.kb.criteria) < 2:
            return
        criteria = [(cid, c.name) for cid, c in app.kb.criteria.items()]

        def done(judgements: list[tuple[str, str, float]] | None) -> None:
            if not judgements:
                return
            try:
                weights, cr = core.pairwise_weights(judgements)
            except Exception as exc:  # noqa: BLE001 - shown, weights unchanged
                self.notify(f"pairwise weights not available: {exc}", severity="error")
                return
            # AHP weights sum to 1; shown as percentages like the scenario presets.
            self._set_all({k: round(v * 100, 1) for k, v in weights.items()})
            if cr is not None and cr > 0.1:
                self.notify(f"answers are inconsistent (consistency ratio {cr:.2f} > 0.1)", severity="warning")

        self.app.push_screen(PairwiseScreen(criteria), done)
