"""How stable the ranking is: exact single-weight thresholds and Monte-Carlo weight perturbation.

* Thresholds (one-at-a-time sensitivity, Triantaphyllou & Sánchez 1997, "A sensitivity analysis
  approach for some deterministic multi-criteria decision-making methods", Decision Sciences 28(1)):
  with normalised weights w and scores x, changing w_k by d and renormalising gives
  S_i(d) = (A_i + d x_ik) / (1 + d), where A_i = sum_j w_j x_ij. The winner w and a rival i swap when
  d (x_ik - x_wk) = A_w - A_i: a linear equation, solved exactly for every criterion and rival.
* Monte Carlo (Butler, Jia & Dyer 1997, "Simulation techniques for the sensitivity analysis of
  multi-criteria decision models", EJOR 103): every weight is multiplied by an independent factor
  drawn uniformly from [1 - spread, 1 + spread], weights renormalised, the ranking recomputed; a
  seeded NumPy generator makes the result reproducible.
* A statistical tie is declared when a rival wins at least `TIE_SHARE` of the perturbed draws, or
  when the winner's lead is below `TIE_GAP` (a tenth of a point on the 0-5 scale: less than a
  half-point knowledge step on a criterion weighted 20%, i.e. within the knowledge base's resolution).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from advisor.profile.resolve import WEIGHT_SCALE_MAX
from advisor.scoring.mcda import normalize_weights
from advisor.scoring.result import FrozenResult, Result

TIE_SHARE = 0.20
TIE_GAP = 0.10
CLEAR_SHARE = 0.90
DEFAULT_DRAWS = 2000
DEFAULT_SPREAD = 0.20


class Threshold(Result):
    """The smallest change of one weight that changes the winner."""

    criterion: str
    current_weight: float  # normalised share now
    threshold_weight: float  # normalised share at which the winner ties with `new_winner`
    change: float  # threshold_weight - current_weight (share points, signed)
    raw_factor: float | None  # multiply this criterion's raw weight by this (None: from zero)
    new_winner: str
    value_now: float | None = Field(default=None, description="the weight now, on the profile's 0-5 scale")
    value: float | None = Field(
        default=None, description="the weight to set (others unchanged) for the winner to change; past the tie"
    )


class AdviceChange(FrozenResult):
    """The one weight, on the 0-5 scale, nearest to its value now at which the advice (stay/move/choose) changes."""

    # The advice at `value` follows the stay/move rule (`scoring.decision`), not the ranking alone.

    criterion: str
    value_now: float
    value: float = Field(description="a multiple of 0.01 past the tie: typed in What-if, it reproduces the change")
    framework: str = Field(description="the framework advised at `value`")
    decision: Literal["choose", "stay", "move"]


class MonteCarlo(Result):
    """The ranking under random weight perturbations."""

    draws: int
    spread: float
    seed: int
    win_share: dict[str, float]
    mean_rank: dict[str, float]
    gap_quantiles: dict[str, float]  # p5/p50/p95 of winner minus runner-up under perturbation


def _method() -> dict[str, float]:
    return {"tie_share": TIE_SHARE, "tie_gap": TIE_GAP, "clear_share": CLEAR_SHARE}


class Sensitivity(Result):
    """How stable the winner is."""

    winner: str
    runner_up: str | None
    gap: float
    verdict: Literal["clear", "likely", "tie", "single"]  # single: only one candidate
    tied_with: list[str]
    smallest_change: Threshold | None  # the first of `thresholds`
    thresholds: list[Threshold]  # one per criterion that can change the winner, smallest change first
    no_threshold: list[str]  # criteria whose weight alone cannot change the winner
    advice_change: AdviceChange | None = None  # the engine sets it once the stay/move rule has been applied
    monte_carlo: MonteCarlo
    method: dict[str, float] = Field(default_factory=_method)


def past(target: float, now: float) -> float:
    """`target` rounded to 0.01 away from `now`, strictly past it: at the tie itself nothing changes yet."""
    hundredths = round(target * 100, 6)
    n = math.floor(hundredths) + 1 if target >= now else math.ceil(hundredths) - 1
    return max(0.0, round(n / 100, 2))


def weight_thresholds(
    matrix: NDArray[np.float64],
    weights: Sequence[float],
    names: Sequence[str],
    criteria: Sequence[str],
    win: int | None = None,
) -> tuple[list[Threshold], list[str]]:
    """Exact smallest winner-changing change per criterion (sorted by size), and criteria with none.

    `weights` are the profile's (0-5; normalised here), so each threshold is also stated as the weight to
    set on that scale. `win` is the index of the current winner (default: the highest weighted sum).
    """
    x = np.asarray(matrix, dtype=float)
    raw = np.asarray(weights, dtype=float)
    w = normalize_weights(weights)
    totals = x @ w
    if win is None:
        win = int(np.argmax(totals))
    found: list[Threshold] = []
    none: list[str] = []
    for k, cid in enumerate(criteria):
        best: tuple[float, int] | None = None
        for i in range(len(names)):
            if i == win:
                continue
            diff = x[i, k] - x[win, k]
            if abs(diff) < 1e-12:  # no (meaningful) difference on this criterion: its weight cannot matter
                continue
            delta = (totals[win] - totals[i]) / diff
            # Weights stay non-negative and at least one other weight must remain.
            if delta < -w[k] or 1.0 + delta <= 0:
                continue
            if best is None or abs(delta) < abs(best[0]):
                best = (float(delta), i)
        if best is None:
            none.append(cid)
            continue
        delta, i = best
        new = (w[k] + delta) / (1.0 + delta)
        # The same share as a weight on the profile's scale, the others unchanged: v / (v + rest) = new.
        rest = float(raw.sum() - raw[k])
        value = past(new * rest / (1.0 - new), float(raw[k])) if new < 1.0 else math.inf
        # A weight near the smallest float (5e-324) overflows the factor: "unbounded" is None, as for a zero weight.
        with np.errstate(over="ignore", divide="ignore"):
            factor = float((w[k] + delta) / w[k]) if w[k] > 0 else None
        factor = factor if factor is not None and math.isfinite(factor) else None
        found.append(
            Threshold(
                criterion=cid, current_weight=float(w[k]), threshold_weight=float(new), change=float(new - w[k]),
                raw_factor=factor, new_winner=names[i], value_now=float(raw[k]), value=value,
            )
        )
    found.sort(key=lambda t: abs(t.change))
    return found, none


def monte_carlo(
    matrix: NDArray[np.float64],
    weights: Sequence[float],
    *,
    draws: int = DEFAULT_DRAWS,
    spread: float = DEFAULT_SPREAD,
    seed: int = 0,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Scores (draws x alternatives) and ranks (0 = best) under multiplicative weight noise."""
    x = np.asarray(matrix, dtype=float)
    w = normalize_weights(weights)
    rng = np.random.default_rng(seed)
    factors = rng.uniform(1.0 - spread, 1.0 + spread, size=(draws, w.size))
    perturbed = w * factors
    perturbed /= perturbed.sum(axis=1, keepdims=True)
    scores = perturbed @ x.T
    ranks = np.argsort(np.argsort(-scores, axis=1, kind="stable"), axis=1, kind="stable")
    return scores, ranks


