"""The report's JSON shape as pydantic models; the committed JSON Schema is generated from them."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.report_evidence import AllReduceShape, BenchShape, ProbeShape
from advisor.scoring.evidence import BENCH_FULL_AT, BENCH_WEIGHT, HARDWARE_WEIGHT
from advisor.scoring.explain import NoteCode
from advisor.scoring.setup_evidence import SERVING_WEIGHT

#: Minor versions add optional fields only: a reader of 1.1 reads 1.0 reports unchanged.
SCHEMA_VERSION: Literal["1.2"] = "1.2"
READABLE_VERSIONS = ("1.0", "1.1", "1.2")
SCHEMA_ID = "https://fwadvisor.invalid/schemas/report-1.2.json"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Tool(_M):
    """The advisor that wrote the report."""

    name: Literal["fwadvisor"] = "fwadvisor"
    version: str


class Pack(_M):
    """A knowledge pack that was loaded."""

    name: str
    version: str
    builtin: bool
    digest: str


class Knowledge(_M):
    """The knowledge base used."""

    version: str
    packs: list[Pack]


class Machine(_M):
    """The machine the evidence comes from (host name only with --identify)."""

    hostname: str | None = None
    os: str | None = None
    arch: str | None = None
    python: str | None = None
    cpu: str | None = None
    logical_cores: int | None = None
    usable_cores: int | None = None
    memory_total_bytes: int | None = None
    gpus: list[str] = Field(default_factory=list)
    hardware: dict[str, str] = Field(default_factory=dict, description="hardware ids found -> description")


class Ahp(_M):
    """Weights derived from pairwise judgements."""

    lambda_max: float
    consistency_index: float
    consistency_ratio: float | None
    missing_pairs: int


class ProfileSection(_M):
    """The profile as written and as resolved against the knowledge base."""

    source: str
    scenario: str | None
    weight_source: Literal["profile", "scenario", "scenario+profile", "pairwise", "equal"]
    weights: dict[str, float]
    normalized_weights: dict[str, float]
    constraints: dict[str, list[str] | bool]
    policies: list[str]
    frameworks: list[str]
    as_written: dict[str, Any]
    ahp: Ahp | None = None
    weight_scale: str | None = Field(default=None, description="the scale weights are read on (docs/scoring.md)")
    effective_weights: dict[str, EffectiveWeightModel] | None = None


class EffectiveWeightModel(_M):
    """One criterion's weight on the 0-5 scale, its share of the total and who set it."""

    value: float = Field(ge=0)
    share: float = Field(ge=0, le=1)
    source: Literal["profile", "scenario", "scenario+profile", "pairwise", "equal"]


class PartModel(_M):
    """One part of a composed knowledge score (governance on the team's hardware: stewardship, portability)."""

    code: str = Field(description="stewardship: the governance fact; portability: routes to other vendors' hardware")
    score: float = Field(ge=0, le=5)
    share: float = Field(ge=0, le=1, description="share of the criterion's knowledge score")
    figures: list[dict[str, Any]] = Field(default_factory=list)


class ContributionModel(_M):
    """One criterion's share of a total (contributions add up exactly to the total)."""

    criterion: str
    name: str
    weight: float = Field(ge=0, le=1)
    score: float = Field(ge=0, le=5)
    knowledge_score: float = Field(ge=0, le=5)
    measured_score: float | None = Field(default=None, ge=0, le=5)
    evidence_weight: float = Field(ge=0, le=1)
    contribution: float = Field(ge=0, le=5)
    rationale: str
    sources: list[str]
    as_of: str
    evidence: str
    figures: list[dict[str, Any]]
    evidence_source: Literal["benchmark", "probe", "profile", "knowledge"] | None = Field(
        default=None,
        description="where measured_score comes from: benchmark figures measured here, a hardware route the "
        "framework's own probe used here, the team's profile, or a route's support status in the knowledge base",
    )
    parts: list[PartModel] = Field(
        default_factory=list, description="the knowledge score's parts where it is composed; empty: one fact"
    )


class NoteCodeModel(_M):
    """The code of one ranking note (advisor.scoring.explain.NoteCode) and its parameters."""

    code: NoteCode
    params: dict[str, str | float] = Field(default_factory=dict)


class RankingEntry(_M):
    """A framework's place, total and explanation."""

    rank: int = Field(ge=1)
    framework: str
    name: str
    total: float = Field(ge=0, le=5)
    topsis: float = Field(ge=0, le=1)
    topsis_rank: int = Field(ge=1)
    status: str
    installed: bool | None
    notes: list[str]
    contributions: list[ContributionModel]
    status_code: Literal["measured", "discarded", "installed", "not_installed", "not_probed"] | None = Field(
        default=None, description="measured: benchmarked here and used; discarded: benchmarked on a busy machine"
    )
    note_codes: list[NoteCodeModel] | None = Field(
        default=None, description="per note, in the same order: its code and parameters (what programs read)"
    )


class ThresholdModel(_M):
    """The smallest change of one weight that changes the winner."""

    criterion: str
    current_weight: float
    threshold_weight: float
    change: float
    raw_factor: float | None
    new_winner: str
    value_now: float | None = Field(default=None, description="the weight now, on the profile's 0-5 scale")
    value: float | None = Field(
        default=None, description="the weight to set (others unchanged) for the winner to change; past the tie"
    )


