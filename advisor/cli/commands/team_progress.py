"""`team decide`'s progress bar on stderr (only on a terminal): members scored, then each member's fragility scan."""

from __future__ import annotations

from advisor.cli.progress import StderrBar
from advisor.team.progress import DecideProgress, DecideStep

_WHAT = {DecideStep.MEMBERS: "scoring each member's own answer", DecideStep.FRAGILITY: "how fragile, per member"}


class DecideBar(StderrBar):
    """The shared stderr bar, fed from `decide`'s events."""

    def on_event(self, event: DecideProgress) -> None:
        """One more member done in one step."""
        self.update(done=event.done, total=event.total, description=_WHAT[event.step])
