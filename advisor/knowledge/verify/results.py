"""What `kb verify` found, as typed results: drift, stale facts, what could not be checked here, and timings.

The results are pydantic dataclasses: the `--json` document and its published schema are generated from them
(`document`, `schema_text`), so the shape cannot drift from the objects the checks build.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import field
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, computed_field, field_serializer
from pydantic.dataclasses import dataclass

from advisor.knowledge.verify.pip import redact

#: Documented in docs/knowledge.md ("kb verify --json"); the schema is docs/kb-verify.schema.json.
JSON_SCHEMA_ID = "fwadvisor.kb_verify/3"


class DriftKind(StrEnum):
    """Which claim the index contradicts."""

    LATEST = "latest"
    REQUIRES_PYTHON = "requires_python"
    WHEEL = "wheel"
    INSTALL = "install"
    INSTALL_LINE = "install_line"
    SOURCE_DATE = "source_date"  # a `pkg:pypi/NAME@VERSION` source's date is not that release's


@dataclass(frozen=True)
class Drift:
    """One claim the index contradicts."""

    kind: DriftKind
    subject: str  # a distribution name or an install line
    target: str | None  # platform/python tag, where the claim is about one
    claimed: str
    found: str
    command: str  # a pip command that shows it

    @field_serializer("subject", "command")
    def _redacted(self, value: str) -> str:
        # An install line's own index URL is shown as `<url>`: no index host is written into output.
        return redact(value)


@dataclass(frozen=True)
class Stale:
    """A release of a distribution the framework depends on, published after facts that predate it."""

    distribution: str
    version: str
    released: dt.date
    facts: tuple[str, ...]  # where the facts are (`as_of` of `scores.performance`, `packages.jax`, ...)


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

    @field_serializer("subject", "detail")
    def _redacted(self, value: str) -> str:
        return redact(value)


@dataclass(frozen=True)
class CheckTime:
    """One question to pip: what it was, how long it took, whether the answer came from the cache."""

    question: str
    seconds: float
    cached: bool

    @field_serializer("question")
    def _redacted(self, value: str) -> str:
        return redact(value)

    @field_serializer("seconds")
    def _rounded(self, value: float) -> float:
        return round(value, 3)


@dataclass
class FrameworkVerdict:
    """What `kb verify` found for one framework."""

    # Not in the JSON: the document keys each verdict by its framework.
    framework: Annotated[str, Field(exclude=True)]
    checks: int = 0
    drift: list[Drift] = field(default_factory=list)
    stale: list[Stale] = field(default_factory=list)
    not_checked: list[NotChecked] = field(default_factory=list)
    times: list[CheckTime] = field(default_factory=list)


@dataclass
class SourceDates:
    """`--source-dates`: package sources whose date is not their release's (`target`: where they are cited)."""

    checks: int = 0
    drift: list[Drift] = field(default_factory=list)
    not_checked: list[NotChecked] = field(default_factory=list)


@dataclass(frozen=True)
class VerifyResult:
    """Drift for every framework with package claims: the `kb verify --json` document."""

    pip_version: str
    frameworks: dict[str, FrameworkVerdict]
    seconds: float = 0.0
    source_dates: SourceDates | None = None  # None: not asked (`--source-dates`)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def schema(self) -> Literal["fwadvisor.kb_verify/3"]:
        """The document's schema id."""
        return "fwadvisor.kb_verify/3"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> Literal["ok", "drift"]:
        """`drift` when any claim drifted or any release postdates facts."""
        return "drift" if self.drift_count else "ok"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def checks(self) -> int:
        """How many questions were checked, over all frameworks (and package sources' dates, if asked)."""
        sources = self.source_dates.checks if self.source_dates else 0
        return sources + sum(v.checks for v in self.frameworks.values())

    @computed_field  # type: ignore[prop-decorator]
    @property
    def drift(self) -> int:
        """How many claims drifted, and how many releases postdate facts, over all frameworks."""
        return self.drift_count

    @property
    def drift_count(self) -> int:
        """How many claims drifted, and how many releases postdate facts, over all frameworks."""
        sources = len(self.source_dates.drift) if self.source_dates else 0
        return sources + sum(len(v.drift) + len(v.stale) for v in self.frameworks.values())

    @field_serializer("seconds")
    def _rounded(self, value: float) -> float:
        return round(value, 3)


_ADAPTER: TypeAdapter[VerifyResult] = TypeAdapter(VerifyResult)


def document(result: VerifyResult) -> dict[str, Any]:
    """The documented `kb verify --json` document of `result` (plain JSON types)."""
    data: dict[str, Any] = _ADAPTER.dump_python(result, mode="json")
    return data


def schema_text() -> str:
    """The JSON Schema of the `--json` document, generated from the models (docs/kb-verify.schema.json)."""
    schema = _ADAPTER.json_schema(mode="serialization")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": JSON_SCHEMA_ID, **schema}
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


@dataclass(frozen=True)
class VerifyEvent:
    """Progress: one question to pip answered (`done` of `total`)."""

    question: str
    done: int
    total: int
    seconds: float
    cached: bool
