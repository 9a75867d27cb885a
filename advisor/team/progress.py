"""How far a team decision has got: one event per member scored and per member's fragility scan."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class DecideStep(StrEnum):
    """The two parts of `decide` whose time grows with the team."""

    MEMBERS = "members"  # each member's own assessment
    FRAGILITY = "fragility"  # how far each member would have to move to change the answer


@dataclass(frozen=True)
class DecideProgress:
    """`done` of `total` members finished in `step`."""

    step: DecideStep
    done: int
    total: int


OnProgress = Callable[[DecideProgress], None]
