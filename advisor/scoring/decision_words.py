"""The break-even in words, written once from its code and figures (scoring's next steps and every edge)."""

from __future__ import annotations

from advisor.scoring.decision import BreakEven, BreakEvenCode
from advisor.scoring.migration import route_sentence


def _stay_cost(gap: BreakEven, i: str) -> list[str]:
    cost = gap.stay_cost
    if cost is None:
        return []
    lo, hi = cost.effort
    others = ", ".join(gap.names.get(p.source, p.source) for p in cost.pairs)
    return [
        f"Settling on {i} means porting the team's {others} code: an estimated {lo:.0f}-{hi:.0f} "
        f"engineer-months ({100 * cost.share[0]:.0f}-{100 * cost.share[1]:.0f}% of the capacity), "
        f"after which {i} delivers {gap.value_stay or 0.0:.2f}."
    ]


def _move_cost(gap: BreakEven, c: str) -> list[str]:
    cost = gap.cost
    if cost is None:
        return [f"The knowledge base has no effort estimate for moving to {c}."]
    lo, hi = cost.effort
    team = f"{cost.team_size} engineer{'s' if cost.team_size != 1 else ''}" + (
        " (team size not given)" if cost.team_size_assumed else ""
    )
    out = [
        f"Moving to {c} costs an estimated {lo:.0f}-{hi:.0f} engineer-months "
        f"({100 * cost.share[0]:.0f}-{100 * cost.share[1]:.0f}% of {team} over {cost.horizon_months:g} months)."
    ]
    # A costed route is part of that estimate: say which, so the break-even below is read against it.
    return out + [f"{text}." for p in cost.pairs if p.route and p.route.share is not None
                  if (text := route_sentence(gap.names, p))]


def _verdict(gap: BreakEven, i: str, c: str) -> str:
    code, effort, share = gap.code, gap.break_even_effort_engineer_months, gap.break_even_share
    if code is BreakEvenCode.PAYS:
        tail = f" (it stops paying above {effort:.0f} engineer-months)" if effort is not None else ""
        return f"The move pays{tail}: moving to {c} is advised."
    if code is BreakEvenCode.NO_MARGIN:
        return f"{c} does not beat {i} by the {gap.margin:.2f}-point margin even at no cost: stay with {i}."
    if code is BreakEvenCode.TOO_COSTLY:
        size = f", a codebase of about {gap.break_even_kloc:.0f} kLOC" if gap.break_even_kloc is not None else ""
        about = f" (about {effort:.0f} engineer-months{size})" if effort is not None else ""
        return (f"Stay with {i}: the move would pay only if it took under {100 * (share or 0.0):.0f}% of the team's "
                f"capacity{about}.")
    if code is BreakEvenCode.WITHIN_UNCERTAINTY:
        return f"Stay with {i}: {c} does not lead the ranking by more than its uncertainty."
    return f"Stay with {i}."


def break_even_statement(gap: BreakEven) -> str:
    """Stay or move in words: the costs, the benefits without migration, and the verdict of `gap.code`.

    A report written before the break-even carried a code (schema 1.3 and older) keeps the statement it was saved
    with.
    """
    if gap.code is None:
        return str(getattr(gap, "statement", "") or "")
    i, c = gap.names.get(gap.incumbent, gap.incumbent), gap.names.get(gap.challenger, gap.challenger)
    b_i, b_c, diff = gap.benefit_incumbent, gap.benefit_challenger, gap.benefit_challenger - gap.benefit_incumbent
    parts = _stay_cost(gap, i) + _move_cost(gap, c)
    parts.append(
        f"Leaving migration aside, {c} scores {b_c:.2f} and {i} {b_i:.2f} ({'+' if diff >= 0 else '-'}{abs(diff):.2f})"
        + (f"; after the capacity spent on the move {c} delivers {gap.value_move:.2f}."
           if gap.value_move is not None else ".")
    )
    parts.append(_verdict(gap, i, c))
    return " ".join(parts)
