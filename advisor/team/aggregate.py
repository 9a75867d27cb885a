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
from advisor.profile.ahp import ahp_layout, ahp_solve

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


class OneVaried:
    """`team_weights` of a team in which one pairwise member's judgement values vary and everything else stays.

    The fragility scan asks for the team's weights hundreds of times per member with only that member's
    values changed. The other members' pooled logarithms, the group matrix's layout and the weight rows'
    normalised shares are worked out once here; each call redoes the varied member's pairs and the
    eigenvector. The figures are `team_weights`'s own, term for term, and `math.fsum` is exactly rounded
    (the order of its terms cannot change its result), so they are the same to the last bit.
    """

    def __init__(
        self,
        weight_rows: Sequence[Mapping[str, float]],
        pairwise_rows: Sequence[Sequence[Judgement]],
        index: int,
        criteria: Sequence[str],
    ) -> None:
        self.criteria = list(criteria)
        self.pairs = [(a, b) for a, b, _ in pairwise_rows[index]]
        # The group's pairs in first-seen order, and which way round each of the member's judgements
        # enters them: as `geometric_mean_judgements` decides, which reads only the names.
        logs: dict[tuple[str, str], list[float]] = {}
        self.slots: list[tuple[tuple[str, str], bool]] = []
        for m, judgements in enumerate(pairwise_rows):
            for a, b, x in judgements:
                flipped = (b, a) in logs
                key = (b, a) if flipped else (a, b)
                pooled = logs.setdefault(key, [])
                if m == index:
                    self.slots.append((key, flipped))
                else:
                    pooled.append(-math.log(x) if flipped else math.log(x))
        self.keys = list(logs)
        self.others = logs
        varied = {key for key, _ in self.slots}
        self.fixed = {k: math.exp(math.fsum(v) / len(v)) for k, v in logs.items() if k not in varied}
        individuals = [normalized({c: w.get(c, 0.0) for c in criteria}) for w in weight_rows]
        try:
            self.layout = ahp_layout(self.keys)
            self.block_size: float | None = float(len(pairwise_rows))
            self.count = math.fsum([*(1.0 for _ in individuals), self.block_size])
        except ValueError:  # no group matrix: each pairwise member's own weights join the mean (`team_weights`)
            self.layout = ahp_layout(self.pairs)
            self.block_size = None
            own = [ahp_weights(r).weights for i, r in enumerate(pairwise_rows) if i != index]
            individuals += [normalized({c: w.get(c, 0.0) for c in criteria}) for w in own]
            self.count = math.fsum(1.0 for _ in range(len(individuals) + 1))
        self.terms = {c: [r[c] for r in individuals] for c in criteria}

    def weights(self, values: Sequence[float]) -> dict[str, float]:
        """The team's weights with the member's judgement values (on the same pairs, in order) set to `values`."""
        if self.block_size is None:
            own = ahp_solve(self.layout, values).weights
            row = normalized({c: own.get(c, 0.0) for c in self.criteria})
            return {c: math.fsum([*self.terms[c], row[c]]) / self.count for c in self.criteria}
        pooled: dict[tuple[str, str], list[float]] = {}
        for (key, flipped), x in zip(self.slots, values, strict=True):
            pooled.setdefault(key, list(self.others[key])).append(-math.log(x) if flipped else math.log(x))
        group = [
            self.fixed[k] if k in self.fixed else math.exp(math.fsum(pooled[k]) / len(pooled[k])) for k in self.keys
        ]
        block = ahp_solve(self.layout, group).weights
        row = normalized({c: block.get(c, 0.0) for c in self.criteria})
        n = self.block_size
        return {c: math.fsum([*self.terms[c], n * row[c]]) / self.count for c in self.criteria}


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
