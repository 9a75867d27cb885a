"""Group aggregation against hand-computed figures: AIJ (geometric mean + principal eigenvector), AIP, Kendall's W."""

from __future__ import annotations

import math

import numpy as np
import pytest

from advisor.team.aggregate import aij, aip, combine, geometric_mean_judgements, kendall_w, ranks_of

# Two members judge three criteria a, b, c (Saaty's scale), as the upper triangles of their matrices:
#   member 1: a/b = 2, a/c = 4, b/c = 2   (consistent: weights 4/7, 2/7, 1/7)
#   member 2: a/b = 8, a/c = 1, b/c = 2   (inconsistent)
# Element-wise geometric mean: a/b = sqrt(2*8) = 4, a/c = sqrt(4*1) = 2, b/c = sqrt(2*2) = 2, so
#   G = [[1, 4, 2], [1/4, 1, 2], [1/2, 1/2, 1]].
# For a 3x3 reciprocal matrix the principal eigenvector equals the normalised row geometric means:
#   rows: (1*4*2)^(1/3) = 2, (1/4*1*2)^(1/3) = 2^(-1/3), (1/2*1/2*1)^(1/3) = 2^(-2/3).
# and lambda_max = 1 + t + 1/t with t = (g_ab * g_bc / g_ac)^(1/3) = 4^(1/3), so
#   lambda_max = 1 + 4^(1/3) + 4^(-1/3) = 3.21736, CI = (lambda_max - 3) / 2 = 0.10868,
#   CR = CI / RI(3) = CI / 0.58 = 0.18738 (Saaty: above 0.10, the pair of members disagree).
MEMBER_1 = [("a", "b", 2.0), ("a", "c", 4.0), ("b", "c", 2.0)]
MEMBER_2 = [("a", "b", 8.0), ("a", "c", 1.0), ("b", "c", 2.0)]
ROWS = (2.0, 2 ** (-1 / 3), 2 ** (-2 / 3))
EXPECTED = {c: r / sum(ROWS) for c, r in zip("abc", ROWS, strict=True)}  # 0.58417, 0.23183, 0.18400
LAMBDA = 1 + 4 ** (1 / 3) + 4 ** (-1 / 3)


def test_geometric_mean_of_two_members_matrices() -> None:
    group = dict(((a, b), x) for a, b, x in geometric_mean_judgements([MEMBER_1, MEMBER_2]))
    assert group == pytest.approx({("a", "b"): 4.0, ("a", "c"): 2.0, ("b", "c"): 2.0})


def test_aij_weights_are_the_principal_eigenvector_computed_by_hand() -> None:
    result = aij([MEMBER_1, MEMBER_2])
    assert result.weights == pytest.approx(EXPECTED, abs=1e-9)
    assert result.weights == pytest.approx({"a": 0.58417, "b": 0.23183, "c": 0.18400}, abs=5e-6)
    assert result.lambda_max == pytest.approx(LAMBDA, abs=1e-9)
    assert result.lambda_max == pytest.approx(3.21736, abs=5e-6)
    assert result.consistency_index == pytest.approx((LAMBDA - 3) / 2, abs=1e-9)
    assert result.consistency_ratio == pytest.approx(0.18738, abs=5e-5)
    assert result.missing_pairs == 0


def test_reversed_orientation_is_the_same_judgement() -> None:
    flipped = [("b", "a", 1 / 8), ("c", "a", 1.0), ("c", "b", 1 / 2)]  # member 2, written the other way round
    assert aij([MEMBER_1, flipped]).weights == pytest.approx(EXPECTED, abs=1e-9)


def test_a_consistent_member_alone_keeps_their_weights() -> None:
    assert aij([MEMBER_1]).weights == pytest.approx({"a": 4 / 7, "b": 2 / 7, "c": 1 / 7}, abs=1e-9)
    assert aij([MEMBER_1]).consistency_ratio == pytest.approx(0.0, abs=1e-9)


def test_aip_is_the_mean_of_normalised_weights_and_a_mixed_team_counts_the_block_per_member() -> None:
    criteria = ["a", "b", "c"]
    # Raw weights on different scales: (1, 1, 2) -> (1/4, 1/4, 1/2); (30, 0, 10) -> (3/4, 0, 1/4).
    assert aip([{"a": 1, "b": 1, "c": 2}, {"a": 30, "c": 10}], criteria) == pytest.approx(
        {"a": 0.5, "b": 0.125, "c": 0.375}
    )
    # Two pairwise members (the AIJ block above) and one weights member (1/4, 1/4, 1/2): (2 * AIJ + w) / 3.
    team = combine(aij([MEMBER_1, MEMBER_2]).weights, 2, [{"a": 1, "b": 1, "c": 2}], criteria)
    hand = {c: (2 * EXPECTED[c] + w) / 3 for c, w in zip(criteria, (0.25, 0.25, 0.5), strict=True)}
    assert team == pytest.approx(hand, abs=1e-12)
    assert math.fsum(team.values()) == pytest.approx(1.0)


def test_kendall_w_hand_computed() -> None:
    # Three members rank three frameworks: rank sums 4, 6, 8; mean 6; S = 4 + 0 + 4 = 8;
    # W = 12 S / (m^2 (n^3 - n)) = 96 / (9 * 24) = 4/9.
    assert kendall_w([[1, 2, 3], [1, 3, 2], [2, 1, 3]]) == pytest.approx(4 / 9)
    # Ties: member 2 ties the first two. Sums 2.5, 3.5, 6; mean 4; S = 6.5; T = 2^3 - 2 = 6;
    # W = 12 * 6.5 / (4 * 24 - 2 * 6) = 78 / 84 = 13/14.
    assert kendall_w([[1, 2, 3], [1.5, 1.5, 3]]) == pytest.approx(13 / 14)
    assert kendall_w([[1, 2, 3], [1, 2, 3]]) == pytest.approx(1.0)
    assert kendall_w([[1, 2], [2, 1]]) == pytest.approx(0.0)
    assert kendall_w([[1, 2, 3]]) is None  # one member: no concordance to measure
    assert kendall_w([[1.5, 1.5], [1.5, 1.5]]) is None  # everything tied: undefined


def test_ranks_of_scores_share_places_on_ties() -> None:
    assert list(ranks_of([4.0, 3.0, 4.0, 1.0])) == [1.5, 3.0, 1.5, 4.0]
    assert list(ranks_of(np.array([1.0, 2.0, 3.0]))) == [3.0, 2.0, 1.0]
