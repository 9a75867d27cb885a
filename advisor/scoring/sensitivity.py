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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.profile.resolve import WEIGHT_SCALE_MAX
from advisor.scoring.mcda import normalize_weights

TIE_SHARE = 0.20
TIE_GAP = 0.10
CLEAR_SHARE = 0.90
DEFAULT_DRAWS = 2000
DEFAULT_SPREAD = 0.20


@dataclass
class Threshold:
    """The smallest change of one criterion's weight that changes the winner."""

    criterion: str
    current_weight: float  # normalised share now
    threshold_weight: float  # normalised share at which the winner ties with `new_winner`
    change: float  # threshold_weight - current_weight (share points, signed)
    raw_factor: float | None  # multiply this criterion's raw weight by this (None: from zero)
    new_winner: str
    value_now: float = 0.0  # the weight now, on the scale the profile is written on (0-5)
    value: float = 0.0  # the weight to set there, others unchanged: rounded to 0.01 past the tie

    def to_json(self) -> dict[str, Any]:
        """JSON form for the report."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class AdviceChange:
    """The one weight, on the profile's 0-5 scale, nearest to its value now at which the advice changes.

    `value` is a multiple of 0.01 already past the tie, so typing it (What-if, a profile) reproduces the
    change; the advice there follows the stay/move rule (`scoring.decision`), not the ranking alone.
    """

    criterion: str
    value_now: float
    value: float
    framework: str  # advised at `value`
    decision: str  # "choose" (no incumbent), "stay" or "move", at `value`

    def to_json(self) -> dict[str, Any]:
        """JSON form for the report."""
        return dict(self.__dict__)


@dataclass
class Sensitivity:
    """Threshold and Monte-Carlo results, and the verdict on the winner."""

    winner: str
    runner_up: str | None
    gap: float
    thresholds: list[Threshold]  # one per criterion that can change the winner, smallest change first
    no_threshold: list[str]  # criteria whose weight alone cannot change the winner
    draws: int
    spread: float
    seed: int
    win_share: dict[str, float]
    mean_rank: dict[str, float]
    gap_quantiles: dict[str, float]  # p5/p50/p95 of winner minus runner-up under perturbation
    verdict: str  # "clear", "likely", "tie" or "single" (only one candidate)
    tied_with: list[str] = field(default_factory=list)
    advice_change: AdviceChange | None = None  # the engine sets it once the stay/move rule has been applied

    @property
    def smallest(self) -> Threshold | None:
        """The smallest single-weight change that changes the winner."""
        return self.thresholds[0] if self.thresholds else None

    def to_json(self) -> dict[str, Any]:
        """JSON form for the report."""
        return {
            "winner": self.winner,
            "runner_up": self.runner_up,
            "gap": self.gap,
            "verdict": self.verdict,
            "tied_with": list(self.tied_with),
            "smallest_change": self.smallest.to_json() if self.smallest else None,
            "thresholds": [t.to_json() for t in self.thresholds],
            "no_threshold": list(self.no_threshold),
            "advice_change": self.advice_change.to_json() if self.advice_change else None,
            "monte_carlo": {
                "draws": self.draws,
                "spread": self.spread,
                "seed": self.seed,
                "win_share": self.win_share,
                "mean_rank": self.mean_rank,
                "gap_quantiles": self.gap_quantiles,
            },
            "method": {"tie_share": TIE_SHARE, "tie_gap": TIE_GAP, "clear_share": CLEAR_SHARE},
        }


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
            Threshold(cid, float(w[k]), float(new), float(new - w[k]), factor, names[i], float(raw[k]), value)
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
            names[0], None, 0.0, [], list(criteria), 0, spread, seed, {names[0]: 1.0}, {names[0]: 1.0}, {}, "single"
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
    if tied:
        verdict = "tie"
    elif share[names[win]] >= CLEAR_SHARE:
        verdict = "clear"
    else:
        verdict = "likely"
    return Sensitivity(
        names[win], names[second], gap, thresholds, none, draws, spread, seed, share, mean_rank, quant, verdict, tied
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
