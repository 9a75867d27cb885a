"""The advice: the choice (staying with the incumbent unless a move pays), how sure, next steps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware
from advisor.profile import ResolvedProfile
from advisor.scoring.decision import BreakEven, advised
from advisor.scoring.evidence import machine_busy
from advisor.scoring.explain import Breakdown
from advisor.scoring.fleet import FloorFinding
from advisor.scoring.install_advice import InstallStep, install_steps
from advisor.scoring.migration import MoveCost
from advisor.scoring.result import Result
from advisor.scoring.sensitivity import Sensitivity
from advisor.scoring.steps import Headline, HeadlineCode, Step, StepCode, StepParam

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport

#: Whom the advice is for: one person's profile (`report`) or a team's aggregated one (`team decide`).
Audience = Literal["profile", "team"]


class Recommendation(Result):
    """The advice: the choice (stay with the incumbent unless a move pays), how sure, and what to do next.

    The conclusion and the next steps are codes with their parameters (`advisor.scoring.steps`); their words are
    written once, at the edge, by `advisor.scoring.advice_words`.
    """

    framework: str | None
    name: str | None
    verdict: Literal["clear", "likely", "tie", "single", "none"]
    tied_with: list[str]
    headline: Headline
    steps: list[Step]
    decision: Literal["stay", "move", "choose"] = Field(
        default="choose", description="stay with the incumbent, move to another framework, or choose (greenfield)"
    )
    break_even: BreakEven | None = None
    audience: Audience = Field(
        default="profile", description="whom the advice addresses: one profile (report) or a team (team decide)"
    )
    install: list[InstallStep] = Field(
        default_factory=list, description="install lines: the team's hardware first where this machine lacks it"
    )


def serving_gaps(kb: KnowledgeBase, fid: str, resolved: ResolvedProfile) -> list[tuple[str, str]]:
    """(serving stack id, note) per serving stack of the team that does not take `fid`'s models natively."""
    return [
        (sid, f"the team's serving stack {kb.serving[sid].name} does not take {kb.frameworks[fid].name} models "
         "natively: a move also means replacing or bridging it")
        for sid in resolved.profile.serving
        if fid not in kb.serving[sid].frameworks
    ]


def _forced_move(kb: KnowledgeBase, current: list[str], target: str, cost: MoveCost | None) -> Step:
    params: dict[str, StepParam] = {"current": [kb.frameworks[f].name for f in current],
                                    "target": kb.frameworks[target].name}
    if cost is not None and cost.pairs:
        params |= {"effort": list(cost.effort), "share": list(cost.share), "horizon": cost.horizon_months}
    return Step(code=StepCode.FORCED_MOVE, params=params)


def _route_steps(
    kb: KnowledgeBase, advised: str, decision: str, gap: BreakEven | None, costs: Mapping[str, MoveCost] | None
) -> list[Step]:
    """The cheaper routes of the move the advice makes, or of the challenger it weighed and turned down."""
    target = advised if decision == "move" else (gap.challenger if gap is not None else None)
    cost = (costs or {}).get(target) if target else None
    if cost is None:
        return []
    names = {f: k.name for f, k in kb.frameworks.items()}
    out = []
    for pair in cost.pairs:
        r = pair.route
        # A costed route is in the break-even statement already; without one (a forced move) it is named here.
        if r is not None and (r.share is None or gap is None):
            out.append(Step(code=StepCode.ROUTE, route=pair, params={
                "source": names.get(pair.source, pair.source), "through": names.get(r.through, r.through),
                "backend": names.get(r.backend, r.backend)}))
    return out


