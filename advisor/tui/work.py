"""The app's shared state (answers, evidence, the latest assessment) and its calls into the core, in workers.

`AdvisorApp` (app.py) adds navigation and keys on top; screens read this state and ask for work
through these methods. Evidence can be injected (recorded probe/bench JSON) so tests never probe.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from textual import on, work
from textual.app import App
from textual.screen import Screen
from textual.worker import Worker, get_current_worker

from advisor.tui import core
from advisor.tui.data.answers import (
    constraint_list,
    current,
    effective_weights,
    kept_bench,
    prefill_environment,
    whatif_profile,
)
from advisor.tui.data.state import Settings, Walk, load_evidence, load_settings, save_evidence, save_settings
from advisor.tui.messages import (
    AssessmentReady,
    BenchDone,
    BenchFailed,
    BenchProgress,
    EvidenceNews,
    EvidenceRunEnded,
    FastProbeDone,
    FastProbeFailed,
    ProbeDone,
    ProbeFailed,
    ProbeProgress,
)

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchEvent, BenchReport
    from advisor.evidence.probe import ProbeEvent, ProbeReport
    from advisor.profile import Profile
    from advisor.report import Report
    from advisor.tui.screens.base import StepScreen


class ScoringInput(NamedTuple):
    """The answers and evidence one scoring reads, taken together so that a later change cannot mix in."""

    profile: Profile
    probe: ProbeReport | None
    bench: BenchReport | None


class AdvisorState(App[None]):
    """State several screens share, and the workers that fill it."""

    def __init__(
        self,
        *,
        kb: Any = None,
        probe: ProbeReport | None = None,
        bench: BenchReport | None = None,
        report: Report | None = None,
        live: bool = True,
        packs: tuple[str, ...] = (),
        settings_path: Path | None = None,
        resume: bool = True,
        frameworks: tuple[str, ...] | None = None,
    ) -> None:
        """Create the app.

        `kb`, `probe` (a full probe), `bench` (a bench run) and `report` may be injected, e.g.
        recorded evidence in tests; `live=False` forbids running probes and benchmarks at all.
        `resume=False` ignores a half-done walk saved earlier; `frameworks` limits the full probe
        and the benchmarks to these framework ids (default: every installed one).
        """
        super().__init__()
        self.kb = kb
        self.kb_error: str | None = None
        self.packs = packs
        self.frameworks = frameworks
        self.live = live
        self.probe_fast: ProbeReport | None = probe
        self.probe_fast_error: str | None = None
        self.probe: ProbeReport | None = probe
        self.bench: BenchReport | None = bench
        self.loaded_report: Report | None = report
        self.loaded_profile: Profile | None = None
        self.report: Report | None = None  # the latest assessment of the walk's answers
        self.report_profile: Profile | None = None  # the profile `report` was scored under
        self.evidence_run = 0  # number of the latest run: a stale run's end must not end the new one
        self.evidence_active = False
        self.settings_path = settings_path
        self.settings: Settings = load_settings(settings_path)
        if not resume:
            self.settings.walk = Walk()
        else:
            for note in self.settings.notes:  # a value dropped or converted from the saved walk: said once
                self.notify(note, severity="warning", timeout=15, markup=False)
        self.walk: Walk = self.settings.walk  # another walk only while an opened report is shown beside it
        if resume and live and probe is None and bench is None and self.walk.step != "welcome":
            # A resumed walk keeps the evidence measured last time (the user can measure again).
            self.probe, self.bench = core.saved_evidence(*load_evidence(), file="<evidence kept from the last session>")
        self.walk.profile = prefill_environment(self.walk.profile, self.probe)
        self.own_evidence: tuple[ProbeReport | None, BenchReport | None] = (self.probe, self.bench)
        self.shown: dict[str, StepScreen] = {}  # steps shown so far (each registers itself on mount)

    def save(self) -> None:
        """Persist the theme, last profile and the walk (so it can be resumed)."""
        try:
            save_settings(self.settings, self.settings_path)
        except OSError as exc:
            self.notify(f"could not save settings: {exc}", severity="warning")

    # --- answers ---------------------------------------------------------------------------------

    def profile(self, weights: dict[str, float] | None = None) -> Profile:
        """The walk's `Profile` (what the core scores); `weights` gives every weight, for what-if."""
        return self.walk.profile if weights is None else whatif_profile(self.walk.profile, weights)

    def effective_weights(self) -> dict[str, float]:
        """The user's weights; criteria they never touched take the scenario's weight (or all equal)."""
        return effective_weights(self.walk.profile, self.kb)

    def set_profile(self, profile: Profile) -> None:
        """The walk's answers are now `profile` (a loaded profile file, or a report's), kept as it was read."""
        self.walk.profile = profile
        self.save()

    # --- knowledge -------------------------------------------------------------------------------

    # Off the UI thread: loading and validating the YAML takes longer than painting the welcome.
    @work(thread=True, group="kb", exit_on_error=False)
    def _load_kb(self) -> None:
        try:
            kb = core.load_kb(self.packs)
        except Exception as exc:  # noqa: BLE001 - a broken pack must show on screen, not crash the app
            self.call_from_thread(self._kb_failed, str(exc))
            return
        self.call_from_thread(self._kb_loaded, kb)

    def _kb_failed(self, error: str) -> None:
        self.kb_error = f"the knowledge base could not be loaded: {error}"
        self._refresh_screens()

    def _kb_loaded(self, kb: Any) -> None:
        self.kb = kb
        self._refresh_screens()

    def _refresh_screens(self) -> None:
        """Redraw every screen already shown (the others draw themselves when first shown)."""
        for screen in self.shown.values():
            screen.refresh_from_app()

    # --- evidence --------------------------------------------------------------------------------

    @work(thread=True, group="fast-probe", exclusive=True, exit_on_error=False)
    def fast_probe(self) -> None:
        """Probe the machine without importing frameworks, for the welcome screen."""
        worker = get_current_worker()
        try:
            data = core.run_probe(fast=True, cancel=worker.cancelled_event, kb=self.kb)
        except Exception as exc:  # noqa: BLE001 - shown on the welcome screen as the reason
            self.post_message(FastProbeFailed(str(exc)))
            return
        self.post_message(FastProbeDone(data))

    def evidence_running(self) -> bool:
        """Whether a probe/benchmark run is in progress (started on the Evidence step)."""
        return self.evidence_active

    # The evidence goes where every screen can read it; then each shown screen is told (`_relay`).

    def on_evidence_run_ended(self, message: EvidenceRunEnded) -> None:
        """A run ended: the app is idle unless it was a stale run (a newer one is going on)."""
        if message.run == self.evidence_run:
            self.evidence_active = False
        self._relay(message)

    def on_fast_probe_done(self, message: FastProbeDone) -> None:
        """The fast probe: the welcome screen's machine summary and the prefilled answers read it."""
        self.probe_fast = message.data
        self.probe_fast_error = None
        self._relay(message)

    def on_fast_probe_failed(self, message: FastProbeFailed) -> None:
        """Why there is no fast probe, shown on the welcome screen."""
        self.probe_fast_error = message.error
        self._relay(message)

    def on_probe_done(self, message: ProbeDone) -> None:
        """The full probe (also a cancelled one: what was probed before the cancel)."""
        self.probe = message.data
        self.loaded_profile = None  # new evidence: an opened report no longer answers the walk
        self._keep_evidence()
        self._relay(message)

    def on_bench_done(self, message: BenchDone) -> None:
        """The bench run, kept unless a cancelled re-run measured less than the complete run before it."""
        kept = kept_bench(self.bench, message.data, cancelled=message.cancelled)
        if kept is not self.bench:
            self.bench = kept
            self.loaded_profile = None
            self._keep_evidence()
        self._relay(message)

    @on(ProbeFailed)
    @on(BenchFailed)
    def _evidence_failed(self, message: ProbeFailed | BenchFailed) -> None:
        """A failed probe or benchmark run changes no evidence: only the screens say why."""
        self._relay(message)

    def _relay(self, message: EvidenceNews) -> None:
        for screen in self.shown.values():
            screen.post_message(message.copy())

    def _keep_evidence(self) -> None:
        if not self.live:
            return  # recorded evidence was injected: nothing of this session to keep
        try:
            save_evidence(core.evidence_json(self.probe), core.evidence_json(self.bench))
        except OSError as exc:
            self.notify(f"could not keep the evidence for next time: {exc}", severity="warning")

    def run_evidence(self, screen: Screen[Any], preset: str, frameworks: list[str] | None) -> Worker[None]:
        """Run the full probe then the benchmark preset; events go to `screen`. A new run cancels an old one."""
        self.evidence_run += 1
        self.evidence_active = True
        return self._evidence_run(self.evidence_run, screen, preset, frameworks)

    # exclusive: a new run cancels a stale one (its cancel event stops the core's children);
    # exit_on_error=False: a failed run is shown on its screen and the app stays up.
    @work(thread=True, group="evidence", exclusive=True, exit_on_error=False, name="evidence")
    def _evidence_run(self, run: int, screen: Screen[Any], preset: str, frameworks: list[str] | None) -> None:
        try:
            self._evidence(screen, preset, frameworks)
        finally:
            # However the run ended (done, cancelled, failed), every screen learns that it did.
            self.post_message(EvidenceRunEnded(run, cancelled=get_current_worker().is_cancelled))

    def _evidence(self, screen: Screen[Any], preset: str, frameworks: list[str] | None) -> None:
        worker = get_current_worker()
        cancel = worker.cancelled_event  # a threading.Event, set by Worker.cancel(): handed to the core

        def probe_event(event: ProbeEvent) -> None:
            screen.post_message(ProbeProgress(event))

        def bench_event(event: BenchEvent) -> None:
            screen.post_message(BenchProgress(event))

        got_probe: list[ProbeReport] = []

        def probe_done(probe: ProbeReport) -> None:
            got_probe.append(probe)
            self.post_message(ProbeDone(probe, cancelled=cancel.is_set()))

        # One child per framework: it probes, then runs its benchmarks (TensorFlow's import alone is seconds).
        try:
            bench = core.probe_and_bench(
                preset=None if preset == "none" else preset, frameworks=frameworks, on_probe_event=probe_event,
                on_bench_event=bench_event, on_probe_done=probe_done, cancel=cancel, kb=self.kb,
                limit=self.frameworks,
            )
        except Exception as exc:  # noqa: BLE001 - the reason is shown on the evidence screen
            self.post_message(BenchFailed(str(exc)) if got_probe else ProbeFailed(str(exc)))
            return
        if bench is not None:
            self.post_message(BenchDone(bench, cancelled=cancel.is_set()))
        elif not cancel.is_set() and preset != "none":
            self.post_message(BenchFailed("no framework is installed and importable here"))

    # --- reports ---------------------------------------------------------------------------------

    def open_report(self, report: Report) -> None:
        """Show a saved report beside the user's walk: its evidence, answers and recommendation fill a walk of
        its own, never saved over theirs (`resume_own_walk` goes back to it); nothing is measured."""
        if self.walk is self.settings.walk:
            self.own_evidence = (self.probe, self.bench)
            if self.settings.walk.step != "welcome" or self.settings.walk.profile.scenario:
                self.notify("your own walk is kept: Resume on the Welcome step goes back to it")
        self.walk = Walk(step=self.walk.step)
        self.loaded_report = report
        self.probe, self.bench = core.report_evidence(report)
        try:
            profile = core.report_profile(report)
        except Exception as exc:  # noqa: BLE001 - the report still shows; only what-if lacks its answers
            self.notify(f"the report's profile could not be read back: {exc}", severity="warning")
        else:
            self.set_profile(profile)
        self.walk.chosen = core.recommended_framework(report)
        self.save()
        self.loaded_profile = self.profile()
        self._refresh_screens()

    def viewing_report(self) -> bool:
        """Whether an opened report's walk is shown, beside the user's own (saved) walk."""
        return self.walk is not self.settings.walk

    def resume_own_walk(self) -> None:
        """Leave an opened report: the user's own walk and evidence are shown again, as they left them."""
        if not self.viewing_report():
            return
        self.walk = self.settings.walk
        self.probe, self.bench = self.own_evidence
        self.loaded_report = self.loaded_profile = None
        self.report = self.report_profile = None
        self._refresh_screens()

    def showing_loaded_report(self) -> bool:
        """Whether the opened report still answers the walk (no answer changed since it was opened)."""
        return self.loaded_report is not None and core.same_profile(self.profile(), self.loaded_profile)

    def keep_report(self, report: Report, profile: Profile) -> None:
        """Remember the assessment of the walk's own profile (not a what-if) for onboarding and export."""
        self.report, self.report_profile = report, profile

    def current_report(self) -> Report:
        """The report for the walk's answers now: the opened one, the latest, or scored afresh (call off the UI)."""
        if self.showing_loaded_report() and self.loaded_report is not None:
            return self.loaded_report
        profile = self.profile()
        if self.report is not None and core.same_profile(self.report_profile, profile):
            return self.report
        if self.kb is None:
            raise core.Unavailable(self.kb_error or "the knowledge base is still loading")
        return core.assess(self.kb, profile, self.probe or self.probe_fast, self.bench)

    def chosen_framework(self, report: Report | None) -> str | None:
        """The chosen framework: the user's pick on Results, else the one `report` recommends."""
        if self.walk.chosen:
            return self.walk.chosen
        return core.recommended_framework(report) if report else None

    def walk_checklist(self, framework: str) -> tuple[Any, str | None]:
        """The checklist for `framework` under the walk's answers, and the framework the team comes from."""
        others = [f for f in current(self.walk.profile) if f != framework]
        origin = others[0] if others else None
        # The team's hardware as the advice reads it: what it must run on, then its fleet.
        profile = self.profile()
        required = constraint_list(profile, "must_run_on")
        team_hw = list(dict.fromkeys(str(h) for h in [*required, *(e.hardware for e in profile.fleet)]))
        checklist = core.checklist(
            self.kb,
            framework,
            origin,
            self.probe or self.probe_fast,
            constraint_list(profile, "must_deploy_to"),
            team_hw,
        )
        return checklist, origin

    def scoring_input(self, weights: dict[str, float] | None = None) -> ScoringInput:
        """What a scoring reads (the walk's profile or a what-if of it, the evidence), taken on the UI thread."""
        return ScoringInput(self.profile(weights), self.probe or self.probe_fast, self.bench)

    def score(self, given: ScoringInput, draws: int | None = None) -> AssessmentReady:
        """Score `given` (call off the UI thread): the report, or why there is none; `draws` lowers the
        Monte-Carlo draws for previews."""
        if self.kb is None:
            return AssessmentReady(None, self.kb_error or "the knowledge base is still loading")
        try:
            report = core.assess(self.kb, given.profile, given.probe, given.bench, draws=draws)
        except Exception as exc:  # noqa: BLE001 - shown as "not available: why" on the screen
            return AssessmentReady(None, str(exc))
        return AssessmentReady(report, profile=given.profile)
