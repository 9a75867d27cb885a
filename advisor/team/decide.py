"""`decide`: every member's profile scored on the same evidence, aggregated into one team answer.

The team's weights come from `aggregate` (AIJ for pairwise members, AIP for weight members); its
situation (team, code base, domains, serving, environment, fleet) is the members' merged by `situation`;
every member's hard constraints (and the knowledge base's policies) apply to the team; the team's
ranking, breakdown and sensitivity are the scoring engine's own, for the team's profile. On
top: each member's own answer, Kendall's W over how the members rank the team's candidates, the
criteria the members weigh most differently, and how fragile the team's answer is.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from pydantic import Field

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.freshness import stale_facts
from advisor.profile import AhpResult, resolve_profile
from advisor.report.words import left_out_words
from advisor.scoring.constraints import Exclusion, ExclusionCause, apply_constraints, check_constraints
from advisor.scoring.engine import Assessment, assess
from advisor.scoring.fleet import team_fleet
from advisor.scoring.result import FrozenResult
from advisor.scoring.sensitivity import DEFAULT_DRAWS
from advisor.team.aggregate import kendall_w, normalized, ranks_of, team_weights
from advisor.team.fragility import Fragility, FragilityCode, analyse_fragility
from advisor.team.members import LeftOut, Member
from advisor.team.progress import DecideProgress, DecideStep, OnProgress
from advisor.team.situation import team_profile
from advisor.team.warnings import TeamWarning, TeamWarningCode

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport

#: Monte-Carlo draws for each member's own assessment (the team's uses the engine's default).
MEMBER_DRAWS = 500
#: Team weight shares below this are set to zero (see `decide`).
MIN_SHARE = 1e-12


@dataclass
class MemberView:
    """One member's own answer (their profile, their constraints) and how they rank the team's candidates."""

    member: Member
    assessment: Assessment
    team_ranks: dict[str, float]  # framework -> rank (1 = best) among the team's candidates, on the team's scores

    @property
    def winner(self) -> str | None:
        """The member's own winner (None when their constraints leave nothing)."""
        return self.assessment.ranking[0].framework if self.assessment.ranking else None


class Disagreement(FrozenResult):
    """A criterion the members weigh differently: the spread of their shares, and who is at each end."""

    criterion: str
    name: str
    spread: float = Field(ge=0, le=1)
    low: float
    low_members: list[str]
    high: float
    high_members: list[str]


@dataclass
class TeamDecision:
    """The whole team decision, ready for JSON, Markdown and the TUI."""

    members: list[MemberView]
    left_out: list[LeftOut]
    team: Assessment
    weights: dict[str, float]
    aij: AhpResult | None
    kendall_w: float | None
    winner_share: float | None
    agreeing: list[str]
    disagreements: list[Disagreement]
    fragility: Fragility
    warnings: list[TeamWarning] = field(default_factory=list)

    @property
    def winner(self) -> str | None:
        """The team's answer."""
        return self.team.ranking[0].framework if self.team.ranking else None


def team_candidates(
    kb: KnowledgeBase, members: Sequence[Member], probe: ProbeReport | None = None
) -> tuple[list[str], list[Exclusion]]:
    """Candidates every member's profile allows, and the rest with each member's reasons.

    Each member's constraints are applied as `report` applies them (their environment and fleet, with the
    probe's GPUs, included); the knowledge base's policies once, for the team.
    """
    hard: dict[str, list[ExclusionCause]] = {fid: [] for fid in kb.frameworks}
    soft: dict[str, list[ExclusionCause]] = {fid: [] for fid in kb.frameworks}
    for m in members:
        own = dataclasses.replace(m.resolved, policies=())
        fleet = team_fleet(m.resolved.profile, probe)
        for x in apply_constraints(kb, own, fleet=fleet, member=m.label).exclusions:
            (hard if x.kind == "constraint" else soft)[x.framework] += x.causes
    for pid in kb.policies:
        for fid in kb.frameworks:
            hard[fid] += check_constraints(kb, fid, kb.policies[pid].constraints, "policy", pid)
    candidates = [fid for fid in kb.frameworks if not hard[fid] and not soft[fid]]
    exclusions = [
        Exclusion(
            framework=fid,
            kind="constraint" if hard[fid] else "not_considered",
            causes=_unique(hard[fid] + soft[fid]),
        )
        for fid in kb.frameworks
        if hard[fid] or soft[fid]
    ]
    return candidates, exclusions


def _unique(causes: list[ExclusionCause]) -> list[ExclusionCause]:
    """The causes in order, each once (two members may fail the same policy, which is checked once anyway)."""
    out: list[ExclusionCause] = []
    for c in causes:
        if c not in out:
            out.append(c)
    return out


def _disagreements(kb: KnowledgeBase, members: Sequence[Member], top: int = 3) -> list[Disagreement]:
    out: list[Disagreement] = []
    if len(members) < 2:
        return out
    for cid, crit in kb.criteria.items():
        shares = {m.label: m.weights[cid] for m in members}
        lo, hi = min(shares.values()), max(shares.values())
        if hi - lo < 0.005:  # under half a share point: not a disagreement worth a line
            continue
        out.append(
            Disagreement(
                criterion=cid,
                name=crit.name,
                spread=hi - lo,
                low=lo,
                low_members=[k for k, v in shares.items() if v - lo < 1e-9],
                high=hi,
                high_members=[k for k, v in shares.items() if hi - v < 1e-9],
            )
        )
    out.sort(key=lambda d: -d.spread)
    return out[:top]


