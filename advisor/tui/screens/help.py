"""The help screen (`?`): what the screen in front does, and every key that works there."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from advisor.tui.data.state import STEP_TITLES, STEPS

WALK = " → ".join(f"{i} {STEP_TITLES[s]}" for i, s in enumerate(STEPS, 1))


class HelpScreen(ModalScreen[None]):
    """Generated from the bindings of the screen it covers and of the app, plus the screen's HELP text."""

    BINDINGS = [Binding("escape,question_mark", "dismiss", "Close")]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        """Title, the screen's text, the key table."""
        title = getattr(self.under, "step", "")
        keys = Table(box=None, padding=(0, 2), show_header=True, header_style="bold")
        keys.add_column("key")
        keys.add_column("action")
        seen: set[str] = set()
        for source in (self.under, self.app):
            for binding in getattr(source, "BINDINGS", []):
                if not isinstance(binding, Binding) or binding.system:
                    continue
                key = binding.key_display or binding.key
                if key in seen or not binding.description or binding.action.startswith("goto"):
                    continue
                seen.add(key)
                keys.add_row(key, binding.description)
        for key, what in (
            ("1-7", "Jump to that step of the walk"),
            ("escape", "Leave a text field (letters are typed there; ctrl+q still quits)"),
            ("ctrl+q", "Quit"),
            ("ctrl+p", "Command palette: every action"),
            ("tab / shift+tab", "Move between controls"),
            ("enter / space", "Choose, tick, press"),
        ):
            keys.add_row(key, what)
        with VerticalScroll(id="help"):
            yield Static(f"[b]Help — {STEP_TITLES.get(title, title)}[/b]\n\n{getattr(self.under, 'HELP', '')}")
            yield Static(f"\n[b]The walk[/b]: {WALK}\n")
            yield Static(keys)
            yield Static("\nEsc or ? closes this help.", classes="dim")
