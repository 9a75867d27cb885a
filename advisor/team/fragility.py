"""How fragile the team's answer is: which member's weights, moved how far, would change it; and without whom.

For a weights member the answer is exact: the team's weights are the mean of the members' (see
`aggregate`), so moving member m's share of criterion k by d (and renormalising m's own weights)
moves every team total linearly in d / (1 + d), and the winner W ties with a rival i at
    d = -(T_W - T_i) / ((O_W - O_i) + (x_Wk - x_ik) / n),    O = T - (member m's part of T),
the same kind of equation as the single-weight thresholds in `scoring.sensitivity`.
A pairwise member acts through the geometric-mean matrix, which is not linear in their judgements;
for them every judgement involving criterion k is multiplied by a factor f (k becomes f times as
important against every other criterion) and the smallest f in [1/9, 9] that changes the winner is
found by a log-spaced scan and bisection. Both are reported as the member's own share of k, before
and after, so that they compare.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from advisor.profile import ahp_weights
from advisor.scoring.engine import Param
from advisor.scoring.result import FrozenResult, Result
from advisor.team.aggregate import Judgement, OneVaried, team_weights
from advisor.team.members import Member

#: A member's change of one weight below this many share points that changes the answer makes it fragile.
FRAGILE_CHANGE = 0.10
#: The range a pairwise member's judgements are scaled over (Saaty's scale spans a factor of 9 either way).
MAX_FACTOR = 9.0
_SCAN = 36
_BISECT = 30


class Flip(FrozenResult):
    """The smallest change of one member's weight of one criterion that changes the team's answer."""

    member: str
    criterion: str
    how: Literal["weight", "judgements"]  # a weights member's share, or a pairwise member's judgements x factor
    from_share: float
    to_share: float
    change: float  # to_share - from_share: the signed change of the member's own share of the criterion
    factor: float | None  # judgements multiplied by this (pairwise members only)
    new_winner: str


def _flip(
    member: str, criterion: str, how: Literal["weight", "judgements"], from_share: float, to_share: float,
    factor: float | None, new_winner: str,
) -> Flip:
    return Flip(member=member, criterion=criterion, how=how, from_share=from_share, to_share=to_share,
                change=to_share - from_share, factor=factor, new_winner=new_winner)


class FragilityCode(StrEnum):
    """What the fragility finding says; `advisor.report.words` writes it from this, the fields and `names`."""

    FEWER_THAN_TWO = "fewer_than_two"  # fewer than two candidates: no answer to change
    NO_WINNER = "no_winner"  # no framework meets every member's hard constraints
    ONLY_CANDIDATE = "only_candidate"  # one candidate left by the constraints; params: winner
    FRAGILE = "fragile"  # one member alone changes the answer; params: winner, tie
    ROBUST_TO_ONE = "robust_to_one"  # no small move changes it; `flips` holds the smallest that does
    ROBUST = "robust"  # nothing one member does changes it; params: winner, tie


class Fragility(Result):
    """Who could change the team's answer alone, and how; and the answer without each member."""

    verdict: Literal["fragile", "robust", "none"]  # none: fewer than two candidates, nothing to flip
    code: FragilityCode | None = Field(default=None, description="what the finding says (since team-decision 2.1)")
    params: dict[str, Param] = Field(
        default_factory=dict, description="winner: its display name; criterion: the smallest flip's criterion's "
        "display name; tie: 1 where the team's own ranking is a statistical tie",
    )
    names: dict[str, str] = Field(
        default_factory=dict, description="framework id -> display name, for the frameworks the finding names"
    )
    fragile_below: float = FRAGILE_CHANGE
    smallest: Flip | None = None  # the first of `flips`
    flips: list[Flip] = Field(default_factory=list)  # one per member who can change the answer alone, smallest first
    unmoved: list[str] = Field(default_factory=list)  # members who cannot change it by moving any one weight
    without: dict[str, str] = Field(default_factory=dict)  # member -> the team's winner without that member


def team_weights_of(
    weight_rows: Sequence[dict[str, float]], pairwise_rows: Sequence[Sequence[Judgement]], criteria: Sequence[str]
) -> dict[str, float]:
    """The team's weights from the members' inputs (AIJ for the pairwise block, then the mean over members)."""
    return team_weights(weight_rows, pairwise_rows, criteria)[0]


def _winner(x: NDArray[np.float64], weights: dict[str, float], criteria: Sequence[str]) -> int:
    totals = x @ np.array([weights[c] for c in criteria])
    return int(np.argmax(totals))  # first of equal totals, as the ranking's stable sort


