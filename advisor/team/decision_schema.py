"""The team decision as versioned JSON: pydantic models (reusing the report's), the schema and its committed copies.

`advisor/schemas/team-decision.schema.json` and `docs/team-decision.schema.json` are generated from
the models below (`python -m advisor.team.decision_schema`); a test fails when they drift.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from advisor.report.models import (
    Ahp,
    Knowledge,
    Machine,
    ProfileSection,
    RankingEntry,
    ReportExclusion,
    ReportRecommendation,
    ReportWarning,
    Tool,
)
from advisor.report.words import left_out_words
from advisor.scoring.sensitivity import Sensitivity
from advisor.team.decide import Disagreement
from advisor.team.fragility import Fragility
from advisor.team.members import LeftOutCode
from advisor.team.warnings import TeamWarning

SCHEMA_VERSION: Literal["2.5"] = "2.5"
SCHEMA_ID = "https://fwadvisor.invalid/schemas/team-decision-2.5.json"
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "team-decision.schema.json"
DOCS_NAME = "team-decision.schema.json"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemberRank(_M):
    """One framework in a member's own ranking."""

    framework: str
    name: str
    total: float = Field(ge=0, le=5)


class MemberSection(_M):
    """One member: their input, their own answer, and how they rank the team's candidates."""

    label: str
    file: str
    input: Literal["weights", "pairwise"]
    weight_source: Literal["profile", "scenario", "scenario+profile", "pairwise", "equal"]
    scenario: str | None
    normalized_weights: dict[str, float]
    ahp: Ahp | None
    constraints: dict[str, list[str] | bool]  # as in the report's profile section
    winner: str | None = Field(description="the member's own winner, under their own constraints")
    verdict: Literal["clear", "likely", "tie", "single", "none"]
    ranking: list[MemberRank]
    team_ranks: dict[str, float] = Field(description="rank (1 = best) of each team candidate on the team's scores")
    warnings: list[str]


class LeftOutSection(_M):
    """A member file that could not be used: why as a code and parameters, and the words written from them."""

    file: str
    reason: str = Field(
        default="", description="the words, written from code and params for a reader of the file (programs decide "
        "on the code; a decision older than 2.2 has these words only)",
    )
    code: LeftOutCode | None = Field(default=None, description="why it was left out (since 2.2)")
    params: dict[str, str | int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _words(self) -> LeftOutSection:
        if self.code is not None:  # written at this edge, once, by the one renderer
            self.reason = left_out_words(self)
        return self


class AijSection(_M):
    """The pairwise members' combined judgements (element-wise geometric mean) and their eigenvector weights."""

    members: list[str]
    weights: dict[str, float]
    lambda_max: float
    consistency_index: float
    consistency_ratio: float | None
    missing_pairs: int


class AggregationSection(_M):
    """How the members' weights became the team's (see docs/scoring.md, team decisions)."""

    judgements: Literal["aij_geometric_mean"] = "aij_geometric_mean"
    priorities: Literal["aip_arithmetic_mean"] = "aip_arithmetic_mean"
    eigenvector: Literal["principal"] = "principal"
    combination: Literal["mean_over_members"] = "mean_over_members"
    weight_members: list[str]
    pairwise_members: list[str]
    aij: AijSection | None
    team_weights: dict[str, float]
    reference: str = "docs/scoring.md"


class ConsensusSection(_M):
    """How far the members agree."""

    kendall_w: float | None = Field(ge=0, le=1, description="Kendall's W over the members' ranks of the candidates")
    candidates: list[str]
    winner_share: float | None = Field(ge=0, le=1, description="share of members whose own winner is the team's")
    agreeing: list[str]
    disagreeing: dict[str, str | None] = Field(description="member -> their own winner, where it is not the team's")


class TeamSection(_M):
    """The team's answer: the scoring engine's ranking, breakdown and sensitivity for the aggregated weights."""

    profile: ProfileSection
    ranking: list[RankingEntry]
    sensitivity: Sensitivity | None
    exclusions: list[ReportExclusion]
    warnings: list[ReportWarning]
    recommendation: ReportRecommendation


class DocTeamWarning(TeamWarning):
    """A team warning as the document carries it: its code and parameters, and the words written from them."""

    message: str = Field(
        default="",
        description="the words, written from code and params for a reader of the file (programs decide on the "
        "code; since 2.1; a 2.0 decision's warnings have these words only)",
    )


class DocFragility(Fragility):
    """The fragility finding as the document carries it: its code and fields, and the words written from them."""

    statement: str = Field(
        default="", description="the finding in words, written from code, params and names for a reader of the "
        "file (a 2.0 decision has these words only)",
    )


class TeamDecisionDoc(_M):
    """A full fwadvisor team decision."""

    model_config = ConfigDict(extra="forbid", title="fwadvisor team decision")

    # 2.1: warnings carry params; 2.2: exclusion causes; 2.3: the advice's headline and steps as codes;
    # 2.4: GPU-floor and Python findings' params are their facts (fleet.floor_words, python_words), not a sentence;
    # 2.5: a member's profile warning is its `kind` (ProfileWarningCode) and figures, not a sentence
    schema_version: Literal["2.0", "2.1", "2.2", "2.3", "2.4", "2.5"] = SCHEMA_VERSION
    kind: Literal["team_decision"] = "team_decision"
    generated_at: str
    tool: Tool
    knowledge: Knowledge
    machine: Machine
    evidence: dict[str, Any] = Field(description="where the probe and benchmark figures came from")
    members: list[MemberSection]
    left_out: list[LeftOutSection]
    aggregation: AggregationSection
    team: TeamSection
    consensus: ConsensusSection
    disagreements: list[Disagreement]
    fragility: DocFragility
    warnings: list[DocTeamWarning]


def decision_schema() -> dict[str, Any]:
    """The JSON Schema of the team decision, as generated from the models."""
    schema = TeamDecisionDoc.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(decision_schema(), indent=2, sort_keys=True) + "\n"


def write_schema_files(root: Path | None = None) -> list[Path]:
    """Regenerate the committed schema files (the package copy and the one published in docs/)."""
    root = root or Path(__file__).resolve().parent.parent.parent
    targets = [SCHEMA_PATH, root / "docs" / DOCS_NAME]
    for target in targets:
        target.write_text(schema_text(), encoding="utf-8")
    return targets


if __name__ == "__main__":  # `python -m advisor.team.decision_schema` regenerates the schema after a model change
    for written in write_schema_files():
        print(f"wrote {written}")
