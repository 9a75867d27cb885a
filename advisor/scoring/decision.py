"""Stay or move: the incumbent is the default unless a challenger's gain pays for the move; the break-even.

The ranking (weighted sum) includes the migration criterion, whose weight a preset sets for teams in
general; it cannot say whether *this* team should spend a share of its capacity on a move. So the
decision compares value over the planning horizon, for the team's incumbent I (its best-ranked current
framework) and the best-ranked challenger C:

* B_X = the weighted score of X over every criterion but migration, renormalised (0-5);
* f   = the move's effort as a share of the team's capacity over the horizon (midpoint of the range);
* staying delivers S = B_I, or (1 - f_I) * B_I when the team has code in other frameworks too, which
  settling on I means porting (f_I: that consolidation's share of the capacity); moving delivers
  max(0, 1 - f) * B_C: the capacity spent on the move delivers nothing else, the rest works with the
  better framework.

The move pays when (1 - f) * B_C - S reaches the tie margin (`TIE_GAP`, the knowledge base's
resolution) and the ranking itself puts C ahead by that margin without a statistical tie; otherwise
staying is advised. Break-even: f* = 1 - (S + margin) / B_C, i.e. f* x capacity engineer-months and,
as effort grows as kLOC**E, a codebase size.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from advisor.knowledge.base import KnowledgeBase
from advisor.profile.resolve import WEIGHT_SCALE_MAX
from advisor.scoring.explain import Breakdown
from advisor.scoring.migration import MoveCost
from advisor.scoring.result import FrozenResult
from advisor.scoring.sensitivity import TIE_GAP, AdviceChange, Sensitivity

MIGRATION = "migration_cost"


class BreakEvenCode(StrEnum):
    """What the break-even concludes, so programs decide on the code; the words are `decision_words`'."""

    PAYS = "pays"  # the move pays: moving is advised
    NO_MARGIN = "no_margin"  # the challenger does not beat the incumbent by the margin even at no cost
    TOO_COSTLY = "too_costly"  # the move would pay only under break_even_share of the team's capacity
    WITHIN_UNCERTAINTY = "within_uncertainty"  # the challenger does not lead the ranking beyond its uncertainty
    STAY = "stay"  # otherwise: stay with the incumbent


class BreakEven(FrozenResult):
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
    #: f*: the largest capacity share at which the move still pays (None: never), f* x capacity, and the kLOC.
    break_even_share: float | None
    break_even_effort_engineer_months: float | None
    break_even_kloc: float | None
    cost: MoveCost | None = Field(description="the move's effort range and capacity share")
    value_stay: float | None = Field(
        default=None,
        description="(1 - f_I) * benefit_incumbent, where settling on the incumbent means porting the team's "
        "code in its other frameworks (f_I: that port's capacity share); null when nothing else must move",
    )
    stay_cost: MoveCost | None = Field(default=None, description="that port's effort range and capacity share")
    code: BreakEvenCode | None = Field(
        default=None, description="what it concludes (since report 1.4; older reports have the statement only)"
    )
    names: dict[str, str] = Field(
        default_factory=dict, description="the names of the frameworks its words name, by id (since report 1.4)"
    )


def benefit(b: Breakdown) -> float:
    """The weighted score over every criterion but migration, renormalised to the 0-5 scale."""
    parts = [(c.weight, c.contribution) for c in b.contributions if c.criterion != MIGRATION]
    total_w = math.fsum(w for w, _ in parts)
    return math.fsum(c for _, c in parts) / total_w if total_w > 0 else b.total


def move_pays(lead: Any, value_stay: Any, value_move: Any, tied: Any = False) -> Any:
    """The stay/move rule, for numbers or NumPy arrays alike: the challenger leads the ranking by the margin
    without a statistical tie, and what it delivers after the move (NaN: no effort estimate) beats staying by it.
    """
    value_move = np.asarray(value_move, dtype=float)
    paid = np.isnan(value_move) | (np.nan_to_num(value_move) - value_stay >= TIE_GAP)
    return (np.asarray(lead) >= TIE_GAP) & np.logical_not(tied) & paid


