"""Messages the app's workers and screens exchange (posted from worker threads, which is thread-safe)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from advisor.profile import Profile
    from advisor.report import Report


class EvidenceEvent(Message):
    """One progress event from the probe or the benchmark run (`kind` is "probe" or "bench")."""

    def __init__(self, kind: str, event: dict[str, Any]) -> None:
        super().__init__()
        self.kind = kind
        self.event = event


class EvidenceDone(Message, bubble=False):
    """A probe or benchmark run finished: its JSON, or why there is none (`error`).

    It does not bubble: the app relays it to every screen, and a copy bubbling back up to the
    app would be relayed again, forever.
    """

    def __init__(
        self, kind: str, data: dict[str, Any] | None, error: str | None = None, *, cancelled: bool = False
    ) -> None:
        super().__init__()
        self.kind = kind
        self.data = data
        self.error = error
        self.cancelled = cancelled  # the run was cancelled; `data` holds what was measured before


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
