"""Step 1: what the tool does, the machine at a glance, and where to start from."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Input, Static

from advisor.tui import core
from advisor.tui.messages import FastProbeDone, FastProbeFailed, ProbeDone, ProbeFailed
from advisor.tui.screens.base import StepScreen
from advisor.tui.widgets.body import Body
from advisor.tui.widgets.field import TextField
from advisor.tui.widgets.machine import machine_table

INTRO = (
    "fwadvisor helps your team choose a deep-learning framework from evidence: a knowledge base of "
    "verified facts, a probe of this machine, and benchmarks run here through each installed framework. "
    "Walk the steps with [b]n[/b] (next) and [b]b[/b] (back); [b]?[/b] shows every key."
)


class WelcomeScreen(StepScreen):
    """Intro, machine summary (fast probe), and start fresh / resume / load a profile / open a report."""

    step = "welcome"
    HELP = (
        "Start fresh or resume where you stopped. A saved profile (YAML) fills in your answers; a saved "
        "report (JSON, from `fwadvisor report --json`) is shown on the Results step without re-measuring."
    )

    def body(self) -> ComposeResult:
        """Intro, machine, the choices."""
        with Body(id="welcome-body"):
            yield Static(INTRO, id="intro")
            yield Static("Machine at a glance: probing…", id="machine", classes="panel")
            with Horizontal(classes="buttons"):
                yield Button("Start fresh", id="fresh", variant="primary")
                yield Button("Resume", id="resume")
            with Horizontal(classes="path-row"):
                yield TextField(placeholder="profile.yaml to load", id="profile-path", compact=True)
                yield Button("Load profile", id="load-profile", compact=True)
            with Horizontal(classes="path-row"):
                yield TextField(placeholder="report.json to open", id="report-path", compact=True)
                yield Button("Open report", id="open-report", compact=True)
            yield Static("", id="welcome-status")

    def on_mount(self) -> None:
        """The last profile's path, once: refreshes later must never rewrite what the user is typing."""
        if self.advisor.settings.last_profile:
            self.query_one("#profile-path", Input).value = self.advisor.settings.last_profile
        self.refresh_from_app()
        resume = self.query_one("#resume", Button)
        # The harmless choice has the focus: Start fresh asks first, but Resume loses nothing.
        (self.query_one("#fresh", Button) if resume.disabled else resume).focus()

    def on_screen_resume(self) -> None:
        """Shown again: evidence may have arrived meanwhile."""
        self.refresh_from_app()

    def refresh_from_app(self) -> None:
        """Redraw from the app's state."""
        app = self.advisor
        machine = self.query_one("#machine", Static)
        probe = app.probe or app.probe_fast
        if probe is not None:
            names = {fid: fw.name for fid, fw in app.kb.frameworks.items()} if app.kb is not None else {}
            machine.update(machine_table(probe, names))
        elif app.probe_fast_error:
            machine.update(self.not_available("Machine summary", app.probe_fast_error))
        elif not app.live:
            machine.update("Machine summary: not available (probing is off in this session)")
        own = app.settings.walk  # the user's walk, also while an opened report is shown beside it
        resume = self.query_one("#resume", Button)
        resume.disabled = own.step == "welcome" and not own.profile.scenario
        resume.label = "Resume my walk" if app.viewing_report() else "Resume"

    @on(FastProbeDone)
    @on(FastProbeFailed)
    @on(ProbeDone)
    @on(ProbeFailed)
    def _probed(self) -> None:
        """A probe finished (or failed): the machine summary shows it, or why there is none."""
        if self.is_mounted:
            self.refresh_from_app()

    @on(Button.Pressed, "#fresh")
    def _fresh(self) -> None:
        self.advisor.action_start_fresh()

    @on(Button.Pressed, "#resume")
    def _resume(self) -> None:
        app = self.advisor
        app.resume_own_walk()  # from an opened report: back to the user's own answers and evidence
        app.goto(app.walk.step if app.walk.step != "welcome" else "scenario")

    @on(Button.Pressed, "#load-profile")
    def _load_profile(self) -> None:
        app = self.advisor
        status = self.query_one("#welcome-status", Static)
        path = self.query_one("#profile-path", Input).value.strip()
        if not path:
            status.update("Type the path of a profile (YAML) first.")
            return
        if app.kb is None:
            status.update(self.kb_missing("Loading a profile") or "")
            return
        try:
            profile = core.load_checked_profile(path, app.kb)
        except Exception as exc:  # noqa: BLE001 - a bad profile is one line on screen; the answers stay
            status.update(Text.assemble(("Could not load the profile: ", "bold"), str(exc)))
            return
        app.set_profile(profile)
        app.settings.last_profile = path
        app.save()
        status.update(Text(f"Loaded {path}."))
        app.goto("scenario")

    @on(Button.Pressed, "#open-report")
    def _open_report(self) -> None:
        app = self.advisor
        status = self.query_one("#welcome-status", Static)
        path = self.query_one("#report-path", Input).value.strip()
        if not path:
            status.update("Type the path of a saved report (JSON) first.")
            return
        try:
            report = core.load_report(path)
        except Exception as exc:  # noqa: BLE001 - a bad report is one line on screen
            status.update(Text.assemble(("Could not open the report: ", "bold"), str(exc)))
            return
        app.open_report(report)
        app.goto("results")

    # Enter in a path field does what its button does.
    @on(Input.Submitted, "#profile-path")
    def _profile_path_submitted(self) -> None:
        self.query_one("#load-profile", Button).press()

    @on(Input.Submitted, "#report-path")
    def _report_path_submitted(self) -> None:
        self.query_one("#open-report", Button).press()

    def action_focus_profile(self) -> None:
        """Palette: jump to the profile path."""
        self.query_one("#profile-path", Input).focus()

    def action_focus_report(self) -> None:
        """Palette: jump to the report path."""
        self.query_one("#report-path", Input).focus()
