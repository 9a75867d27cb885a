"""Migration as a cost: engineer-month ranges from kLOC, difficulty, experience and team size; stay or move."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from _scoring_support import load_small_kb
from hypothesis import given
from hypothesis import strategies as st

from advisor.knowledge.schema import Cost
from advisor.profile import Experience, load_profile_text, resolve_profile
from advisor.report.models import worded_recommendation
from advisor.report.words import break_even_statement
from advisor.scoring import assess
from advisor.scoring.migration import AAF_RANGE, COCOMO_A, COCOMO_E, LTEX, cost_score, move_cost, share_for_score
from advisor.scoring.steps import StepCode


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    return load_small_kb()


def _cost(kb, text: str, to: str = "jax"):  # type: ignore[no-untyped-def]
    return move_cost(kb, to, load_profile_text(text))


def test_effort_is_the_cocomo_equation_with_the_pair_difficulty(small) -> None:  # type: ignore[no-untyped-def]
    cost = _cost(small, "team: {current: [pytorch], size: 5}\ncodebase: {kloc: 40}\n")
    assert cost is not None and len(cost.pairs) == 1
    difficulty = small.migrations[("pytorch", "jax")].cost
    lo_aaf, hi_aaf = AAF_RANGE[difficulty]
    ltex = LTEX[Experience.NONE]  # the team has no stated experience with JAX
    assert cost.pairs[0].ltex == ltex
    assert cost.effort[0] == pytest.approx(COCOMO_A * (40 * lo_aaf) ** COCOMO_E * ltex)
    assert cost.effort[1] == pytest.approx(COCOMO_A * (40 * hi_aaf) ** COCOMO_E * ltex)
    assert cost.effort[0] < cost.effort[1]
    assert cost.share == pytest.approx((cost.effort[0] / 120, cost.effort[1] / 120))
    assert cost.score == pytest.approx(5 * math.exp(-(cost.share[0] + cost.share[1]) / 2))


def test_a_larger_codebase_always_costs_more(small) -> None:  # type: ignore[no-untyped-def]
    # The old size classes capped the cost: 500 kLOC cost what 101 kLOC did. Effort now grows without a cap.
    scores = [
        _cost(small, f"team: {{current: [pytorch], size: 6}}\ncodebase: {{kloc: {k}}}\n").score  # type: ignore[union-attr]
        for k in (5, 60, 101, 500, 5000)
    ]
    assert all(a > b for a, b in zip(scores, scores[1:], strict=False))


def test_team_size_and_experience_lower_the_cost(small) -> None:  # type: ignore[no-untyped-def]
    few = _cost(small, "team: {current: [pytorch], size: 2}\ncodebase: {kloc: 30}\n")
    many = _cost(small, "team: {current: [pytorch], size: 20}\ncodebase: {kloc: 30}\n")
    assert few is not None and many is not None
    assert few.effort == many.effort and many.score > few.score  # same work, a larger share of a small team
    novice = _cost(small, "team: {current: [pytorch], size: 5, experience: {jax: none}}\ncodebase: {kloc: 30}\n")
    expert = _cost(small, "team: {current: [pytorch], size: 5, experience: {jax: expert}}\ncodebase: {kloc: 30}\n")
    assert novice is not None and expert is not None
    assert expert.effort[1] < novice.effort[1]
    unknown = _cost(small, "team: {current: [pytorch]}\ncodebase: {kloc: 30}\n")
    assert unknown is not None and unknown.team_size_assumed and unknown.team_size == 1


def test_kloc_per_incumbent_framework(small) -> None:  # type: ignore[no-untyped-def]
    text = "team: {current: [pytorch, tensorflow], size: 5}\ncodebase: {by_framework: {pytorch: 50, tensorflow: 5}}\n"
    cost = _cost(small, text)
    assert cost is not None
    by = {p.source: p for p in cost.pairs}
    assert by["pytorch"].kloc == (50, 50) and by["tensorflow"].kloc == (5, 5)
    assert cost.effort[0] == pytest.approx(by["pytorch"].effort[0] + by["tensorflow"].effort[0])


@given(st.floats(min_value=0.0, max_value=50.0))
def test_cost_score_and_its_inverse(share: float) -> None:
    assert share_for_score(cost_score(share)) == pytest.approx(share, abs=1e-9)


def test_break_even_kloc_reproduces_the_share(small) -> None:  # type: ignore[no-untyped-def]
    cost = _cost(small, "team: {current: [pytorch], size: 4}\ncodebase: {kloc: 80}\n")
    assert cost is not None
    k = cost.kloc_for_share(0.25)
    assert k is not None
    again = _cost(small, f"team: {{current: [pytorch], size: 4}}\ncodebase: {{kloc: {k}}}\n")
    assert again is not None
    assert (again.share[0] + again.share[1]) / 2 == pytest.approx(0.25, rel=1e-9)


def test_stay_is_the_default_and_the_break_even_is_stated(small) -> None:  # type: ignore[no-untyped-def]
    # A TensorFlow team with a large codebase: the ranking's leader (if not TensorFlow) must pay for the move.
    text = "team: {current: [tensorflow], size: 4, experience: {tensorflow: expert}}\ncodebase: {kloc: 200}\n"
    r = resolve_profile(load_profile_text(text), small)
    a = assess(small, r, today=dt.date(2026, 12, 1), seed=0)
    gap = a.break_even
    assert gap is not None and gap.incumbent == "tensorflow"
    assert gap.lead == pytest.approx(
        next(b.total for b in a.ranking if b.framework == gap.challenger)
        - next(b.total for b in a.ranking if b.framework == "tensorflow")
    )
    assert gap.capacity_share is not None
    assert gap.value_move == pytest.approx(max(0.0, 1 - gap.capacity_share) * gap.benefit_challenger)
    assert "engineer-months" in break_even_statement(gap)
    if not gap.pays:
        assert a.recommendation.framework == "tensorflow" and a.recommendation.decision == "stay"
        said = worded_recommendation(a.recommendation)
        assert said.break_even_at is not None and a.recommendation.steps[said.break_even_at].code is StepCode.BREAK_EVEN
        assert said.next_steps[said.break_even_at] == break_even_statement(gap)


def test_a_cheap_move_with_a_large_gain_pays(small) -> None:  # type: ignore[no-untyped-def]
    # A tiny codebase, a large team and a profile that values what the challenger is good at: the move pays.
    text = (
        "team: {current: [tensorflow], size: 20}\ncodebase: {kloc: 1}\n"
        "weights: {ecosystem: 5, developer_experience: 5, community: 5, migration_cost: 1}\n"
    )
    r = resolve_profile(load_profile_text(text), small)
    a = assess(small, r, today=dt.date(2026, 12, 1), seed=0)
    assert a.break_even is not None
    if a.ranking[0].framework != "tensorflow" and a.break_even.lead >= 0.1 and a.recommendation.verdict != "tie":
        assert a.break_even.pays and a.recommendation.decision == "move"
        assert a.recommendation.framework == a.ranking[0].framework
    assert Cost.MEDIUM in AAF_RANGE