def analyse(
    matrix: NDArray[np.float64],
    weights: Sequence[float],
    names: Sequence[str],
    criteria: Sequence[str],
    *,
    draws: int = DEFAULT_DRAWS,
    spread: float = DEFAULT_SPREAD,
    seed: int = 0,
    totals: Sequence[float] | None = None,
) -> Sensitivity:
    """Thresholds, Monte-Carlo shares and the verdict for the weighted-sum ranking.

    `totals` are the ranking's own totals (the explained, grid-exact ones), so that both agree on
    the winner even where two totals differ only in the last bits.
    """
    x = np.asarray(matrix, dtype=float)
    tot = np.asarray(totals, dtype=float) if totals is not None else x @ normalize_weights(weights)
    order = sorted(range(len(names)), key=lambda i: (-tot[i], i))
    win = order[0]
    if len(names) == 1:
        return Sensitivity(
            winner=names[0], runner_up=None, gap=0.0, verdict="single", tied_with=[], smallest_change=None,
            thresholds=[], no_threshold=list(criteria),
            monte_carlo=MonteCarlo(draws=0, spread=spread, seed=seed, win_share={names[0]: 1.0},
                                   mean_rank={names[0]: 1.0}, gap_quantiles={}),
        )
    second = order[1]
    gap = float(tot[win] - tot[second])
    thresholds, none = weight_thresholds(x, weights, names, criteria, win)
    scores, ranks = monte_carlo(x, weights, draws=draws, spread=spread, seed=seed)
    winners = np.argmax(scores, axis=1)
    share = {n: float(np.mean(winners == i)) for i, n in enumerate(names)}
    mean_rank = {n: float(ranks[:, i].mean() + 1) for i, n in enumerate(names)}
    gaps = scores[:, win] - scores[:, second]
    quant = {f"p{q}": float(np.percentile(gaps, q)) for q in (5, 50, 95)}
    tied = [names[i] for i in order[1:] if share[names[i]] >= TIE_SHARE or tot[win] - tot[i] < TIE_GAP]
    verdict: Literal["clear", "likely", "tie"]
    if tied:
        verdict = "tie"
    elif share[names[win]] >= CLEAR_SHARE:
        verdict = "clear"
    else:
        verdict = "likely"
    return Sensitivity(
        winner=names[win], runner_up=names[second], gap=gap, verdict=verdict, tied_with=tied,
        smallest_change=thresholds[0] if thresholds else None, thresholds=thresholds, no_threshold=none,
        monte_carlo=MonteCarlo(draws=draws, spread=spread, seed=seed, win_share=share, mean_rank=mean_rank,
                               gap_quantiles=quant),
    )


def advice_change_sentence(
    change: AdviceChange | None, names: Mapping[str, str], scale_max: float = WEIGHT_SCALE_MAX
) -> str:
    """The advice change as a person reads it and can type it; `names` maps criterion and framework ids to names."""
    if change is None:
        return f"No single weight on the 0-{scale_max:g} scale changes the advice, the others unchanged."
    fw = names.get(change.framework, change.framework)
    head = {"stay": f"Staying with {fw} is advised", "move": f"Moving to {fw} is advised"}.get(
        change.decision, f"{fw} wins"
    )
    crit = names.get(change.criterion, change.criterion)
    return f"{head} if you set {crit} to {change.value:.2f} (now {change.value_now:.2f}), others unchanged."
