"""Multi-criteria decision methods: the weighted sum (primary) and TOPSIS (cross-check), in NumPy.

References:
* Weighted sum (simple additive weighting): Fishburn, P. C. (1967), "Additive utilities with
  incomplete product sets", Operations Research 15(3); Triantaphyllou, E. (2000), *Multi-Criteria
  Decision Making Methods: A Comparative Study*, ch. 2.
* TOPSIS: Hwang, C.-L. & Yoon, K. (1981), *Multiple Attribute Decision Making*, Springer, ch. 3;
  vector normalisation, distance to the ideal and anti-ideal points, relative closeness.

All criteria are benefit criteria on a 0-5 scale (migration cost is scored so that a low cost is high).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def normalize_weights(weights: Sequence[float]) -> NDArray[np.float64]:
    """Weights scaled to sum to 1; raises ValueError for negative or all-zero weights."""
    w = np.asarray(weights, dtype=float)
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("weights must be finite and non-negative")
    total = w.sum()
    if total <= 0:
        raise ValueError("at least one weight must be positive")
    return w / total


def weighted_sum(matrix: NDArray[np.float64], weights: Sequence[float]) -> NDArray[np.float64]:
    """S_i = sum_j w_j x_ij with normalised weights (rows: alternatives, columns: criteria)."""
    return np.asarray(matrix, dtype=float) @ normalize_weights(weights)


def topsis(matrix: NDArray[np.float64], weights: Sequence[float]) -> NDArray[np.float64]:
    """Relative closeness C_i = d_i^- / (d_i^+ + d_i^-) in [0, 1] (Hwang & Yoon 1981), benefit criteria.

    A column of zeros normalises to zeros; an alternative equally far from both ideals (all
    alternatives identical) gets 0.5.
    """
    x = np.asarray(matrix, dtype=float)
    norms = np.sqrt((x**2).sum(axis=0))
    r = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
    v = r * normalize_weights(weights)
    ideal, anti = v.max(axis=0), v.min(axis=0)
    d_plus = np.sqrt(((v - ideal) ** 2).sum(axis=1))
    d_minus = np.sqrt(((v - anti) ** 2).sum(axis=1))
    denom = d_plus + d_minus
    return np.divide(d_minus, denom, out=np.full_like(d_minus, 0.5), where=denom > 0)


def rank_order(scores: Sequence[float], names: Sequence[str]) -> list[str]:
    """Names from best to worst score; equal scores keep the order of `names` (stable)."""
    order = sorted(range(len(names)), key=lambda i: (-float(scores[i]), i))
    return [names[i] for i in order]
