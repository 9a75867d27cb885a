"""The App: holds the walk's answers and the evidence, moves between screens, runs the core in workers.

It is deliberately small: each screen owns its widgets and bindings; the app owns the state that
several screens share (answers, evidence, the latest assessment) and the calls into the core
(`advisor.tui.core`). Evidence can be injected (recorded probe/bench JSON) so tests never probe.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.theme import Theme
from textual.widgets import Input, TextArea
from textual.worker import Worker, get_current_worker

from advisor.tui import core
from advisor.tui.commands import AdvisorCommands
from advisor.tui.data.state import (
    STEPS,
    Settings,
    Walk,
    load_evidence,
    load_settings,
    save_evidence,
    save_settings,
)
from advisor.tui.messages import AssessmentReady, EvidenceDone, EvidenceEvent
from advisor.tui.screens import screen_factory


class AdvisorApp(App[None]):
    """fwadvisor's interactive advisor."""

    CSS_PATH = "app.tcss"
    TITLE = "fwadvisor"
    SUB_TITLE = "choose a deep-learning framework from evidence"
    COMMANDS = App.COMMANDS | {AdvisorCommands}
    # Installed by name, built (and their modules imported) when first shown; kept while the app runs,
    # so going back to a step finds it as it was, and a benchmark started there goes on meanwhile.
    SCREENS = {step: screen_factory(step) for step in STEPS}
    # Priority, so that lists and tables cannot swallow the walk's keys; `check_action` hands the
    # letters back to text fields, where they are typing.
    BINDINGS = [
        Binding("q", "quit", "Quit", priority=True),
        Binding("question_mark", "help", "Help", key_display="?", priority=True),
        Binding("b", "back", "Back", priority=True),
        Binding("n", "forward", "Next", priority=True),
    ]
    TYPING_KEYS_ACTIONS = frozenset({"quit", "help", "back", "forward"})

    def __init__(
        self,
        *,
        kb: Any = None,
        probe: dict[str, Any] | None = None,
        bench: dict[str, Any] | None = None,
        report: dict[str, Any] | None = None,
        live: bool = True,
        packs: tuple[str, ...] = (),
        settings_path: Path | None = None,
        resume: bool = True,
        frameworks: tuple[str, ...] | None = None,
    ) -> None:
        """Create the app.

        `kb`, `probe` (full probe JSON), `bench` (bench JSON) and `report` may be injected, e.g.
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
        self.probe_fast: dict[str, Any] | None = probe
        self.probe_fast_error: str | None = None
        self.probe: dict[str, Any] | None = probe
        self.bench: dict[str, Any] | None = bench
        self.loaded_report: dict[str, Any] | None = report
        self.loaded_answers: dict[str, Any] | None = None
        self.report: dict[str, Any] | None = None  # the latest assessment of the walk's answers
        self.settings_path = settings_path
        self.settings: Settings = load_settings(settings_path)
        if not resume:
            self.settings.walk = Walk()
        self.walk: Walk = self.settings.walk
        if resume and live and probe is None and bench is None and self.walk.step != "welcome":
            # A resumed walk keeps the evidence measured last time (the user can measure again).
            self.probe, self.bench = load_evidence()
        self.shown: dict[str, Screen[Any]] = {}  # steps shown so far (each registers itself on mount)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Letter bindings stand aside while a text field has focus (so `n` types an n there)."""
        if action in self.TYPING_KEYS_ACTIONS and isinstance(self.focused, Input | TextArea):
            return False
        if action in ("back", "forward", "help") and isinstance(self.screen, ModalScreen):
            return False  # a dialog (help, pairwise questions) is open: its own keys apply
        return True

    # --- start and stop --------------------------------------------------------------------------

    def on_mount(self) -> None:
        """Restore the theme, open the step where the user stopped, then start the background work."""
        if self.settings.theme and self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.push_screen(self.walk.step if self.walk.step in STEPS else "welcome")
        # After the first paint, so that these threads do not compete with it for the interpreter.
        self.call_after_refresh(self._start_background)

    def _start_background(self) -> None:
        if self.kb is None:
            # Off the UI thread: loading and validating the YAML takes longer than painting the welcome.
            self.run_worker(self._load_kb, thread=True, group="kb", exit_on_error=False)
        if self.probe_fast is None and self.live:
            self.fast_probe()

    def _remember_theme(self, theme: Theme) -> None:
        self.settings.theme = theme.name
        self.save()

    def save(self) -> None:
        """Persist the theme, last profile and the walk (so it can be resumed)."""
        try:
            save_settings(self.settings, self.settings_path)
        except OSError as exc:
            self.notify(f"could not save settings: {exc}", severity="warning")

    async def action_quit(self) -> None:
        """Quit: cancel every worker, end every child process (torchrun's workers too), then exit."""
        self.save()
        self.workers.cancel_all()  # first, so that no worker starts another child once they are ended
        # Off the UI thread: ending children waits up to about a second for them to go.
        with contextlib.suppress(core.Unavailable):  # no evidence module, no children: quitting must still work
            await asyncio.to_thread(core.stop_children)
        self.exit()

    # --- navigation ------------------------------------------------------------------------------

    def goto(self, step: str) -> None:
        """Show one step of the walk."""
        if step not in STEPS:
            return
        self.walk.step = step
        self.save()
        self.switch_screen(step)

    def action_goto(self, step: str) -> None:
        """Action form of `goto` (palette and bindings)."""
        self.goto(step)

    def _step_index(self) -> int:
        name = getattr(self.screen, "step", None)
        return STEPS.index(name) if name in STEPS else 0

    def action_back(self) -> None:
        """The previous step."""
        i = self._step_index()
        if i > 0:
            self.goto(STEPS[i - 1])

    def action_forward(self) -> None:
        """The next step."""
        i = self._step_index()
        if i < len(STEPS) - 1:
            self.goto(STEPS[i + 1])

    def action_help(self) -> None:
        """The help screen for the screen in front."""
        from advisor.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_start_fresh(self) -> None:
        """Forget the answers and evidence-derived assessment; keep the evidence itself."""
        self.walk = self.settings.walk = Walk()
        self.report = None
        self.save()
        self._refresh_screens()
        self.goto("scenario")

    # --- answers ---------------------------------------------------------------------------------

    def answers(self, weights: dict[str, float] | None = None) -> dict[str, Any]:
        """The walk's answers in the profile's shape (what the core scores); `weights` overrides for what-if."""
        w = self.walk
        return {
            "scenario": w.scenario,
            "current_frameworks": list(w.current_frameworks),
            "experience": w.experience,
            "codebase_size": w.codebase_size,
            "weights": dict(weights if weights is not None else self.effective_weights()),
            "constraints": {
                "must_run_on": list(w.must_run_on),
                "must_deploy_to": list(w.must_deploy_to),
                "exclude": list(w.exclude),
            },
        }

    def effective_weights(self) -> dict[str, float]:
        """The user's weights; criteria they never touched take the scenario's weight (or 10: all equal)."""
        if self.kb is None:
            return dict(self.walk.weights)
        preset = self.kb.scenarios.get(self.walk.scenario) if self.walk.scenario else None
        out = {}
        for cid in self.kb.criteria:
            if cid in self.walk.weights:
                out[cid] = self.walk.weights[cid]
            elif preset is not None:
                out[cid] = float(preset.weights.get(cid, 0.0))
            else:
                out[cid] = 10.0
        return out

    # --- workers: the core runs off the UI thread ------------------------------------------------

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
            refresh = getattr(screen, "refresh_from_app", None)
            if callable(refresh):
                refresh()

    def fast_probe(self) -> Worker[None]:
        """Probe the machine without importing frameworks, for the welcome screen."""
        return self.run_worker(self._fast_probe, thread=True, group="fast-probe", exclusive=True, exit_on_error=False)

    def _fast_probe(self) -> None:
        worker = get_current_worker()
        try:
            data = core.run_probe(fast=True, cancel=worker.cancelled_event, kb=self.kb)
        except Exception as exc:  # noqa: BLE001 - shown on the welcome screen as the reason
            self.post_message(EvidenceDone("fast-probe", None, str(exc)))
            return
        self.post_message(EvidenceDone("fast-probe", data))

    def on_evidence_done(self, message: EvidenceDone) -> None:
        """Keep the evidence where every screen can read it, and tell the screens."""
        if message.kind == "fast-probe":
            if message.data is not None:
                self.probe_fast = message.data
                self.probe_fast_error = None
            else:
                self.probe_fast_error = message.error
        elif message.kind == "probe" and message.data is not None:
            self.probe = message.data
            self._keep_evidence()
        elif message.kind == "bench" and message.data is not None:
            self.bench = message.data
            self._keep_evidence()
        for screen in self.shown.values():
            screen.post_message(EvidenceDone(message.kind, message.data, message.error, cancelled=message.cancelled))

    def _keep_evidence(self) -> None:
        if not self.live:
            return  # recorded evidence was injected: nothing of this session to keep
        try:
            save_evidence(self.probe, self.bench)
        except OSError as exc:
            self.notify(f"could not keep the evidence for next time: {exc}", severity="warning")

    def open_report(self, report: dict[str, Any]) -> None:
        """Show a saved report: its evidence and answers become the walk's (nothing is measured)."""
        self.loaded_report = report
        self.probe = report.get("probe")
        self.bench = report.get("benchmarks")
        try:
            answers = core.report_answers(report)
        except Exception as exc:  # noqa: BLE001 - the report still shows; only what-if lacks its answers
            self.notify(f"the report's profile could not be read back: {exc}", severity="warning")
        else:
            self.set_answers(answers)
        self.loaded_answers = self.answers()
        self._refresh_screens()

    def showing_loaded_report(self) -> bool:
        """Whether the opened report still answers the walk (no answer changed since it was opened)."""
        return self.loaded_report is not None and self.answers() == self.loaded_answers

    def set_answers(self, answers: dict[str, Any]) -> None:
        """Fill the walk from answers (a loaded profile or report)."""
        w = self.walk
        w.scenario = answers["scenario"]
        w.current_frameworks = answers["current_frameworks"]
        w.experience = answers["experience"]
        w.codebase_size = answers["codebase_size"]
        w.weights = answers["weights"]
        w.must_run_on = answers["constraints"]["must_run_on"]
        w.must_deploy_to = answers["constraints"]["must_deploy_to"]
        w.exclude = answers["constraints"]["exclude"]
        self.save()

    def run_evidence(self, screen: Screen[Any], preset: str, frameworks: list[str] | None) -> Worker[None]:
        """Run the full probe then the benchmark preset; events go to `screen`. A new run cancels an old one."""
        return self.run_worker(
            lambda: self._evidence(screen, preset, frameworks),
            thread=True,
            group="evidence",
            exclusive=True,  # a new run cancels a stale one (its cancel event stops the core's children)
            exit_on_error=False,  # a failed run is shown on its screen; the app stays up
            name="evidence",
        )

    def _evidence(self, screen: Screen[Any], preset: str, frameworks: list[str] | None) -> None:
        worker = get_current_worker()
        cancel = worker.cancelled_event  # a threading.Event, set by Worker.cancel(): handed to the core

        def probe_event(event: Any) -> None:
            screen.post_message(EvidenceEvent("probe", core.event_json(event)))

        def bench_event(event: Any) -> None:
            screen.post_message(EvidenceEvent("bench", core.event_json(event)))

        probe: dict[str, Any] | None = None
        try:
            probe = core.run_probe(
                fast=False, on_event=probe_event, cancel=cancel, kb=self.kb, frameworks=self.frameworks
            )
        except Exception as exc:  # noqa: BLE001 - the reason is shown; benchmarks can still run
            self.post_message(EvidenceDone("probe", None, str(exc)))
        else:
            self.post_message(EvidenceDone("probe", probe, cancelled=cancel.is_set()))
        if cancel.is_set() or preset == "none":
            return
        frameworks = frameworks or core.runnable_frameworks(probe or self.probe or self.probe_fast)
        if not frameworks:
            self.post_message(EvidenceDone("bench", None, "no framework is installed and importable here"))
            return
        try:
            bench = core.run_bench(preset=preset, frameworks=frameworks, on_event=bench_event, cancel=cancel)
        except Exception as exc:  # noqa: BLE001 - shown on the evidence screen
            self.post_message(EvidenceDone("bench", None, str(exc)))
            return
        self.post_message(EvidenceDone("bench", bench, cancelled=cancel.is_set()))

    def assess(
        self,
        screen: Screen[Any],
        weights: dict[str, float] | None = None,
        group: str = "assess",
        draws: int | None = None,
    ) -> None:
        """Score the frameworks in a worker; the result goes to `screen` as `AssessmentReady`.

        A newer request from the same screen cancels an older one (exclusive), so fast key presses
        never queue up stale scorings; `draws` lowers the Monte-Carlo draws for previews.
        """
        answers = self.answers(weights)
        probe = self.probe or self.probe_fast
        bench = self.bench

        def work() -> None:
            if self.kb is None:
                screen.post_message(AssessmentReady(None, self.kb_error or "the knowledge base is still loading"))
                return
            try:
                report = core.assess(self.kb, answers, probe, bench, draws=draws)
            except Exception as exc:  # noqa: BLE001 - shown as "not available: why" on the screen
                screen.post_message(AssessmentReady(None, str(exc)))
                return
            if not get_current_worker().is_cancelled:  # a newer request superseded this one
                screen.post_message(AssessmentReady(report))

        self.run_worker(work, thread=True, group=f"{group}-{id(screen)}", exclusive=True, exit_on_error=False)
