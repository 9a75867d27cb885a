"""Explanations: every total is the sum of per-criterion contributions, each with its rationale, sources and figures.

Exactness: each contribution `w_j * s_j` is rounded down onto a binary grid of 2**-40 (an error below
1e-12). Sums of a few hundred such numbers below 8 are exact in IEEE double precision, so the
contributions add up to the total *exactly*, in any order and with any summation routine
(left-to-right, `math.fsum`, Python 3.12's compensated `sum`, NumPy's pairwise sum).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from advisor.scoring.evidence import Measured
from advisor.scoring.result import Result

#: Contributions are multiples of this power of two (see the module docstring).
GRID = 2.0**-40


def on_grid(value: float) -> float:
    """`value` rounded down to a multiple of `GRID` (exact in binary floating point).

    Down, not to the nearest: a total of contributions then never exceeds the true weighted sum, so a
    framework scoring 5 on every weighted criterion totals at most 5 (the report's bound), not 5 + 1e-12.
    """
    return math.floor(value / GRID) * GRID


def blend(knowledge: float, measured: Measured) -> float:
    """(1 - w) * knowledge + w * measured, or the knowledge score when nothing was measured."""
    if measured.score is None or measured.weight <= 0:
        return knowledge
    return (1.0 - measured.weight) * knowledge + measured.weight * measured.score


class EvidenceSource(StrEnum):
    """Where a contribution's non-knowledge figure comes from: only `benchmark` was measured on this machine."""

    BENCHMARK = "benchmark"  # benchmark figures measured here
    PROBE = "probe"  # a hardware route the framework's own probe used here
    PROFILE = "profile"  # the team's situation (code to move, serving stack in production)
    KNOWLEDGE = "knowledge"  # a route's support status read from the knowledge base, not seen here

    @property
    def label(self) -> str:
        """How a breakdown names the figure."""
        return {"benchmark": "measured", "probe": "probed here", "profile": "your setup"}.get(
            self.value, "route support"
        )


def evidence_label(source: str | None) -> str:
    """The label of a contribution's non-knowledge figure, from its `evidence_source` code."""
    try:
        return EvidenceSource(source).label if source else "measured"
    except ValueError:  # a report from an older version: its figures were always called measured
        return "measured"


class Status(StrEnum):
    """Whether a framework was measured on this machine."""

    MEASURED = "measured"
    DISCARDED = "discarded"  # benchmarked, but on a machine too busy to trust the figures
    INSTALLED = "installed"  # installed, not benchmarked
    NOT_INSTALLED = "not_installed"
    NOT_PROBED = "not_probed"  # no probe, or no adapter probes it


class PartCode(StrEnum):
    """A named part of a criterion's knowledge score, where the score is composed of several facts."""

    STEWARDSHIP = "stewardship"  # governance: who controls the roadmap, licence, maintenance signals
    PORTABILITY = "portability"  # governance on known hardware: routes to other vendors' accelerators

    @property
    def label(self) -> str:
        """How a breakdown names the part."""
        return {"stewardship": "stewardship", "portability": "portability beyond the team's vendors"}[self.value]


class Part(Result):
    """One part of a composed knowledge score (governance on the team's hardware: stewardship, portability)."""

    code: str = Field(description="stewardship: the governance fact; portability: routes to other vendors' hardware")
    score: float = Field(ge=0, le=5)
    share: float = Field(ge=0, le=1, description="share of the criterion's knowledge score")
    figures: list[dict[str, Any]] = Field(default_factory=list)


def parts_text(parts: Sequence[Any]) -> str:
    """`stewardship 3.00 x 50% + portability ... 1.25 x 50%` from parts (objects or the report's JSON form)."""
    out = []
    for p in parts:
        code, score, share = (p.code, p.score, p.share) if hasattr(p, "code") else (p["code"], p["score"], p["share"])
        try:
            name = PartCode(code).label
        except ValueError:  # a part from a newer version: its code is its name
            name = str(code)
        out.append(f"{name} {float(score):.2f} x {100 * float(share):.0f}%")
    return " + ".join(out)


class Contribution(Result):
    """One criterion's share of a total (contributions add up exactly to the total)."""

    criterion: str
    name: str
    weight: float = Field(ge=0, le=1)  # normalised weight (all weights sum to 1)
    score: float = Field(ge=0, le=5)  # the 0-5 score used: knowledge blended with measurement
    knowledge_score: float = Field(ge=0, le=5)
    measured_score: float | None = Field(default=None, ge=0, le=5)
    evidence_weight: float = Field(ge=0, le=1)  # share of `score` that comes from `measured_score`
    contribution: float = Field(ge=0, le=5)  # weight * score, on the exact grid
    rationale: str
    sources: list[str]
    as_of: str
    evidence: str  # what was measured, or why nothing was
    figures: list[dict[str, Any]]
    evidence_source: Literal["benchmark", "probe", "profile", "knowledge"] | None = Field(
        default=None,
        description="where measured_score comes from: benchmark figures measured here, a hardware route the "
        "framework's own probe used here, the team's profile, or a route's support status in the knowledge base",
    )
    parts: list[Part] = Field(
        default_factory=list, description="the knowledge score's parts where it is composed; empty: one fact"
    )


class NoteCode(StrEnum):
    """What a ranking note is about, so programs decide on the code and never on the sentence.

    `name` is the criterion's name (report 1.4); the words are written from the params at the edge
    (`advisor.scoring.note_words` for the four findings that replace or cap a score, which write the evidence
    text too). A report before 1.7 kept those four's words as `detail`.
    """

    GPU_FLOOR = "gpu_floor"  # params: a FloorFinding's (the oldest NVIDIA GPU or the OS against the CUDA route)
    PYTHON_VERSION = "python_version"  # params: name, python, needs or newest (fleet.python_words)
    SERVING_GAP = "serving_gap"  # params: serving, stack, framework (a serving stack that does not take its models)
    NO_MIGRATION_ENTRY = "no_migration_entry"  # params: source, target (no migration entry from that framework)
    # params: criterion, name, parts (each accelerator's figure), general (the score replaced), breadth (0/1)
    ON_TEAM_HARDWARE = "on_team_hardware"
    HARDWARE_CAP = "hardware_cap"  # params: criterion, name, cap, routes (the routes whose support caps it)
    DOMAINS = "domains"  # params: criterion, name, domains (each with its score), general (the score replaced)
    PORTABILITY = "portability"  # params: criterion, name, vendors (the team's), score, reach (each other vendor's)


@dataclass(frozen=True)
class Note:
    """One note on a framework's ranking: its code and the parameters its words are written from."""

    code: NoteCode
    params: dict[str, str | int | float] = field(default_factory=dict)


@dataclass
class Breakdown:
    """A framework's total and where it comes from."""

    framework: str
    name: str
    total: float
    contributions: list[Contribution]
    status: str  # the status in words, rendered from `status_code`
    installed: bool | None
    notes: list[Note] = field(default_factory=list)
    status_code: Status = Status.NOT_PROBED


def total_of(contributions: Sequence[float]) -> float:
    """The total of grid-aligned contributions (exact, so the summation order does not matter)."""
    return math.fsum(contributions)


def display_parts(parts: Sequence[float], digits: int = 2) -> tuple[list[float], float]:
    """Round `parts` for display so that the rounded parts add up to the rounded total (largest remainder).

    Hamilton's method: round every part down, then give the remaining units to the parts with the
    largest remainders. Returns (rounded parts, rounded total).
    """
    scale = 10**digits
    total_units = round(math.fsum(parts) * scale)
    floors = [math.floor(p * scale) for p in parts]
    rest = total_units - sum(floors)
    order = sorted(range(len(parts)), key=lambda i: -(parts[i] * scale - floors[i]))
    if rest >= 0:
        for i in order[:rest]:
            floors[i] += 1
    else:  # only reachable through negative parts, which scores never have; keep the sum right anyway
        for i in order[::-1][:-rest]:
            floors[i] -= 1
    return [f / scale for f in floors], total_units / scale
