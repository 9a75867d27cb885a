"""Group aggregation (Forman & Peniwati 1998) and Kendall's coefficient of concordance: pure arithmetic, no I/O.

* AIJ, aggregation of individual judgements: the pairwise members act as one unit; each entry of
  the group matrix is the geometric mean of the members' entries for that pair (the only mean that
  keeps the matrix reciprocal: gm(1/x) = 1/gm(x)). The group's weights are the principal
  eigenvector of that matrix (Saaty 1980), with Harker's completion where nobody judged a pair.
* AIP, aggregation of individual priorities: the weight members act as separate individuals; the
  team's weights are the arithmetic mean of their normalised weights. The weighted sum is linear
  in the weights, so each framework's team total is then the mean of the members' totals, and a
  framework every member prefers to another stays ahead (the Pareto principle).
* A mixed team: the AIJ weights stand for the pairwise members as a block, counted once per
  member in that same arithmetic mean.
* Kendall's coefficient of concordance W (Kendall, *Rank Correlation Methods*), tie-corrected:
  W = 12 S / (m^2 (n^3 - n) - m sum T), S the squared deviations of the rank sums from their mean,
  T = sum (t^3 - t) over each member's groups of tied ranks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from advisor.profile import AhpResult, ahp_weights

Judgement = tuple[str, str, float]


def normalized(weights: Mapping[str, float]) -> dict[str, float]:
    """`weights` scaled to sum to 1 (ValueError when none is positive)."""
    total = math.fsum(weights.values())
    if not total > 0:
        raise ValueError("at least one weight must be positive")
    return {k: v / total for k, v in weights.items()}


def geometric_mean_judgements(members: Sequence[Sequence[Judgement]]) -> list[Judgement]:
    """The group's judgements: per pair, the geometric mean over the members who judged that pair.

    Each member's [a, b, x] and [b, a, 1/x] are the same judgement; the result keeps the first
    orientation seen. A pair no member judged stays absent (Harker's method fills it in).
    """
    logs: dict[tuple[str, str], list[float]] = {}
    for judgements in members:
        for a, b, x in judgements:
            if (b, a) in logs:
                logs[(b, a)].append(-math.log(x))
            else:
                logs.setdefault((a, b), []).append(math.log(x))
    return [(a, b, math.exp(math.fsum(v) / len(v))) for (a, b), v in logs.items()]


def aij(members: Sequence[Sequence[Judgement]]) -> AhpResult:
    """AIJ: the principal-eigenvector weights and consistency of the element-wise geometric-mean matrix."""
    return ahp_weights(geometric_mean_judgements(members))


def aip(members: Sequence[Mapping[str, float]], criteria: Sequence[str]) -> dict[str, float]:
    """AIP: the arithmetic mean of the members' normalised weights over `criteria`."""
    rows = [normalized({c: float(w.get(c, 0.0)) for c in criteria}) for w in members]
    return {c: math.fsum(r[c] for r in rows) / len(rows) for c in criteria}


def combine(
    block: Mapping[str, float] | None,
    block_size: int,
    individuals: Sequence[Mapping[str, float]],
    criteria: Sequence[str],
) -> dict[str, float]:
    """Team weights: the mean over members, the AIJ block (normalised) counted `block_size` times."""
    rows: list[tuple[float, dict[str, float]]] = [
        (1.0, normalized({c: w.get(c, 0.0) for c in criteria})) for w in individuals
    ]
    if block is not None and block_size > 0:
        rows.append((float(block_size), normalized({c: block.get(c, 0.0) for c in criteria})))
    count = math.fsum(n for n, _ in rows)
    return {c: math.fsum(n * r[c] for n, r in rows) / count for c in criteria}


def team_weights(
    weight_rows: Sequence[Mapping[str, float]], pairwise_rows: Sequence[Sequence[Judgement]], criteria: Sequence[str]
) -> tuple[dict[str, float], AhpResult | None]:
    """The team's weights (AIJ block + AIP mean) and the AIJ result (None where there is no block).

    Where the pairwise members' judgements, pooled, do not link every criterion they name (two
    members judged disjoint sets), no group matrix exists: each pairwise member's own eigenvector
    weights then join the AIP mean as individuals.
    """
    if not pairwise_rows:
        return combine(None, 0, weight_rows, criteria), None
    try:
        group = aij(pairwise_rows)
    except ValueError:
        own = [ahp_weights(r).weights for r in pairwise_rows]
        return combine(None, 0, [*weight_rows, *own], criteria), None
    return combine(group.weights, len(pairwise_rows), weight_rows, criteria), group


def ranks_of(scores: Sequence[float]) -> NDArray[np.float64]:
    """Ranks (1 = best, highest score); tied scores share the mean of their places."""
    x = np.asarray(scores, dtype=float)
    order = np.argsort(-x, kind="stable")
    ranks = np.empty(len(x))
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def kendall_w(ranks: ArrayLike) -> float | None:
    """Kendall's W of `ranks` (one row per member, one column per alternative), tie-corrected.

    1 means every member ranks the alternatives the same way, 0 no agreement at all. None where it
    is undefined: fewer than two members or two alternatives, or every member ties everything.
    """
    r = np.asarray(ranks, dtype=float)
    if r.ndim != 2 or r.shape[0] < 2 or r.shape[1] < 2:
        return None
    m, n = r.shape
    sums = r.sum(axis=0)
    s = float(((sums - sums.mean()) ** 2).sum())
    ties = 0.0
    for row in r:
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts**3 - counts).sum())
    denom = m**2 * (n**3 - n) - m * ties
    return 12.0 * s / denom if denom > 0 else None