def recommend(
    kb: KnowledgeBase,
    resolved: ResolvedProfile,
    ranking: list[Breakdown],
    sens: Sensitivity | None,
    present: dict[Hardware, str],
    bench: BenchReport | None,
    gap: BreakEven | None = None,
    costs: Mapping[str, MoveCost] | None = None,
    audience: Audience = "profile",
    floors: Mapping[str, FloorFinding] | None = None,
) -> Recommendation:
    """The advice: the ranking's winner, or the incumbent where the winner's lead does not pay for the move.

    `costs` are the move costs per framework; where every incumbent is excluded, the forced move's cost is stated.
    `audience` says whom the sentences address (a team's advice says "for this team"); `floors` are the
    frameworks' findings on the team's oldest NVIDIA GPU (`advisor.scoring.fleet.nvidia_finding`).
    """
    if not ranking or sens is None:
        return Recommendation(
            framework=None,
            name=None,
            verdict="none",
            tied_with=[],
            headline=Headline(code=HeadlineCode.NONE),
            steps=[Step(code=StepCode.RELAX)],
            audience=audience,
        )
    top = ranking[0]
    current = list(resolved.profile.team.current)
    tied_with = list(sens.tied_with)
    decision: Literal["stay", "move", "choose"] = (
        "choose" if not current else ("stay" if top.framework in current else "move")
    )
    steps: list[Step] = []
    if advised(ranking, gap) is not top:
        # Stay is the default: the winner's lead does not pay for the move, so the incumbent is the advice.
        assert gap is not None  # advised() names another framework only where a move does not pay
        top, decision = advised(ranking, gap), "stay"
        tied_with = [gap.challenger]
        steps.append(Step(code=StepCode.BREAK_EVEN))
    name = top.name
    if decision == "stay" and top is not ranking[0]:
        headline = Headline(code=HeadlineCode.STAY, params={
            "name": name, "first": ranking[0].name, "lead": ranking[0].total - top.total})
    elif sens.verdict == "tie":
        headline = Headline(code=HeadlineCode.TIE, params={
            "name": name, "others": [kb.frameworks[f].name for f in sens.tied_with], "gap": sens.gap,
            "incumbent": top.framework in current})
        by_name = {b.framework: b for b in ranking}
        rival = by_name[sens.tied_with[0]]
        diffs = sorted(
            (
                (c.contribution - r.contribution, c.name)
                for c, r in zip(top.contributions, rival.contributions, strict=True)
            ),
            key=lambda t: -abs(t[0]),
        )[:3]
        steps.append(Step(code=StepCode.TIE_CRITERIA, params={
            "name": name, "criteria": [n for _d, n in diffs], "diffs": [d for d, _n in diffs]}))
        steps.append(Step(code=StepCode.PROTOTYPE, params={"name": name, "rival": rival.name}))
    else:
        params: dict[str, StepParam] = {"name": name, "total": top.total, "clear": sens.verdict == "clear"}
        if sens.runner_up:
            params |= {"runner_up": kb.frameworks[sens.runner_up].name, "gap": sens.gap}
        headline = Headline(code=HeadlineCode.BEST, params=params)
    if kb.frameworks[top.framework].kind == "multi_backend":
        single = next((b for b in ranking if kb.frameworks[b.framework].kind != "multi_backend"), None)
        if single is not None:
            steps.append(Step(code=StepCode.MULTI_BACKEND, params={
                "name": name, "single": single.name, "total": single.total}))
    if top.framework in current:
        if gap is not None and top is ranking[0]:
            steps.append(Step(code=StepCode.BREAK_EVEN))
        remaining = [f for f in current if f != top.framework]
        if not remaining:
            steps.append(Step(code=StepCode.STAY, params={"name": name}))
        else:
            steps.append(Step(code=StepCode.SETTLE, params={
                "name": name, "others": [kb.frameworks[f].name for f in remaining if f in kb.frameworks]}))
    else:
        if gap is not None and gap.challenger == top.framework:
            steps.append(Step(code=StepCode.BREAK_EVEN))
        elif gap is None and current:
            steps.append(_forced_move(kb, current, top.framework, (costs or {}).get(top.framework)))
        for src in current:
            mig = kb.migrations.get((src, top.framework))
            if mig is not None:
                steps.append(Step(code=StepCode.PLAN_MIGRATION, params={
                    "source": src, "target": top.framework, "cost": mig.cost.value,
                    "tools": [f"{t.name} ({t.url})" for t in mig.tools]}))
    steps += _route_steps(kb, top.framework, decision, gap, costs)
    team_hw = [*resolved.constraints.must_run_on, *(e.hardware for e in resolved.profile.fleet)]
    install = install_steps(kb, top.framework, present, team_hw)
    if (top.installed is not True or any(s.where == "team" for s in install)) and install:
        # Installed here, but for another backend than the team's: the team's line is still news.
        steps.append(Step(code=StepCode.INSTALL, params={"name": name}))
    if top.installed and bench is None:
        steps.append(Step(code=StepCode.RUN_BENCH))
    if machine_busy(bench) is not None:
        steps.append(Step(code=StepCode.BUSY))
    floor = (floors or {}).get(top.framework)
    if floor:
        steps.append(Step(code=StepCode.GPU_FLOOR, params=dict(floor.params)))
    for sid, _words in serving_gaps(kb, top.framework, resolved):
        steps.append(Step(code=StepCode.SERVING_GAP, params={"stack": kb.serving[sid].name, "name": name}))
    if sens.advice_change is not None and sens.verdict != "tie":
        change = sens.advice_change
        steps.append(Step(code=StepCode.CHECK_WEIGHTS, change=change, params={
            "framework": kb.frameworks[change.framework].name, "criterion": kb.criteria[change.criterion].name}))
    steps.append(Step(code=StepCode.CHECKLIST, params={"name": name}))
    verdict = "tie" if decision == "stay" and top is not ranking[0] else sens.verdict
    return Recommendation(
        framework=top.framework, name=name, verdict=verdict, tied_with=tied_with, headline=headline, steps=steps,
        decision=decision, break_even=gap, audience=audience, install=install,
    )
