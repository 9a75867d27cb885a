"""`team decide`'s progress bar on stderr (only on a terminal): members scored, then each member's fragility scan."""

from __future__ import annotations

import sys
from typing import Any

from advisor.team.progress import DecideProgress, DecideStep

_WHAT = {DecideStep.MEMBERS: "scoring each member's own answer", DecideStep.FRAGILITY: "how fragile, per member"}


class DecideBar:
    """A Rich progress bar (as `kb verify` draws one), transient, fed from `decide`'s events."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> DecideBar:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            from advisor.cli.output import console

            self.bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=console(stderr=True), transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def on_event(self, event: DecideProgress) -> None:
        """One more member done in one step."""
        if self.bar is not None:
            self.bar.update(self.task, description=_WHAT[event.step], total=event.total, completed=event.done)
