"""The App: the walk's navigation and global keys over the shared state and workers of `AdvisorState`.

It is deliberately small: each screen owns its widgets and bindings; `advisor.tui.work` holds
the state several screens share and the calls into the core.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

from platformdirs import user_downloads_path
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen
from textual.theme import Theme
from textual.widgets import Input, TextArea

from advisor.tui import core
from advisor.tui.commands import AdvisorCommands
from advisor.tui.data.answers import prefill_environment
from advisor.tui.data.state import STEPS, Walk
from advisor.tui.plain import plain
from advisor.tui.screens import screen_factory
from advisor.tui.work import AdvisorState


class AdvisorApp(AdvisorState):
    """fwadvisor's interactive advisor."""

    CSS_PATH = "app.tcss"
    _walk_shown = False  # set once the first step is shown: the too-small cover goes over a step, never under
    TITLE = "fwadvisor"
    SUB_TITLE = "choose a deep-learning framework from evidence"
    COMMANDS = AdvisorState.COMMANDS | {AdvisorCommands}
    # Installed by name, built (and their modules imported) when first shown; kept while the app runs,
    # so going back to a step finds it as it was, and a benchmark started there goes on meanwhile.
    SCREENS = {step: screen_factory(step) for step in STEPS}
    # Priority, so that lists and tables cannot swallow the walk's keys; `check_action` hands the
    # letters and digits back to text fields, where they are typing. ctrl+q is not a letter: it
    # quits from everywhere, text fields included.
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("q", "quit_key", "Quit", priority=True),
        Binding("question_mark", "help", "Help", key_display="?", priority=True),
        Binding("b", "walk_back", "Back", priority=True),
        Binding("n", "walk_forward", "Next", priority=True),
        *[
            Binding(str(i), f"goto('{step}')", f"Step {i}", show=False, priority=True)
            for i, step in enumerate(STEPS, 1)
        ],
        Binding("escape", "leave_field", "Leave field", key_display="esc"),  # shown only in a text field
    ]
    TYPING_KEYS_ACTIONS = frozenset({"quit_key", "help", "walk_back", "walk_forward", "goto"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Letter and digit bindings stand aside while a text field has focus (so `n` types an n there)."""
        typing = isinstance(self.focused, Input | TextArea)
        if action in self.TYPING_KEYS_ACTIONS and typing:
            return False
        if action == "leave_field":
            return typing
        if action in ("walk_back", "walk_forward", "help", "goto") and isinstance(self.screen, ModalScreen):
            return False  # a dialog (help, pairwise questions) is open: its own keys apply
        return True

    # --- start and stop --------------------------------------------------------------------------

    def on_mount(self) -> None:
        """Restore the theme, open the step where the user stopped, then start the background work."""
        if self.settings.theme and self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.push_screen(self.walk.step if self.walk.step in STEPS else "welcome")
        self._walk_shown = True
        self._fit(self.size)
        # After the first paint, so that these threads do not compete with it for the interpreter.
        self.call_after_refresh(self._start_background)

    def on_resize(self, event: events.Resize) -> None:
        """Below 76 columns the header keeps the tool's name only: its subtitle would be cut."""
        self.sub_title = "" if event.size.width < 76 else type(self).SUB_TITLE
        self._fit(event.size)

    def _fit(self, size: Size) -> None:
        """Below the size the steps need, say how large to make the terminal (over the walk, which stays as it was)."""
        from advisor.tui.screens.too_small import TooSmallScreen, too_small

        if not self._walk_shown:
            return  # a resize before the first step is shown: on_mount fits, over that step
        cover = next((s for s in self.screen_stack if isinstance(s, TooSmallScreen)), None)
        if too_small(size):
            if cover is None:
                self.push_screen(TooSmallScreen())
            else:
                cover.show(size)
        elif cover is not None and self.screen is cover:
            self.pop_screen()

    def _start_background(self) -> None:
        if self.kb is None:
            self._load_kb()
        if self.probe_fast is None and self.live:
            self.fast_probe()

    def _remember_theme(self, theme: Theme) -> None:
        self.settings.theme = theme.name
        self.save()

    async def action_quit(self) -> None:
        """Quit: cancel every worker, end every child process (torchrun's workers too), then exit."""
        self.save()
        self.workers.cancel_all()  # first, so that no worker starts another child once they are ended
        # Off the UI thread: ending children waits up to about a second for them to go.
        with contextlib.suppress(core.Unavailable):  # no evidence module, no children: quitting must still work
            await asyncio.to_thread(core.stop_children)
        # Textual saves a screenshot in a thread that reports back through the app's loop; a quit right after
        # `ctrl+s` would leave that (non-daemon) thread waiting forever, and the process with it. Let it finish.
        for _ in range(40):
            if not any("save_file_thread" in t.name for t in threading.enumerate()):
                break
            await asyncio.sleep(0.05)
        self.exit()

    async def action_quit_key(self) -> None:
        """`q`: the same quit, as a letter that stands aside in text fields."""
        await self.action_quit()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification of this app is plain text: they carry paths and errors from outside, never markup.

        The one place for them all: `Widget.notify` (a screen's) forwards here, with `markup=True` by default.
        """
        text = plain(message).plain
        super().notify(text, title=plain(title).plain, severity=severity, timeout=timeout, markup=False)

    def action_leave_field(self) -> None:
        """Escape in a text field: leave it, so that the walk's letter keys work again."""
        self.screen.set_focus(None)

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Screenshots go to the Downloads folder, or to the current folder where there is none (a fresh account)."""
        if path is None:
            downloads = user_downloads_path()
            path = str(downloads if downloads.is_dir() else Path.cwd())
        return super().deliver_screenshot(filename, path, time_format)

    # --- navigation ------------------------------------------------------------------------------

    def goto(self, step: str) -> None:
        """Show one step of the walk."""
        if step not in STEPS:
            return
        self.walk.step = step
        self.save()
        self.switch_screen(step)

    def action_goto(self, step: str) -> None:
        """Action form of `goto` (palette, digits and the step bar)."""
        if getattr(self.screen, "step", None) != step:
            self.goto(step)

    def _step_index(self) -> int:
        name = getattr(self.screen, "step", None)
        return STEPS.index(name) if name in STEPS else 0

    def action_walk_back(self) -> None:
        """The previous step."""
        i = self._step_index()
        if i > 0:
            self.goto(STEPS[i - 1])

    def action_walk_forward(self) -> None:
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
        """Forget the answers (after asking, when there are any); the evidence itself is kept."""
        from advisor.tui.screens.confirm import ConfirmScreen

        if self.settings.walk == self._fresh_walk(step=self.settings.walk.step):
            self._start_fresh()  # nothing answered yet (the OS prefilled from the probe is no answer): no question
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._start_fresh()

        self.push_screen(
            ConfirmScreen("Start a fresh walk?", "Your answers, weights and choice are forgotten (evidence is kept)."),
            answered,
        )

    def _fresh_walk(self, step: str = "welcome") -> Walk:
        """A walk with nothing answered: what the probe tells (the OS) is prefilled, as on a first run."""
        walk = Walk(step=step)
        walk.profile = prefill_environment(walk.profile, self.probe or self.probe_fast)
        return walk

    def _start_fresh(self) -> None:
        self.walk = self.settings.walk = self._fresh_walk()
        self.report = self.report_profile = None
        self.loaded_report = self.loaded_profile = None  # an opened report is left too
        self.save()
        self._refresh_screens()
        self.goto("scenario")