def _worded(kb: KnowledgeBase, frag: Fragility, winner: str | None, sens_verdict: str | None) -> None:
    """What the finding says, as its code, parameters and the display names the words need (written at the edge)."""
    if winner is None:
        frag.code = FragilityCode.NO_WINNER
        return
    frag.params = {"winner": kb.frameworks[winner].name}
    if frag.verdict == "none":
        frag.code = FragilityCode.ONLY_CANDIDATE
        return
    if sens_verdict == "tie":
        frag.params["tie"] = 1
    frag.code = (
        FragilityCode.FRAGILE if frag.verdict == "fragile" else
        FragilityCode.ROBUST_TO_ONE if frag.flips else FragilityCode.ROBUST
    )
    named = {*(w for w in frag.without.values() if w != winner), *(f.new_winner for f in frag.flips[:1])}
    frag.names = {f: kb.frameworks[f].name for f in sorted(named)}
    if frag.flips:
        frag.params["criterion"] = kb.criteria[frag.flips[0].criterion].name


def decide(
    kb: KnowledgeBase,
    members: Sequence[Member],
    *,
    left_out: Sequence[LeftOut] = (),
    probe: ProbeReport | None = None,
    bench: BenchReport | None = None,
    seed: int = 0,
    draws: int | None = None,
    today: dt.date | None = None,
    on_progress: OnProgress | None = None,
) -> TeamDecision:
    """The team's answer from `members` (at least one) on the evidence given; `on_progress` hears of each member."""
    def report(step: DecideStep, done: int) -> None:
        if on_progress is not None:
            on_progress(DecideProgress(step, done, len(members)))

    if not members:
        raise ValueError("a team decision needs at least one member")
    # One date and one list of stale facts for the team and every member (the list takes as long as a member).
    today = today or dt.date.today()
    known_stale = stale_facts(kb, today)
    criteria = list(kb.criteria)
    warnings = [
        TeamWarning(code=TeamWarningCode.MEMBER_LEFT_OUT, params={"reason": left_out_words(x)}, member=x.path)
        for x in left_out
    ]
    pairwise = [m for m in members if m.kind == "pairwise"]
    individuals = [m for m in members if m.kind == "weights"]
    weights, group = team_weights([m.weights for m in individuals], [m.judgements for m in pairwise], criteria)
    if pairwise and group is None:
        warnings.append(
            TeamWarning(code=TeamWarningCode.NO_GROUP_MATRIX)
        )
    if group is not None and group.consistency_ratio is not None and group.consistency_ratio > 0.10:
        warnings.append(
            TeamWarning(
                code=TeamWarningCode.GROUP_INCONSISTENT, params={"consistency_ratio": group.consistency_ratio}
            )
        )
    # A share below 1e-12 is zero in effect, and its reciprocal overflows the sensitivity's raw factors.
    weights = normalized({c: (w if w >= MIN_SHARE else 0.0) for c, w in weights.items()})
    for m in members:
        warnings += [
            TeamWarning(code=TeamWarningCode.MEMBER_PROFILE, params={"kind": w.code.value, **w.params}, member=m.label)
            for w in m.resolved.warnings
        ]
    profile = team_profile([m.resolved for m in members], weights, warnings)
    # One member: their profile as written, so resolved exactly as `report` resolves it.
    team_resolved = resolve_profile(profile, kb)
    candidates, exclusions = team_candidates(kb, members, probe)
    team_resolved = dataclasses.replace(team_resolved, frameworks=tuple(candidates), policies=())
    team = assess(
        kb,
        team_resolved,
        probe=probe,
        bench=bench,
        seed=seed,
        today=today,
        draws=draws or DEFAULT_DRAWS,
        audience="team",
        known_stale=known_stale,
    )
    # The members' reasons, and any the team's merged situation adds (e.g. the union of the fleets).
    team.exclusions = exclusions + [x for x in team.exclusions if x.kind == "constraint"]
    names = [b.framework for b in team.ranking]
    x = np.array([[c.score for c in b.contributions] for b in team.ranking]) if names else np.zeros((0, len(criteria)))
    views: list[MemberView] = []
    rank_rows = []
    for m in members:
        own = assess(
            kb, m.resolved, probe=probe, bench=bench, seed=seed, today=today, draws=MEMBER_DRAWS,
            known_stale=known_stale,
        )
        ranks = ranks_of(x @ np.array([m.weights[c] for c in criteria])) if names else np.zeros(0)
        rank_rows.append(ranks)
        views.append(MemberView(m, own, {f: float(r) for f, r in zip(names, ranks, strict=True)}))
        report(DecideStep.MEMBERS, len(views))
    winner = names[0] if names else None
    agreeing = [v.member.label for v in views if winner is not None and v.winner == winner]
    frag = (
        analyse_fragility(x, names, criteria, members, lambda done: report(DecideStep.FRAGILITY, done))
        if names
        else Fragility(verdict="none")
    )
    _worded(kb, frag, winner, team.sensitivity.verdict if team.sensitivity else None)
    if len(members) == 1:
        warnings.append(TeamWarning(code=TeamWarningCode.TEAM_OF_ONE))
    return TeamDecision(
        members=views,
        left_out=list(left_out),
        team=team,
        weights=weights,
        aij=group,
        kendall_w=kendall_w(rank_rows) if names else None,
        winner_share=(len(agreeing) / len(members)) if winner is not None else None,
        agreeing=agreeing,
        disagreements=_disagreements(kb, members),
        fragility=frag,
        warnings=warnings,
    )
