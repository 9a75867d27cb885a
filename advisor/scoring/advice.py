"""The advice in words: the choice (staying with the incumbent unless a move pays), how sure, next steps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware
from advisor.profile import ResolvedProfile
from advisor.scoring.decision import BreakEven, advised
from advisor.scoring.decision_words import break_even_statement
from advisor.scoring.evidence import machine_busy
from advisor.scoring.explain import Breakdown
from advisor.scoring.fleet import FloorFinding
from advisor.scoring.install_advice import InstallStep, install_sentence, install_steps
from advisor.scoring.migration import MoveCost, route_sentence
from advisor.scoring.result import Result
from advisor.scoring.sensitivity import Sensitivity, advice_change_sentence

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport

#: Whom the advice is for: one person's profile (`report`) or a team's aggregated one (`team decide`).
Audience = Literal["profile", "team"]
_FOR: dict[str, str] = {"profile": "for this profile", "team": "for this team"}


class Recommendation(Result):
    """The advice: the choice (stay with the incumbent unless a move pays), how sure, and what to do next."""

    framework: str | None
    name: str | None
    verdict: Literal["clear", "likely", "tie", "single", "none"]
    tied_with: list[str]
    summary: str
    next_steps: list[str]
    decision: Literal["stay", "move", "choose"] = Field(
        default="choose", description="stay with the incumbent, move to another framework, or choose (greenfield)"
    )
    break_even: BreakEven | None = None
    break_even_at: int | None = Field(
        default=None, description="the index in next_steps of the break-even's statement (since report 1.4)"
    )
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


def _forced_move(kb: KnowledgeBase, current: list[str], target: str, cost: MoveCost | None) -> str:
    names = ", ".join(kb.frameworks[f].name for f in current)
    text = f"The team's current framework ({names}) fails a hard constraint (see the exclusions): a move is required."
    if cost is not None and cost.pairs:
        lo, hi = cost.effort
        text += (
            f" Moving to {kb.frameworks[target].name} costs an estimated {lo:.0f}-{hi:.0f} engineer-months "
            f"({100 * cost.share[0]:.0f}-{100 * cost.share[1]:.0f}% of the team's capacity over "
            f"{cost.horizon_months:g} months)."
        )
    return text


def _route_steps(
    kb: KnowledgeBase, advised: str, decision: str, gap: BreakEven | None, costs: Mapping[str, MoveCost] | None
) -> list[str]:
    """The cheaper routes of the move the advice makes, or of the challenger it weighed and turned down."""
    target = advised if decision == "move" else (gap.challenger if gap is not None else None)
    cost = (costs or {}).get(target) if target else None
    if cost is None:
        return []
    names = {f: k.name for f, k in kb.frameworks.items()}
    out = []
    for pair in cost.pairs:
        text = route_sentence(names, pair)
        # A costed route is in the break-even statement already; without one (a forced move) it is named here.
        if text and (pair.route is None or pair.route.share is None or gap is None):
            out.append(text[0].upper() + text[1:] + ".")
    return out


def _say(steps: list[str], gap: BreakEven) -> int:
    """Append the break-even's statement to the steps; its index, so that programs find it without its words."""
    steps.append(break_even_statement(gap))
    return len(steps) - 1


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
            summary="No framework meets every hard constraint; see the exclusions.",
            next_steps=["Relax a constraint (must_run_on, must_deploy_to, licenses) or add an overlay pack."],
            audience=audience,
        )
    top = ranking[0]
    current = list(resolved.profile.team.current)
    tied_with = list(sens.tied_with)
    decision: Literal["stay", "move", "choose"] = (
        "choose" if not current else ("stay" if top.framework in current else "move")
    )
    steps: list[str] = []
    at: int | None = None  # where the break-even's statement stands in the steps
    if advised(ranking, gap) is not top:
        # Stay is the default: the winner's lead does not pay for the move, so the incumbent is the advice.
        assert gap is not None  # advised() names another framework only where a move does not pay
        top, decision = advised(ranking, gap), "stay"
        tied_with = [gap.challenger]
        at = _say(steps, gap)
    name = top.name
    if decision == "stay" and top is not ranking[0]:
        summary = (
            f"Stay with {name}: {ranking[0].name} ranks first by {ranking[0].total - top.total:.2f} points, "
            "which does not pay for the move."
        )
    elif sens.verdict == "tie":
        others = ", ".join(kb.frameworks[f].name for f in sens.tied_with)
        summary = f"{name} and {others} are a statistical tie {_FOR[audience]} (lead {sens.gap:.2f} of 5); " + (
            f"staying with {name}, the team's framework, is the default."
            if top.framework in current
            else "either is a sound choice."
        )
        by_name = {b.framework: b for b in ranking}
        rival = by_name[sens.tied_with[0]]
        diffs = sorted(
            (
                (c.contribution - r.contribution, c.name)
                for c, r in zip(top.contributions, rival.contributions, strict=True)
            ),
            key=lambda t: -abs(t[0]),
        )[:3]
        steps.append(
            "Decide on the criteria where they differ most: "
            + ", ".join(f"{n} ({'+' if d >= 0 else '-'}{abs(d):.2f} for {name})" for d, n in diffs)
            + "."
        )
        steps.append(f"Prototype one representative model in both {name} and {rival.name} before committing.")
    else:
        how = "clearly" if sens.verdict == "clear" else "probably"
        summary = f"{name} is {how} the best fit {_FOR[audience]} ({top.total:.2f} of 5"
        summary += f", ahead of {kb.frameworks[sens.runner_up].name} by {sens.gap:.2f})." if sens.runner_up else ")."
    if kb.frameworks[top.framework].kind == "multi_backend":
        single = next((b for b in ranking if kb.frameworks[b.framework].kind != "multi_backend"), None)
        if single is not None:
            steps.append(
                f"{name} is a multi-backend layer: it runs on another framework. Choose its backend too; the "
                f"highest-ranked single framework here is {single.name} ({single.total:.2f})."
            )
    if top.framework in current:
        if gap is not None and top is ranking[0]:
            at = _say(steps, gap)
        remaining = [f for f in current if f != top.framework]
        if not remaining:
            steps.append(f"Stay with {name}: the team already uses it, so there is no migration cost.")
        else:
            steps.append(
                f"Settle on {name}, which the team already uses: its code in "
                f"{', '.join(kb.frameworks[f].name for f in remaining if f in kb.frameworks)} is to be ported "
                "(the migration criterion counts that cost)."
            )
    else:
        if gap is not None and gap.challenger == top.framework:
            at = _say(steps, gap)
        elif gap is None and current:
            steps.append(_forced_move(kb, current, top.framework, (costs or {}).get(top.framework)))
        for src in current:
            mig = kb.migrations.get((src, top.framework))
            if mig is not None:
                tools = ", ".join(f"{t.name} ({t.url})" for t in mig.tools) or "no dedicated tools"
                steps.append(f"Plan the migration {src} -> {top.framework} ({mig.cost.value} cost); tools: {tools}.")
    steps += _route_steps(kb, top.framework, decision, gap, costs)
    team_hw = [*resolved.constraints.must_run_on, *(e.hardware for e in resolved.profile.fleet)]
    install = install_steps(kb, top.framework, present, team_hw)
    if top.installed is not True or any(s.where == "team" for s in install):
        # Installed here, but for another backend than the team's: the team's line is still news.
        hint = install_sentence(name, install)
        if hint:
            steps.append(hint)
    if top.installed and bench is None:
        steps.append("Run `fwadvisor report` without --no-bench to blend measured performance into the ranking.")
    if machine_busy(bench):
        steps.append("The benchmarks ran on a busy machine and are not used: run `fwadvisor report` again when it is "
                     "quiet to blend measured performance in.")
    floor = (floors or {}).get(top.framework)
    for note in ([floor.message] if floor else []) + [text for _sid, text in serving_gaps(kb, top.framework, resolved)]:
        steps.append(note[0].upper() + note[1:] + ".")
    if sens.advice_change is not None and sens.verdict != "tie":
        names = {**{c: k.name for c, k in kb.criteria.items()}, **{f: k.name for f, k in kb.frameworks.items()}}
        steps.append("Check the weights: " + advice_change_sentence(sens.advice_change, names))
    steps.append(f"Run `fwadvisor checklist` for the onboarding checklist for {name}.")
    verdict = "tie" if decision == "stay" and top is not ranking[0] else sens.verdict
    return Recommendation(
        framework=top.framework, name=name, verdict=verdict, tied_with=tied_with, summary=summary, next_steps=steps,
        decision=decision, break_even=gap, break_even_at=at, audience=audience, install=install,
    )
