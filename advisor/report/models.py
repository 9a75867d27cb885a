"""The report's JSON shape as pydantic models; the committed JSON Schema is generated from them."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from advisor.profile.resolve import EffectiveWeight, WeightSource
from advisor.report.words import break_even_statement, exclusion_cause_words, note_words, warning_words
from advisor.report_evidence import AllReduceShape, BenchShape, ProbeShape
from advisor.scoring.advice import Recommendation
from advisor.scoring.advice_words import headline_words, step_words
from advisor.scoring.constraints import Exclusion, ExclusionCause, ExclusionCode
from advisor.scoring.decision import BreakEven
from advisor.scoring.engine import AssessmentWarning
from advisor.scoring.evidence import BENCH_FULL_AT, BENCH_WEIGHT, HARDWARE_WEIGHT
from advisor.scoring.explain import Contribution, NoteCode
from advisor.scoring.migration import MoveCost
from advisor.scoring.sensitivity import Sensitivity
from advisor.scoring.setup_evidence import SERVING_WEIGHT
from advisor.scoring.steps import Headline, Step, StepCode

#: Minor versions add optional fields only: a reader of 1.1 reads 1.0 reports unchanged.
SCHEMA_VERSION: Literal["1.7"] = "1.7"
READABLE_VERSIONS = ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7")
SCHEMA_ID = "https://fwadvisor.invalid/schemas/report-1.7.json"


#: Reports whose ranking notes are read as saved (their note parameters do not hold the words).
_NOTES_AS_SAVED = ("1.0", "1.1", "1.2", "1.3")


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
    weight_source: WeightSource
    weights: dict[str, float]
    normalized_weights: dict[str, float]
    constraints: dict[str, list[str] | bool]
    policies: list[str]
    frameworks: list[str]
    as_written: dict[str, Any]
    ahp: Ahp | None = None
    weight_scale: str | None = Field(default=None, description="the scale weights are read on (docs/scoring.md)")
    effective_weights: dict[str, EffectiveWeight] | None = None


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
    notes: list[str] = Field(
        default_factory=list, description="the notes in words, written from note_codes for a reader of the file "
        "(programs decide on note_codes; before 1.4 these words were saved as scoring wrote them)",
    )
    contributions: list[Contribution]
    status_code: Literal["measured", "discarded", "installed", "not_installed", "not_probed"] | None = Field(
        default=None, description="measured: benchmarked here and used; discarded: benchmarked on a busy machine"
    )
    note_codes: list[NoteCodeModel] | None = Field(
        default=None, description="per note, in the same order: its code and parameters (what programs read)"
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


@contextlib.contextmanager
def params_fit(what: str) -> Iterator[None]:
    """Words written from a file's codes: parameters that do not fit their code are bad input, never a crash.

    A ValueError raised in a validator becomes the loader's one line naming the file and the field.
    """
    try:
        yield
    except (KeyError, IndexError, TypeError, ValueError, AssertionError) as exc:
        raise ValueError(f"{what}'s params do not fit its code ({type(exc).__name__}: {exc})") from None


class ReportWarning(AssessmentWarning):
    """A warning as the report file carries it: its code and parameters, and the words written from them."""

    message: str = Field(
        default="",
        description="the words, written from code and params for a reader of the file (programs decide on the "
        "code; since 1.3; a 1.2 report's warnings have these words only)",
    )

    @model_validator(mode="after")
    def _words(self) -> ReportWarning:
        if not self.message:  # written at this edge, once, by the one renderer
            with params_fit("the warning"):
                self.message = warning_words(self)
        return self


def worded_warnings(warnings: Sequence[AssessmentWarning]) -> list[ReportWarning]:
    """The assessment's warnings as the report carries them (with their words)."""
    return [ReportWarning.model_validate(w.model_dump()) for w in warnings]


class ReportExclusion(Exclusion):
    """An exclusion as the report file carries it: its causes as codes, and the words written from them."""

    reasons: list[str] = Field(
        default_factory=list,
        description="the causes in words, one per cause, written from them for a reader of the file (programs "
        "decide on `causes`; a report older than 1.4 has these words only)",
    )

    @model_validator(mode="before")
    @classmethod
    def _saved(cls, data: Any) -> Any:
        # Older than 1.4: words only. They become causes of the code `saved`, which keep the words as they were.
        if isinstance(data, dict) and "causes" not in data and data.get("reasons"):
            saved = [ExclusionCause(code=ExclusionCode.SAVED, params={"words": str(r)}) for r in data["reasons"]]
            return {**data, "causes": saved}
        return data

    @model_validator(mode="after")
    def _words(self) -> ReportExclusion:
        # Written at this edge, once, by the one renderer (frozen: set through the instance dict).
        with params_fit("the exclusion"):
            self.__dict__["reasons"] = [exclusion_cause_words(c) for c in self.causes]
        return self


