"""The MCDA core: weighted sum, TOPSIS, exact explanations (hypothesis) and exact sensitivity thresholds."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.scoring.explain import GRID, display_parts, on_grid, total_of
from advisor.scoring.mcda import normalize_weights, rank_order, topsis, weighted_sum
from advisor.scoring.sensitivity import TIE_GAP, analyse, monte_carlo, weight_thresholds

# Weights are 0 or at least 0.01: profile weights are human-sized, and tinier ones only test float conditioning.
weights = st.one_of(st.just(0.0), st.floats(min_value=0.01, max_value=10, allow_nan=False))


@st.composite
def problems(draw: st.DrawFn, min_alt: int = 2) -> tuple[np.ndarray, list[float]]:
    n = draw(st.integers(min_alt, 7))
    m = draw(st.integers(1, 10))
    x = np.array([[draw(st.floats(0, 5, allow_nan=False)) for _ in range(m)] for _ in range(n)])
    w = [draw(weights) for _ in range(m)]
    if sum(w) == 0:
        w[0] = 1.0
    return x, w


@settings(max_examples=300, deadline=None)
@given(problems())
def test_contributions_add_up_exactly_in_any_order(problem: tuple[np.ndarray, list[float]]) -> None:
    x, w = problem
    wn = normalize_weights(w)
    for row in x:
        parts = [on_grid(float(wj) * float(s)) for wj, s in zip(wn, row, strict=True)]
        total = total_of(parts)
        # Exact equality with every summation routine and order, not approximate.
        assert sum(parts) == total
        assert sum(reversed(parts)) == total
        left = 0.0
        for p in parts:
            left += p
        assert left == total
        assert float(np.sum(np.array(parts))) == total
        assert math.isclose(total, float(row @ wn), rel_tol=0, abs_tol=len(parts) * GRID)


@given(st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=12))
def test_display_rounding_keeps_the_sum(parts: list[float]) -> None:
    shown, total = display_parts(parts)
    assert round(sum(shown), 2) == total
    assert all(abs(a - b) < 0.01 + 1e-9 for a, b in zip(shown, parts, strict=True))


def test_weighted_sum_and_weight_errors() -> None:
    x = np.array([[5.0, 0.0], [2.0, 4.0]])
    assert weighted_sum(x, [1, 1]).tolist() == [2.5, 3.0]
    assert weighted_sum(x, [3, 1]).tolist() == [3.75, 2.5]
    with pytest.raises(ValueError):
        normalize_weights([0, 0])
    with pytest.raises(ValueError):
        normalize_weights([1, -1])


def _topsis_reference(x: np.ndarray, w: list[float]) -> list[float]:
    # Hwang & Yoon (1981), written out loop by loop as an independent check of the vectorised version.
    n, m = x.shape
    wn = [wj / sum(w) for wj in w]
    v = [[0.0] * m for _ in range(n)]
    for j in range(m):
        norm = math.sqrt(sum(x[i][j] ** 2 for i in range(n)))
        for i in range(n):
            v[i][j] = wn[j] * (x[i][j] / norm if norm else 0.0)
    best = [max(v[i][j] for i in range(n)) for j in range(m)]
    worst = [min(v[i][j] for i in range(n)) for j in range(m)]
    out = []
    for i in range(n):
        dp = math.sqrt(sum((v[i][j] - best[j]) ** 2 for j in range(m)))
        dm = math.sqrt(sum((v[i][j] - worst[j]) ** 2 for j in range(m)))
        out.append(dm / (dp + dm) if dp + dm else 0.5)
    return out


@settings(max_examples=200, deadline=None)
@given(problems())
def test_topsis_matches_the_textbook_formulas(problem: tuple[np.ndarray, list[float]]) -> None:
    x, w = problem
    assert topsis(x, w) == pytest.approx(_topsis_reference(x, w), abs=1e-12)


def test_topsis_ideal_anti_ideal_and_scale_invariance() -> None:
    x = np.array([[5.0, 5.0], [3.0, 1.0], [0.0, 0.0]])
    c = topsis(x, [1, 2])
    assert c[0] == 1.0 and c[2] == 0.0 and 0 < c[1] < 1
    scaled = x * np.array([10.0, 0.5])  # vector normalisation: a column's unit does not matter
    assert topsis(scaled, [1, 2]) == pytest.approx(c)
    assert topsis(np.ones((3, 2)), [1, 1]).tolist() == [0.5, 0.5, 0.5]


def test_rank_order_is_stable() -> None:
    assert rank_order([1.0, 2.0, 2.0], ["a", "b", "c"]) == ["b", "c", "a"]


@settings(max_examples=300, deadline=None)
@given(problems())
def test_threshold_is_exactly_where_the_winner_changes(problem: tuple[np.ndarray, list[float]]) -> None:
    x, w = problem
    names = [f"f{i}" for i in range(len(x))]
    criteria = [f"c{j}" for j in range(x.shape[1])]
    wn = normalize_weights(w)
    totals = x @ wn
    win = int(np.argmax(totals))
    found, none = weight_thresholds(x, w, names, criteria, win)
    assert {t.criterion for t in found} | set(none) == set(criteria)
    for t in found:
        k = criteria.index(t.criterion)
        rival = names.index(t.new_winner)

        def at(share: float, k: int = k) -> np.ndarray:
            # Set criterion k to `share` of the total, scaling the others proportionally.
            rest = 1.0 - wn[k]
            new = wn * ((1.0 - share) / rest) if rest > 0 else np.zeros_like(wn)
            new[k] = share
            return x @ new

        # At the threshold the two tie (up to rounding); a little beyond it the rival is ahead.
        tie = at(t.threshold_weight)
        assert tie[rival] == pytest.approx(tie[win], abs=1e-9)
        step = 1e-6 * (1 if t.change > 0 else -1)
        beyond = min(max(t.threshold_weight + step, 0.0), 1.0)
        after = at(beyond)
        if abs(t.change) > 2e-6 and 0 < beyond < 1:
            assert after[rival] > after[win] - 1e-12
            # And no smaller change of this weight helps any rival: halfway there the winner still leads.
            half = at(wn[k] + t.change / 2)
            assert half[win] >= half.max() - 1e-9


def test_no_threshold_when_the_winner_dominates() -> None:
    x = np.array([[5.0, 5.0], [1.0, 1.0]])
    found, none = weight_thresholds(x, [1, 1], ["a", "b"], ["c1", "c2"])
    assert found == [] and none == ["c1", "c2"]


def test_monte_carlo_is_seeded_and_reproducible() -> None:
    x = np.array([[4.0, 2.0, 3.0], [3.0, 4.0, 2.5], [1.0, 1.0, 5.0]])
    a, ra = monte_carlo(x, [1, 1, 1], draws=500, seed=7)
    b, rb = monte_carlo(x, [1, 1, 1], draws=500, seed=7)
    c, _ = monte_carlo(x, [1, 1, 1], draws=500, seed=8)
    assert (a == b).all() and (ra == rb).all() and not (a == c).all()
    assert set(np.unique(ra)) == {0, 1, 2}


def test_identical_alternatives_are_a_statistical_tie() -> None:
    x = np.array([[4.0, 3.0], [4.0, 3.0], [1.0, 1.0]])
    s = analyse(x, [1, 1], ["a", "b", "c"], ["c1", "c2"], draws=300)
    assert s.verdict == "tie" and s.tied_with == ["b"]


def test_close_totals_are_a_tie_and_clear_leads_are_clear() -> None:
    near = np.array([[4.0, 3.0], [3.0, 3.9]])  # a leads by 0.05 at equal weights; perturbations flip it often
    s = analyse(near, [1, 1], ["a", "b"], ["c1", "c2"], draws=300)
    assert s.winner == "a" and s.gap == pytest.approx(0.05) and s.verdict == "tie"
    assert s.monte_carlo.win_share["b"] >= 0.2
    far = np.array([[5.0, 5.0], [1.0, 2.0]])
    s = analyse(far, [1, 1], ["a", "b"], ["c1", "c2"], draws=300)
    assert s.verdict == "clear" and s.monte_carlo.win_share["a"] == 1.0 and s.tied_with == []
    gap = np.array([[3.0, 3.0], [3.0, 2.9]])  # lead 0.05 < TIE_GAP even though a always wins
    assert 0.05 < TIE_GAP
    s = analyse(gap, [1, 1], ["a", "b"], ["c1", "c2"], draws=300)
    assert s.monte_carlo.win_share["a"] == 1.0 and s.verdict == "tie"


def test_single_candidate() -> None:
    s = analyse(np.array([[3.0, 2.0]]), [1, 1], ["a"], ["c1", "c2"])
    assert s.verdict == "single" and s.runner_up is None


@pytest.mark.parametrize("tiny", [5e-324, 1e-320, 1e-310])
def test_a_weight_near_the_smallest_float_has_no_overflowing_factor(tiny: float) -> None:
    """(w + d) / w overflowed to inf with a RuntimeWarning; such a factor is unbounded, as for a zero weight."""
    x = np.array([[5.0, 1.0], [1.0, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found, _none = weight_thresholds(x, [tiny, 1.0], ["a", "b"], ["c1", "c2"])
    for t in found:
        assert t.raw_factor is None or math.isfinite(t.raw_factor)
        assert math.isfinite(t.threshold_weight) and 0 <= t.threshold_weight <= 1
