"""The team decision as its typed document (`decision_schema.TeamDecisionDoc`); its JSON is that model's dump."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from advisor import __version__
from advisor.knowledge.base import KnowledgeBase
from advisor.privacy import scrub_text
from advisor.report import build_report
from advisor.report.models import Ahp, Knowledge, Pack, Tool
from advisor.report.words import fragility_statement, team_warning_words, warning_words
from advisor.scoring.engine import WarningCode
from advisor.team.decide import MemberView, TeamDecision
from advisor.team.decision_schema import (
    AggregationSection,
    AijSection,
    ConsensusSection,
    DocFragility,
    DocTeamWarning,
    LeftOutSection,
    MemberRank,
    MemberSection,
    TeamDecisionDoc,
    TeamSection,
)
from advisor.team.warnings import TeamWarning

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport


def _path(path: str) -> str:
    # A member's file path may hold the home folder, which names the user.
    return scrub_text(path)


def _member(view: MemberView) -> MemberSection:
    r = view.member.resolved
    a = view.assessment
    return MemberSection(
        label=view.member.label,
        file=_path(view.member.path),
        input="pairwise" if view.member.kind == "pairwise" else "weights",
        weight_source=r.weight_source,
        scenario=r.scenario,
        normalized_weights=r.normalized_weights,
        ahp=Ahp(
            lambda_max=r.ahp.lambda_max,
            consistency_index=r.ahp.consistency_index,
            consistency_ratio=r.ahp.consistency_ratio,
            missing_pairs=r.ahp.missing_pairs,
        )
        if r.ahp
        else None,
        constraints=r.constraints.model_dump(mode="json"),
        winner=view.winner,
        verdict=a.recommendation.verdict,  # type: ignore[arg-type]
        ranking=[MemberRank(framework=b.framework, name=b.name, total=b.total) for b in a.ranking],
        team_ranks=view.team_ranks,
        warnings=[warning_words(w) for w in a.warnings if w.code is WarningCode.PROFILE],
    )


def _doc_warning(warning: TeamWarning) -> DocTeamWarning:
    """The warning with its words: paths in its parameters and its member are scrubbed first, then it is worded."""
    params = {k: _path(v) if isinstance(v, str) else v for k, v in warning.params.items()}
    member = None if warning.member is None else _path(warning.member)
    clean = warning.model_copy(update={"params": params, "member": member})
    return DocTeamWarning(**clean.model_dump(), message=team_warning_words(clean))


def to_document(
    decision: TeamDecision,
    kb: KnowledgeBase,
    *,
    probe: ProbeReport | None,
    bench: BenchReport | None,
    evidence: str,
) -> TeamDecisionDoc:
    """The document of `decision` (schema `team-decision.schema.json`, version 2.3)."""
    team_report = build_report(decision.team, kb, probe=probe, bench=bench, profile_source="team (aggregated)")
    members = [v.member for v in decision.members]
    aij = decision.aij
    winner = decision.winner
    doc = TeamDecisionDoc(
        generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        tool=Tool(version=__version__),
        knowledge=Knowledge(version=kb.version, packs=[Pack.model_validate(p, from_attributes=True) for p in kb.packs]),
        machine=team_report.machine,
        evidence={
            "source": _path(evidence),
            "probe": probe is not None,
            "benchmarks": None if bench is None else len(bench.results),
        },
        members=[_member(v) for v in decision.members],
        left_out=[LeftOutSection(file=_path(x.path), code=x.code, params=x.params) for x in decision.left_out],
        aggregation=AggregationSection(
            weight_members=[m.label for m in members if m.kind == "weights"],
            pairwise_members=[m.label for m in members if m.kind == "pairwise"],
            aij=AijSection(
                members=[m.label for m in members if m.kind == "pairwise"],
                weights=aij.weights,
                lambda_max=aij.lambda_max,
                consistency_index=aij.consistency_index,
                consistency_ratio=aij.consistency_ratio,
                missing_pairs=aij.missing_pairs,
            )
            if aij
            else None,
            team_weights=decision.weights,
        ),
        team=TeamSection(**{k: getattr(team_report, k) for k in TeamSection.model_fields}),
        consensus=ConsensusSection(
            kendall_w=None if decision.kendall_w is None else min(1.0, max(0.0, decision.kendall_w)),
            candidates=[b.framework for b in decision.team.ranking],
            winner_share=decision.winner_share,
            agreeing=decision.agreeing,
            disagreeing={v.member.label: v.winner for v in decision.members if winner and v.winner != winner},
        ),
        disagreements=decision.disagreements,
        fragility=DocFragility(
            **decision.fragility.model_dump(), statement=fragility_statement(decision.fragility)
        ),
        # The one change on the way out: paths in the words and the member name the home folder, scrubbed.
        warnings=[_doc_warning(w) for w in decision.warnings],
    )
    return TeamDecisionDoc.model_validate(doc.model_dump(mode="json"))  # exactly what its JSON reads back as