def advised(ranking: list[Breakdown], gap: BreakEven | None) -> Breakdown:
    """The framework the advice names: the ranking's first, or the incumbent where the move does not pay."""
    top = ranking[0]
    if gap is not None and top.framework == gap.challenger and not gap.pays:
        return next(b for b in ranking if b.framework == gap.incumbent)
    return top


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
    b_i, b_c = benefit(inc), benefit(chal)
    lead = chal.total - inc.total
    tied = (
        sens is not None
        and sens.verdict == "tie"
        and {inc.framework, chal.framework}
        <= {
            sens.winner,
            *sens.tied_with,
        }
    )
    cost = costs.get(chal.framework)
    share = (cost.share[0] + cost.share[1]) / 2 if cost is not None else None
    # A move that takes more than the horizon delivers nothing within it (never a negative value).
    value_move = max(0.0, 1.0 - share) * b_c if share is not None else None
    stay_cost = costs.get(inc.framework)
    value_stay = max(0.0, 1.0 - (stay_cost.share[0] + stay_cost.share[1]) / 2) * b_i if stay_cost else b_i
    ranked_ahead = lead >= TIE_GAP and not tied
    pays = bool(move_pays(lead, value_stay, math.nan if value_move is None else value_move, tied))
    max_share = 1.0 - (value_stay + TIE_GAP) / b_c if b_c > value_stay + TIE_GAP else None
    max_effort = max_share * cost.capacity if cost is not None and max_share is not None else None
    max_kloc = cost.kloc_for_share(max_share) if cost is not None and max_share is not None else None
    named = _named(inc.framework, chal.framework, cost, stay_cost)
    names = {f: kb.frameworks[f].name for f in named if f in kb.frameworks}
    return BreakEven(
        incumbent=inc.framework,
        challenger=chal.framework,
        benefit_incumbent=b_i,
        benefit_challenger=b_c,
        gain=b_c - b_i,
        capacity_share=share,
        value_move=value_move,
        lead=lead,
        margin=TIE_GAP,
        pays=pays,
        break_even_share=max_share,
        break_even_effort_engineer_months=max_effort,
        break_even_kloc=max_kloc,
        cost=cost,
        value_stay=value_stay if stay_cost else None,
        stay_cost=stay_cost,
        code=_code(pays, max_share, value_move, b_i, ranked_ahead),
        names=names,
    )


def _named(inc: str, chal: str, *costs: MoveCost | None) -> list[str]:
    """The frameworks the break-even's words name: the two compared, and those of the moves' pairs and routes."""
    out = [inc, chal]
    for cost in costs:
        for p in cost.pairs if cost is not None else []:
            out += [p.source, *((p.route.through, p.route.backend) if p.route else ())]
    return list(dict.fromkeys(out))


def _code(
    pays: bool, max_share: float | None, value_move: float | None, b_i: float, ranked_ahead: bool
) -> BreakEvenCode:
    if pays:
        return BreakEvenCode.PAYS
    if max_share is None:
        return BreakEvenCode.NO_MARGIN
    if value_move is not None and value_move - b_i < TIE_GAP:
        return BreakEvenCode.TOO_COSTLY
    return BreakEvenCode.STAY if ranked_ahead else BreakEvenCode.WITHIN_UNCERTAINTY