def _weight_flip(
    x: NDArray[np.float64], team: dict[str, float], member: Member, n: int, criteria: Sequence[str], win: int
) -> list[tuple[float, str, int]]:
    v = np.array([member.weights[c] for c in criteria])
    w = np.array([team[c] for c in criteria])
    totals, own = x @ w, x @ v
    other = totals - own / n
    out: list[tuple[float, str, int]] = []
    for k, cid in enumerate(criteria):
        best: tuple[float, int] | None = None
        for i in range(x.shape[0]):
            if i == win:
                continue
            denom = (other[win] - other[i]) + (x[win, k] - x[i, k]) / n
            if abs(denom) < 1e-15:
                continue
            d = -(totals[win] - totals[i]) / denom
            if d < -v[k] or 1.0 + d <= 0 or not math.isfinite(d):
                continue
            share = (v[k] + d) / (1.0 + d)
            if abs(share - v[k]) < 1e-9:  # all of the member's weight is on k already: moving it changes nothing
                continue
            if best is None or abs(share - v[k]) < abs(best[0] - v[k]):
                best = (float(share), i)
        if best is not None:
            out.append((best[0], cid, best[1]))
    return out


def _scaled(judgements: Sequence[Judgement], cid: str, f: float) -> list[Judgement]:
    return [(a, b, x * f if a == cid else (x / f if b == cid else x)) for a, b, x in judgements]


def _pairwise_flips(
    x: NDArray[np.float64],
    weight_rows: list[dict[str, float]],
    pairwise: list[list[Judgement]],
    index: int,
    criteria: Sequence[str],
    win: int,
) -> list[tuple[float, float, str, int]]:
    """(the member's new share, factor, criterion, new winner) per criterion the member judged."""
    own = pairwise[index]
    named = sorted({c for a, b, _ in own for c in (a, b)}, key=list(criteria).index)

    varied = OneVaried(weight_rows, pairwise, index, criteria)

    def winner_at(cid: str, f: float) -> int:
        return _winner(x, varied.weights([v for _, _, v in _scaled(own, cid, f)]), criteria)

    out: list[tuple[float, float, str, int]] = []
    for cid in named:
        found: tuple[float, float, int] | None = None  # (log f, f, winner)
        for sign in (1.0, -1.0):
            prev = 0.0
            for step in range(1, _SCAN + 1):
                t = sign * math.log(MAX_FACTOR) * step / _SCAN
                if winner_at(cid, math.exp(t)) != win:
                    lo, hi = prev, t
                    for _ in range(_BISECT):
                        mid = (lo + hi) / 2
                        lo, hi = (lo, mid) if winner_at(cid, math.exp(mid)) != win else (mid, hi)
                    if found is None or abs(hi) < abs(found[0]):
                        found = (hi, math.exp(hi), winner_at(cid, math.exp(hi)))
                    break
                prev = t
        if found is not None:
            share = ahp_weights(_scaled(own, cid, found[1])).weights[cid]
            out.append((share, found[1], cid, found[2]))
    return out


def analyse_fragility(
    x: NDArray[np.float64],
    names: Sequence[str],
    criteria: Sequence[str],
    members: Sequence[Member],
    on_member: Callable[[int], None] | None = None,
) -> Fragility:
    """Which member, moving which weight how far, changes the winner of score matrix `x` (rows: `names`).

    `on_member(k)` is called as the k-th member's scan is done (a pairwise member's takes the longest).
    """
    if len(names) < 2:
        return Fragility(
            verdict="none", unmoved=[m.label for m in members], code=FragilityCode.FEWER_THAN_TWO,
        )
    weight_members = [m for m in members if m.kind == "weights"]
    pairwise_members = [m for m in members if m.kind == "pairwise"]
    weight_rows = [m.weights for m in weight_members]
    pairwise_rows = [m.judgements for m in pairwise_members]
    team = team_weights_of(weight_rows, pairwise_rows, criteria)
    win = _winner(x, team, criteria)
    n = len(members)
    flips: list[Flip] = []
    unmoved: list[str] = []
    for done, m in enumerate(members, 1):
        candidates: list[Flip] = []
        if m.kind == "weights":
            for share, cid, i in _weight_flip(x, team, m, n, criteria, win):
                candidates.append(_flip(m.label, cid, "weight", m.weights[cid], share, None, names[i]))
        else:
            idx = pairwise_members.index(m)
            for share, f, cid, i in _pairwise_flips(x, weight_rows, pairwise_rows, idx, criteria, win):
                candidates.append(_flip(m.label, cid, "judgements", m.weights[cid], share, f, names[i]))
        if candidates:
            flips.append(min(candidates, key=lambda fl: abs(fl.change)))
        else:
            unmoved.append(m.label)
        if on_member is not None:
            on_member(done)
    flips.sort(key=lambda fl: abs(fl.change))
    without: dict[str, str] = {}
    if n >= 2:
        for m in members:
            rows_w = [r.weights for r in weight_members if r is not m]
            rows_p = [r.judgements for r in pairwise_members if r is not m]
            without[m.label] = names[_winner(x, team_weights_of(rows_w, rows_p, criteria), criteria)]
    decisive = [label for label, w in without.items() if w != names[win]]
    fragile = bool(decisive) or bool(flips and abs(flips[0].change) < FRAGILE_CHANGE)
    return Fragility(verdict="fragile" if fragile else "robust", smallest=flips[0] if flips else None, flips=flips,
                     unmoved=unmoved, without=without)
