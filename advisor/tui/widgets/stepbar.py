"""The walk's steps across the top, with the current one highlighted (click one to go there)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from advisor.tui.data.state import STEP_TITLES, STEPS


class StepBar(Horizontal):
    """One label per step; the current step has the `-current` class."""

    def __init__(self, current: str) -> None:
        super().__init__(classes="stepbar")
        self.current = current

    def compose(self) -> ComposeResult:
        """A numbered label per step."""
        for i, step in enumerate(STEPS, 1):
            label = Label(f"{i} {STEP_TITLES[step]}", id=f"step-{step}", classes="step")
            if step == self.current:
                label.add_class("-current")
            yield label

    def on_resize(self, event: events.Resize) -> None:
        """Too narrow for every name (under ~74 columns): the other steps show their number only, never a cut name."""
        full = sum(len(f"{i} {STEP_TITLES[s]}") + 1 for i, s in enumerate(STEPS, 1))
        short = full > event.size.width
        for i, step in enumerate(STEPS, 1):
            name = f"{i} {STEP_TITLES[step]}" if step == self.current or not short else str(i)
            self.query_one(f"#step-{step}", Label).update(name)

    def on_click(self, event: object) -> None:
        """Clicking a step goes there."""
        widget = getattr(event, "widget", None)
        wid = getattr(widget, "id", None) or ""
        if wid.startswith("step-"):
            self.app.call_later(self.app.run_action, f"goto('{wid[5:]}')")