def worded_exclusions(exclusions: Sequence[Exclusion]) -> list[ReportExclusion]:
    """The exclusions as the report carries them (with their words)."""
    return [ReportExclusion.model_validate(x.model_dump()) for x in exclusions]


class ReportBreakEven(BreakEven):
    """The break-even as the report file carries it: its code and figures, and the statement written from them."""

    statement: str = Field(
        default="",
        description="stay or move in words, written from code, figures and names for a reader of the file "
        "(programs decide on `code`; a report older than 1.4 has these words only)",
    )

    @model_validator(mode="after")
    def _words(self) -> ReportBreakEven:
        if self.code is not None:  # written at this edge, once, by the one renderer (frozen: the instance dict)
            with params_fit("the break-even"):
                self.__dict__["statement"] = break_even_statement(self)
        return self


class ReportRecommendation(Recommendation):
    """The advice as the report file carries it: its codes, and the words written from them for a reader."""

    headline: Headline | None = Field(  # type: ignore[assignment]
        default=None, description="the conclusion as a code (since report 1.5; older reports have `summary` only)"
    )
    steps: list[Step] = Field(
        default_factory=list, description="the next steps as codes (since report 1.5; older: `next_steps` only)"
    )
    summary: str = Field(default="", description="the headline in words (programs decide on `headline.code`)")
    next_steps: list[str] = Field(
        default_factory=list, description="the steps in words, one per step (programs decide on `steps`)"
    )
    break_even_at: int | None = Field(
        default=None, description="the index in next_steps of the break-even's statement (since report 1.4)"
    )
    break_even: ReportBreakEven | None = None

    @model_validator(mode="before")
    @classmethod
    def _older(cls, data: Any) -> Any:
        # Older than 1.4: the steps hold the saved statement but not its index; find it among the file's own steps.
        if isinstance(data, dict) and data.get("break_even_at") is None and isinstance(data.get("break_even"), dict):
            said, steps = data["break_even"].get("statement"), data.get("next_steps") or []
            if data["break_even"].get("code") is None and said in steps:
                return {**data, "break_even_at": steps.index(said)}
        return data

    @model_validator(mode="after")
    def _words(self) -> ReportRecommendation:
        if self.headline is not None:  # written at this edge, once, by the one renderer; older files keep theirs
            with params_fit("the headline"):
                self.__dict__["summary"] = headline_words(self.headline, self.audience)
            with params_fit("a step"):
                self.__dict__["next_steps"] = [step_words(s, self.break_even, self.install) for s in self.steps]
            self.__dict__["break_even_at"] = next(
                (i for i, s in enumerate(self.steps) if s.code is StepCode.BREAK_EVEN), None)
        return self


def worded_recommendation(rec: Recommendation) -> ReportRecommendation:
    """The advice as the report carries it (its break-even's statement written)."""
    return ReportRecommendation.model_validate(rec.model_dump())


class Report(_M):
    """A full fwadvisor report."""

    model_config = ConfigDict(extra="forbid", title="fwadvisor report")

    schema_version: Literal["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"] = SCHEMA_VERSION
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
    sensitivity: Sensitivity | None
    exclusions: list[ReportExclusion]
    warnings: list[ReportWarning]
    recommendation: ReportRecommendation
    migration: dict[str, MoveCost] = Field(
        default_factory=dict, description="per framework the team would move to: effort range, capacity share, score"
    )

    @model_validator(mode="after")
    def _note_words(self) -> Report:
        # From 1.4 the notes' parameters hold all their words need: written here, once, by the one renderer.
        # An older report's note_codes lack them: its notes keep the words it was saved with.
        if self.schema_version not in _NOTES_AS_SAVED:
            for entry in self.ranking:
                entry.notes = [note_words(n.code, n.params) for n in entry.note_codes or []]
        return self


def report_schema() -> dict[str, Any]:
    """The JSON Schema of the report, as generated from the models (what the committed file must equal)."""
    schema = Report.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(report_schema(), indent=2, sort_keys=True) + "\n"