class AdviceChangeModel(_M):
    """The one weight, on the 0-5 scale, nearest to its value now at which the advice (stay/move/choose) changes."""

    criterion: str
    value_now: float
    value: float = Field(description="a multiple of 0.01 past the tie: typed in What-if, it reproduces the change")
    framework: str = Field(description="the framework advised at `value`")
    decision: Literal["choose", "stay", "move"]


class MonteCarlo(_M):
    """The ranking under random weight perturbations."""

    draws: int
    spread: float
    seed: int
    win_share: dict[str, float]
    mean_rank: dict[str, float]
    gap_quantiles: dict[str, float]


class SensitivitySection(_M):
    """How stable the winner is."""

    winner: str
    runner_up: str | None
    gap: float
    verdict: Literal["clear", "likely", "tie", "single"]
    tied_with: list[str]
    smallest_change: ThresholdModel | None
    thresholds: list[ThresholdModel]
    no_threshold: list[str]
    advice_change: AdviceChangeModel | None = None
    monte_carlo: MonteCarlo
    method: dict[str, float]


class ExclusionModel(_M):
    """A framework left out, and why."""

    framework: str
    kind: Literal["constraint", "not_considered"]
    reasons: list[str]


class WarningModel(_M):
    """Something to know before trusting the result."""

    code: str
    message: str
    framework: str | None = None
    fact: str | None = None  # stale_fact: the fact's id (e.g. "jax.scores.performance")
    as_of: str | None = None  # stale_fact: the fact's as-of date (ISO)


class BreakEvenModel(_M):
    """Stay or move: the incumbent against the best challenger, and where the move would pay (docs/scoring.md)."""

    incumbent: str
    challenger: str
    benefit_incumbent: float = Field(description="weighted score without the migration criterion (0-5)")
    benefit_challenger: float
    gain: float = Field(description="benefit_challenger - benefit_incumbent")
    capacity_share: float | None = Field(description="the move's share of the team's capacity over the horizon")
    value_move: float | None = Field(description="(1 - capacity_share) * benefit_challenger")
    lead: float = Field(description="the ranking's lead of the challenger (difference of the totals)")
    margin: float
    pays: bool
    break_even_share: float | None
    break_even_effort_engineer_months: float | None
    break_even_kloc: float | None
    cost: dict[str, Any] | None = Field(description="the move's effort range and capacity share")
    statement: str
    value_stay: float | None = Field(
        default=None,
        description="(1 - f_I) * benefit_incumbent, where settling on the incumbent means porting the team's "
        "code in its other frameworks (f_I: that port's capacity share); null when nothing else must move",
    )
    stay_cost: dict[str, Any] | None = Field(default=None, description="that port's effort range and capacity share")


class InstallStepModel(_M):
    """One install line of the advice, and whom it is for (`advisor.scoring.install_advice.InstallStep`)."""

    where: Literal["here", "team"] = Field(description="this machine, or the team's hardware (must_run_on, fleet)")
    hardware: str
    line: str = Field(description="the install line; empty where the knowledge base knows none for that hardware")
    from_knowledge: bool = Field(description="false: the package name alone, no line known for that backend")
    status: Literal["supported", "preview", "community", "deprecated", "none", "unknown"]


class RecommendationSection(_M):
    """The advice."""

    framework: str | None
    name: str | None
    verdict: Literal["clear", "likely", "tie", "single", "none"]
    tied_with: list[str]
    summary: str
    next_steps: list[str]
    decision: Literal["stay", "move", "choose"] = Field(
        default="choose", description="stay with the incumbent, move to another framework, or choose (greenfield)"
    )
    break_even: BreakEvenModel | None = None
    audience: Literal["profile", "team"] = Field(
        default="profile", description="whom the advice addresses: one profile (report) or a team (team decide)"
    )
    install: list[InstallStepModel] = Field(
        default_factory=list, description="install lines: the team's hardware first where this machine lacks it"
    )


class Method(_M):
    """How the ranking was computed (see docs/scoring.md)."""

    primary: Literal["weighted_sum"] = "weighted_sum"
    cross_check: Literal["topsis"] = "topsis"
    bench_weight: float = BENCH_WEIGHT
    bench_full_at: int = BENCH_FULL_AT
    hardware_weight: float = HARDWARE_WEIGHT
    serving_weight: float = SERVING_WEIGHT
    reference: str = "docs/scoring.md"


class Report(_M):
    """A full fwadvisor report."""

    model_config = ConfigDict(extra="forbid", title="fwadvisor report")

    schema_version: Literal["1.0", "1.1", "1.2"] = SCHEMA_VERSION
    generated_at: str
    tool: Tool
    knowledge: Knowledge
    machine: Machine
    probe: ProbeShape | None = Field(description="the probe's JSON (schema fwadvisor.probe/1)")
    benchmarks: BenchShape | None = Field(description="the benchmark JSON (fwadvisor.bench/1); null if skipped")
    allreduce: AllReduceShape | None = Field(
        default=None, description="a fleet node's cross-node all-reduce (fwadvisor.collective/1, since 1.2); null "
        "when not run (one node, --no-allreduce, --no-bench, or not a fleet node)")
    profile: ProfileSection
    method: Method
    ranking: list[RankingEntry]
    sensitivity: SensitivitySection | None
    exclusions: list[ExclusionModel]
    warnings: list[WarningModel]
    recommendation: RecommendationSection
    migration: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="per framework the team would move to: effort range, capacity share, score"
    )


def report_schema() -> dict[str, Any]:
    """The JSON Schema of the report, as generated from the models (what the committed file must equal)."""
    schema = Report.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(report_schema(), indent=2, sort_keys=True) + "\n"
