"""Messages the app's workers and screens exchange (posted from worker threads, which is thread-safe)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

from textual.message import Message

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchEvent, BenchReport
    from advisor.evidence.probe import ProbeEvent, ProbeReport
    from advisor.profile import Profile
    from advisor.report import Report


class ProbeProgress(Message):
    """One progress event of the full probe: a section, or a framework's start, event or end."""

    def __init__(self, event: ProbeEvent) -> None:
        super().__init__()
        self.event = event


class BenchProgress(Message):
    """One progress event of the benchmark run: a start, a figure, a note or a failure."""

    def __init__(self, event: BenchEvent) -> None:
        super().__init__()
        self.event = event


class EvidenceNews(Message, bubble=False):
    """Evidence arrived, failed, or a run ended: the app keeps it, then relays a copy to every shown screen.

    None of these bubbles (each subclass says so again: Textual's default is to bubble): a copy bubbling
    back up to the app would be relayed again, forever.
    """

    def copy(self) -> Self:
        """A fresh message with the same fields, for one more screen (a posted message is used up)."""
        return dataclasses.replace(self)  # type: ignore[type-var]  # every subclass is a dataclass


@dataclass
class FastProbeDone(EvidenceNews, bubble=False):
    """The fast probe (no framework imported) finished, for the welcome screen."""

    data: ProbeReport


@dataclass
class FastProbeFailed(EvidenceNews, bubble=False):
    """The fast probe failed: `error` says why."""

    error: str


@dataclass
class ProbeDone(EvidenceNews, bubble=False):
    """The full probe finished (`cancelled`: stopped early; `data` holds what was probed before)."""

    data: ProbeReport
    cancelled: bool = False


@dataclass
class ProbeFailed(EvidenceNews, bubble=False):
    """The full probe failed: `error` says why (the benchmarks can still run)."""

    error: str


@dataclass
class BenchDone(EvidenceNews, bubble=False):
    """The benchmark run finished (`cancelled`: stopped early; `data` holds what was measured before)."""

    data: BenchReport
    cancelled: bool = False


@dataclass
class BenchFailed(EvidenceNews, bubble=False):
    """The benchmark run could not run or failed: `error` says why."""

    error: str


@dataclass
class EvidenceRunEnded(EvidenceNews, bubble=False):
    """Run number `run` of the probe and benchmarks ended, however: done, cancelled or failed."""

    run: int
    cancelled: bool = False


class AssessmentReady(Message):
    """The core scored the frameworks under the current profile (`report` is None when it could not)."""

    def __init__(
        self, report: Report | None, error: str | None = None, *, profile: Profile | None = None
    ) -> None:
        super().__init__()
        self.report = report
        self.error = error
        self.profile = profile  # what was scored (the walk's profile, or a what-if)


class WeightChanged(Message):
    """The user changed one criterion's weight (from a weight row)."""

    def __init__(self, criterion: str, weight: float) -> None:
        super().__init__()
        self.criterion = criterion
        self.weight = weight


class KnowledgeLoaded(Message, bubble=False):
    """The knowledge base finished loading in its worker (or failed: the app holds the reason)."""
