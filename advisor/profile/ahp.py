"""Weights from pairwise judgements: Saaty's eigenvector method, with Harker's method for missing pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Saaty's random consistency index RI(n) for n = 1..15 (Saaty 1980, table 1.7).
RANDOM_INDEX = (0.0, 0.0, 0.0, 0.58, 0.90, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49, 1.51, 1.48, 1.56, 1.57, 1.59)
#: Saaty's threshold: a consistency ratio above 0.1 means the judgements should be revisited.
CR_THRESHOLD = 0.10


@dataclass(frozen=True)
class AhpResult:
    """Weights derived from pairwise judgements, with Saaty's consistency figures."""

    weights: dict[str, float]
    lambda_max: float
    consistency_index: float
    consistency_ratio: float | None  # None where n < 3 (always consistent)
    missing_pairs: int  # judgements not given (Harker's method fills them in)


def ahp_weights(judgements: Sequence[tuple[str, str, float]]) -> AhpResult:
    """Principal-eigenvector weights of a (possibly incomplete) pairwise comparison matrix.

    Saaty (1980) for the complete case; Harker (1987) for missing judgements: an absent a_ij is
    set to 0 and a_ii to 1 + the number of absent entries in row i, which keeps the eigenvector
    the least-distorted completion. Raises ValueError on contradictions (a pair given twice) or
    when the judgements do not connect all criteria.
    """
    names: list[str] = []
    for a, b, _ in judgements:
        for c in (a, b):
            if c not in names:
                names.append(c)
    n = len(names)
    idx = {c: i for i, c in enumerate(names)}
    matrix = np.zeros((n, n))
    given = np.eye(n, dtype=bool)
    for a, b, x in judgements:
        i, j = idx[a], idx[b]
        if i == j:
            raise ValueError(f"criterion {a!r} compared with itself")
        if given[i, j]:
            raise ValueError(f"the pair {a!r}/{b!r} is judged more than once")
        matrix[i, j], matrix[j, i] = x, 1.0 / x
        given[i, j] = given[j, i] = True
    missing = (~given).sum(axis=1)
    np.fill_diagonal(matrix, 1.0 + missing)
    # Connectivity: every criterion must be reachable through judgements, else weights are undefined.
    seen, stack = {0}, [0]
    while stack:
        row = stack.pop()
        for col in (int(c) for c in np.nonzero(given[row])[0]):
            if col not in seen:
                seen.add(col)
                stack.append(col)
    if len(seen) != n:
        apart = sorted(names[i] for i in range(n) if i not in seen)
        raise ValueError(f"the judgements do not link {', '.join(apart)} to the other criteria")
    values, vectors = np.linalg.eig(matrix)
    k = int(np.argmax(values.real))
    vec = np.abs(vectors[:, k].real)
    vec = vec / vec.sum()
    lam = float(values[k].real)
    ci = (lam - n) / (n - 1) if n > 1 else 0.0
    ri = RANDOM_INDEX[n] if n < len(RANDOM_INDEX) else RANDOM_INDEX[-1]
    cr = ci / ri if ri > 0 else None
    return AhpResult(
        weights={c: float(vec[idx[c]]) for c in names},
        lambda_max=lam,
        consistency_index=ci,
        consistency_ratio=cr,
        missing_pairs=int(missing.sum() // 2),
    )
