"""Stay or move: the incumbent is the default unless a challenger's gain pays for the move; the break-even.

For the team's incumbent I (its best-ranked current framework) and the best-ranked challenger C:

* gain    = sum over criteria other than migration of (contribution_C - contribution_I)
* penalty = contribution_I(migration) - contribution_C(migration) = w_m * (5 - s_m(C))   (I scores 5)
* lead    = gain - penalty = total_C - total_I

The move pays when the lead reaches the tie margin (`TIE_GAP`, the knowledge base's resolution) and the
sensitivity analysis does not call I and C a tie; otherwise staying is advised. Break-even: the migration
score s* = 5 - (gain - margin) / w_m at which the lead equals the margin, turned back into a capacity share
f* = -ln(s* / 5), engineer-months f* x capacity and (effort grows as kLOC**E) a codebase size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from advisor.knowledge.base import KnowledgeBase
from advisor.scoring.explain import Breakdown
from advisor.scoring.migration import MoveCost, share_for_score
from advisor.scoring.sensitivity import TIE_GAP, Sensitivity

MIGRATION = "migration_cost"


@dataclass(frozen=True)
class BreakEven:
    """The stay-or-move comparison of the incumbent with the best challenger."""

    incumbent: str
    challenger: str
    gain: float  # points the challenger gains on every criterion but migration
    penalty: float  # points the move's cost takes (migration criterion)
    lead: float  # gain - penalty (= the difference of the totals)
    margin: float
    migration_weight: float
    pays: bool
    max_effort: float | None  # engineer-months at which the move would just pay (None: never / cost ignored)
    max_kloc: float | None
    cost: MoveCost | None
    statement: str

    def to_json(self) -> dict[str, Any]:
        """JSON form for the report's recommendation."""
        return {
            "incumbent": self.incumbent,
            "challenger": self.challenger,
            "gain": self.gain,
            "penalty": self.penalty,
            "lead": self.lead,
            "margin": self.margin,
            "migration_weight": self.migration_weight,
            "pays": self.pays,
            "break_even_effort_engineer_months": self.max_effort,
            "break_even_kloc": self.max_kloc,
            "cost": self.cost.to_json() if self.cost else None,
            "statement": self.statement,
        }


def _part(b: Breakdown, criterion: str) -> float:
    return next((c.contribution for c in b.contributions if c.criterion == criterion), 0.0)


def break_even(
    kb: KnowledgeBase,
    ranking: list[Breakdown],
    current: list[str],
    costs: dict[str, MoveCost],
    sens: Sensitivity | None,
) -> BreakEven | None:
    """Compare the best-ranked incumbent with the best-ranked challenger; None without both."""
    inc = next((b for b in ranking if b.framework in current), None)
    chal = next((b for b in ranking if b.framework not in current), None)
    if inc is None or chal is None:
        return None
    w_m = next((c.weight for c in chal.contributions if c.criterion == MIGRATION), 0.0)
    penalty = _part(inc, MIGRATION) - _part(chal, MIGRATION)
    lead = chal.total - inc.total
    gain = lead + penalty
    tied = (
        sens is not None
        and sens.verdict == "tie"
        and {inc.framework, chal.framework}
        <= {
            sens.winner,
            *sens.tied_with,
        }
    )
    pays = lead >= TIE_GAP and not tied
    cost = costs.get(chal.framework)
    max_effort = max_kloc = None
    if w_m > 0 and gain > TIE_GAP and cost is not None:
        target = 5.0 - (gain - TIE_GAP) / w_m
        share = share_for_score(target) if target > 0 else math.inf
        if math.isfinite(share):
            max_effort = share * cost.capacity
            max_kloc = cost.kloc_for_share(share)
    statement = _statement(kb, inc.framework, chal.framework, gain, penalty, w_m, pays, max_effort, max_kloc, cost)
    if tied and lead >= TIE_GAP:
        statement = statement.rsplit(". ", 1)[0] + (
            f". Stay with {kb.frameworks[inc.framework].name}: {kb.frameworks[chal.framework].name}'s lead is "
            "within the ranking's uncertainty (a statistical tie)."
        )
    return BreakEven(
        inc.framework, chal.framework, gain, penalty, lead, TIE_GAP, w_m, pays, max_effort, max_kloc, cost, statement
    )


def _statement(
    kb: KnowledgeBase,
    inc: str,
    chal: str,
    gain: float,
    penalty: float,
    w_m: float,
    pays: bool,
    max_effort: float | None,
    max_kloc: float | None,
    cost: MoveCost | None,
) -> str:
    i, c = kb.frameworks[inc].name, kb.frameworks[chal].name
    parts: list[str] = []
    if cost is not None and cost.pairs:
        lo, hi = cost.effort
        team = f"{cost.team_size} engineer{'s' if cost.team_size != 1 else ''}" + (
            " (team size not given)" if cost.team_size_assumed else ""
        )
        parts.append(
            f"Moving to {c} costs an estimated {lo:.0f}-{hi:.0f} engineer-months "
            f"({100 * cost.share[0]:.0f}-{100 * cost.share[1]:.0f}% of {team} over {cost.horizon_months:g} months)."
        )
    else:
        parts.append(f"The knowledge base has no effort estimate for moving to {c}.")
    gained = "gains" if gain >= 0 else "loses"
    parts.append(
        f"{c} {gained} {abs(gain):.2f} points on the other criteria; the move's cost takes {penalty:.2f} "
        f"(migration weight {100 * w_m:.0f}%)."
    )
    if pays:
        tail = f" (it would stop paying above {max_effort:.0f} engineer-months)." if max_effort is not None else "."
        parts.append(f"The move pays: moving to {c} is advised{tail}")
        return " ".join(parts)
    if gain <= TIE_GAP:
        parts.append(f"{c} does not beat {i} by the {TIE_GAP:.2f}-point margin even at no cost: stay with {i}.")
    elif max_effort is not None:
        size = f" (a codebase of about {max_kloc:.0f} kLOC)" if max_kloc is not None else ""
        parts.append(f"Stay with {i}: the move would pay only if it cost under {max_effort:.0f} engineer-months{size}.")
    else:
        parts.append(f"Stay with {i}: the gain is within the uncertainty of the ranking.")
    return " ".join(parts)
