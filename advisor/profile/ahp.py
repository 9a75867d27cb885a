"""Weights from pairwise judgements: Saaty's eigenvector method, with Harker's method for missing pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

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


@dataclass(frozen=True)
class AhpLayout:
    """Where each judgement goes in the comparison matrix: the part of `ahp_weights` that does not read the values.

    Built once and solved many times when only the values change (the team's fragility scan varies one member's
    judgements hundreds of times over the same pairs).
    """

    names: tuple[str, ...]
    rows: NDArray[np.intp]  # judgement k sets matrix[rows[k], cols[k]] = x_k and matrix[cols[k], rows[k]] = 1 / x_k
    cols: NDArray[np.intp]
    missing: NDArray[np.intp]  # per row, the judgements not given (Harker's diagonal is 1 + this)


def ahp_layout(pairs: Sequence[tuple[str, str]]) -> AhpLayout:
    """The matrix layout of judgements on `pairs`; ValueError on a pair compared with itself, given twice, or apart."""
    names: list[str] = []
    for a, b in pairs:
        for c in (a, b):
            if c not in names:
                names.append(c)
    n = len(names)
    idx = {c: i for i, c in enumerate(names)}
    given = np.eye(n, dtype=bool)
    rows, cols = [], []
    for a, b in pairs:
        i, j = idx[a], idx[b]
        if i == j:
            raise ValueError(f"criterion {a!r} compared with itself")
        if given[i, j]:
            raise ValueError(f"the pair {a!r}/{b!r} is judged more than once")
        given[i, j] = given[j, i] = True
        rows.append(i)
        cols.append(j)
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
    return AhpLayout(tuple(names), np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp),
                     (~given).sum(axis=1))


def ahp_solve(layout: AhpLayout, values: Sequence[float]) -> AhpResult:
    """The principal-eigenvector weights and consistency of the judgements `values`, in `layout`'s order."""
    n = len(layout.names)
    matrix = np.zeros((n, n))
    matrix[layout.rows, layout.cols] = values
    matrix[layout.cols, layout.rows] = [1.0 / v for v in values]
    np.fill_diagonal(matrix, 1.0 + layout.missing)
    values_, vectors = np.linalg.eig(matrix)
    k = int(np.argmax(values_.real))
    vec = np.abs(vectors[:, k].real)
    vec = vec / vec.sum()
    lam = float(values_[k].real)
    ci = (lam - n) / (n - 1) if n > 1 else 0.0
    ri = RANDOM_INDEX[n] if n < len(RANDOM_INDEX) else RANDOM_INDEX[-1]
    cr = ci / ri if ri > 0 else None
    return AhpResult(
        weights={c: float(v) for c, v in zip(layout.names, vec, strict=True)},
        lambda_max=lam,
        consistency_index=ci,
        consistency_ratio=cr,
        missing_pairs=int(layout.missing.sum() // 2),
    )


def ahp_weights(judgements: Sequence[tuple[str, str, float]]) -> AhpResult:
    """Principal-eigenvector weights of a (possibly incomplete) pairwise comparison matrix.

    Saaty (1980) for the complete case; Harker (1987) for missing judgements: an absent a_ij is
    set to 0 and a_ii to 1 + the number of absent entries in row i, which keeps the eigenvector
    the least-distorted completion. Raises ValueError on contradictions (a pair given twice) or
    when the judgements do not connect all criteria.
    """
    return ahp_solve(ahp_layout([(a, b) for a, b, _ in judgements]), [x for _, _, x in judgements])