def _advised_rows(
    x: NDArray[np.float64], w: NDArray[np.float64], current: NDArray[np.bool_], shares: NDArray[np.float64],
    migration: NDArray[np.bool_],
) -> NDArray[np.int64]:
    """Per row of weights `w` (0-5 scale), the index of the framework the advice names (-1: no weight left)."""
    total = w.sum(axis=1)
    valid = total > 0
    totals = (w / np.where(valid, total, 1.0)[:, None]) @ x.T
    wb = np.where(migration, 0.0, w)
    bt = wb.sum(axis=1)
    benefits = np.where((bt > 0)[:, None], (wb / np.where(bt > 0, bt, 1.0)[:, None]) @ x.T, totals)
    top = np.argmax(totals, axis=1)  # the first of equal totals, as the ranking's stable order has it
    if not current.any() or current.all():
        return np.where(valid, top, -1)
    rows = np.arange(len(w))
    inc = np.argmax(np.where(current, totals, -np.inf), axis=1)
    chal = np.argmax(np.where(current, -np.inf, totals), axis=1)
    b_c = benefits[rows, chal]
    value_move = np.maximum(0.0, 1.0 - shares[chal]) * b_c  # NaN where there is no effort estimate
    # Staying costs the incumbent its share too where other incumbents' code must be ported into it.
    value_stay = np.maximum(0.0, 1.0 - np.nan_to_num(shares[inc])) * benefits[rows, inc]
    pays = move_pays(totals[rows, chal] - totals[rows, inc], value_stay, value_move)
    return np.where(valid, np.where(current[top], top, np.where(pays, chal, inc)), -1)


#: Points of the search past the top of the scale: a weight typed as 1e6 must not cost a grid of 1e8 rows.
_BEYOND_SCALE_POINTS = 1000


def _weight_grid(top: float) -> NDArray[np.float64]:
    """The weights `advice_change` tries: 0.01 steps on the 0-5 scale, then a bounded number up to `top`."""
    scale: NDArray[np.float64] = np.arange(round(WEIGHT_SCALE_MAX * 100) + 1) / 100
    if top <= WEIGHT_SCALE_MAX:
        return scale
    beyond = np.round(np.linspace(WEIGHT_SCALE_MAX, top, _BEYOND_SCALE_POINTS + 1)[1:], 2)
    return np.unique(np.concatenate([scale, beyond]))


def advice_change(
    ranking: list[Breakdown],
    weights: dict[str, float],
    current: list[str],
    costs: dict[str, MoveCost],
    now: str,
) -> AdviceChange | None:
    """The single weight nearest to its value now (0.01 steps on the 0-5 scale) at which the advice changes.

    Every other weight stays as it is, as in What-if. Where the rule here does not name `now` (the advice
    the report gives), a statistical tie decided it, and no single weight is named.
    """
    if len(ranking) < 2:
        return None
    criteria = [c.criterion for c in ranking[0].contributions]
    names = [b.framework for b in ranking]
    x = np.array([[c.score for c in b.contributions] for b in ranking], dtype=float)
    raw = np.array([weights[c] for c in criteria], dtype=float)
    cur = np.array([n in current for n in names])
    shares = np.array([sum(costs[n].share) / 2 if n in costs else math.nan for n in names])
    mig = np.array([c == MIGRATION for c in criteria])
    if names[int(_advised_rows(x, raw[None, :], cur, shares, mig)[0])] != now:
        return None
    highest = float(raw.max())
    grid = _weight_grid(highest if math.isfinite(highest) else WEIGHT_SCALE_MAX)
    best: tuple[float, int, float, int] | None = None  # (distance, criterion, value, framework)
    here = names.index(now)
    for k in range(len(criteria)):
        w = np.repeat(raw[None, :], grid.size, axis=0)
        w[:, k] = grid
        idx = _advised_rows(x, w, cur, shares, mig)
        # Strictly past the change: a hair nearer to the value now must give it too (at a tie nothing changes yet).
        w[:, k] = np.maximum(0.0, grid - 1e-6 * np.sign(grid - raw[k]))
        nearer = _advised_rows(x, w, cur, shares, mig)
        changed = (idx >= 0) & (idx != here) & (nearer >= 0) & (nearer != here)
        if not changed.any():
            continue
        dist = np.where(changed, np.abs(grid - raw[k]), np.inf)
        j = int(np.argmin(dist))
        if best is None or dist[j] < best[0]:
            best = (float(dist[j]), k, float(grid[j]), int(idx[j]))
    if best is None:
        return None
    _d, k, value, i = best
    decision: Literal["choose", "stay", "move"] = (
        "choose" if not current else ("stay" if names[i] in current else "move")
    )
    return AdviceChange(
        criterion=criteria[k], value_now=float(raw[k]), value=round(value, 2), framework=names[i], decision=decision
    )
