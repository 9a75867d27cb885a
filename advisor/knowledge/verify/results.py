"""What `kb verify` found, as typed results: drift, stale facts, what could not be checked here, and timings."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from advisor.knowledge.verify.pip import redact

#: Documented in docs/knowledge.md ("kb verify --json").
JSON_SCHEMA_ID = "fwadvisor.kb_verify/2"


class DriftKind(StrEnum):
    """Which claim the index contradicts."""

    LATEST = "latest"
    REQUIRES_PYTHON = "requires_python"
    WHEEL = "wheel"
    INSTALL = "install"
    INSTALL_LINE = "install_line"


@dataclass(frozen=True)
class Drift:
    """One claim the index contradicts."""

    kind: DriftKind
    subject: str  # a distribution name or an install line
    target: str | None  # platform/python tag, where the claim is about one
    claimed: str
    found: str
    command: str  # a pip command that shows it (URLs redacted)

    def to_json(self) -> dict[str, Any]:
        """JSON form; an install line's own index URL is shown as `<url>`."""
        return {"kind": self.kind.value, "subject": redact(self.subject), "target": self.target,
                "claimed": self.claimed, "found": self.found, "command": redact(self.command)}


@dataclass(frozen=True)
class Stale:
    """A release of a distribution the framework depends on, published after facts that predate it."""

    distribution: str
    version: str
    released: dt.date
    facts: tuple[str, ...]  # where the facts are (`as_of` of `scores.performance`, `packages.jax`, ...)

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"distribution": self.distribution, "version": self.version, "released": self.released.isoformat(),
                "facts": list(self.facts)}


class Unchecked(StrEnum):
    """Why something could not be checked from this machine."""

    VENDOR_INDEX = "vendor_index"  # the line's own index is not reachable through pip here
    NOT_ON_INDEX = "not_on_index"  # no configured index has the distribution
    NO_CLAIM = "no_claim"  # an install line of the knowledge with no claim about what it installs
    NO_DATE = "no_date"  # the index gives no upload dates: currency cannot be judged
    NO_REQUIRES_PYTHON = "no_requires_python"  # the index gives no Requires-Python (a find-links folder)
    CANNOT_READ = "cannot_read"  # pip could not read a wheel's metadata, or the line is not a pip command


@dataclass(frozen=True)
class NotChecked:
    """One thing `kb verify` could not check here, with why (a code) and what (a short detail)."""

    reason: Unchecked
    subject: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"reason": self.reason.value, "subject": redact(self.subject), "detail": redact(self.detail)}


@dataclass(frozen=True)
class CheckTime:
    """One question to pip: what it was, how long it took, whether the answer came from the cache."""

    question: str
    seconds: float
    cached: bool

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"question": redact(self.question), "seconds": round(self.seconds, 3), "cached": self.cached}


@dataclass
class FrameworkVerdict:
    """What `kb verify` found for one framework."""

    framework: str
    checks: int = 0
    drift: list[Drift] = field(default_factory=list)
    stale: list[Stale] = field(default_factory=list)
    not_checked: list[NotChecked] = field(default_factory=list)
    times: list[CheckTime] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form (see docs/knowledge.md)."""
        return {"checks": self.checks, "drift": [d.to_json() for d in self.drift],
                "stale": [s.to_json() for s in self.stale], "not_checked": [n.to_json() for n in self.not_checked],
                "times": [t.to_json() for t in self.times]}


@dataclass(frozen=True)
class VerifyResult:
    """Drift for every framework with package claims."""

    pip_version: str
    frameworks: dict[str, FrameworkVerdict]
    seconds: float = 0.0

    @property
    def drift_count(self) -> int:
        """How many claims drifted, and how many releases postdate facts, over all frameworks."""
        return sum(len(v.drift) + len(v.stale) for v in self.frameworks.values())

    def to_json(self) -> dict[str, Any]:
        """The documented `kb verify --json` shape."""
        return {
            "schema": JSON_SCHEMA_ID,
            "status": "drift" if self.drift_count else "ok",
            "pip_version": self.pip_version,
            "seconds": round(self.seconds, 3),
            "checks": sum(v.checks for v in self.frameworks.values()),
            "drift": self.drift_count,
            "frameworks": {k: v.to_json() for k, v in self.frameworks.items()},
        }


@dataclass(frozen=True)
class VerifyEvent:
    """Progress: one question to pip answered (`done` of `total`)."""

    question: str
    done: int
    total: int
    seconds: float
    cached: bool
