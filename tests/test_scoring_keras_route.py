"""tf.keras is Keras 3 since TensorFlow 2.16: the keras3_backend route, costed, named and used by the break-even."""

from __future__ import annotations

import datetime as dt

import pytest

from advisor.knowledge import load_knowledge
from advisor.knowledge.schema import RouteCode
from advisor.profile import load_profile_text, resolve_profile
from advisor.report.models import worded_recommendation
from advisor.report.words import break_even_statement
from advisor.scoring import assess
from advisor.scoring.migration import AAF_RANGE, effort_months, move_cost

#: A TensorFlow team weighing a move; research weights put PyTorch first in the ranking.
TEAM = """\
scenario: research_prototyping
team: {{current: [tensorflow], size: 6, experience: {{tensorflow: expert, pytorch: intermediate}}}}
codebase: {{by_framework: {{tensorflow: 40}}{share}}}
"""


@pytest.fixture(scope="module")
def kb():  # type: ignore[no-untyped-def]
    return load_knowledge(include_user=False)


def _profile(share: float | None):  # type: ignore[no-untyped-def]
    return load_profile_text(TEAM.format(share="" if share is None else f", keras_share: {share}"))


def _assess(kb, share: float | None):  # type: ignore[no-untyped-def]
    return assess(kb, resolve_profile(_profile(share), kb), today=dt.date(2026, 12, 1), seed=0, draws=300)


@pytest.mark.parametrize("target", ["pytorch", "jax"])
def test_pure_keras_code_moves_at_the_route_s_cost(kb, target: str) -> None:  # type: ignore[no-untyped-def]
    entry = kb.migrations[("tensorflow", target)]
    assert entry.via is not None and entry.via.route is RouteCode.KERAS3_BACKEND and entry.via.through == "keras"
    direct = move_cost(kb, target, _profile(None))
    routed = move_cost(kb, target, _profile(0.9))
    assert direct is not None and routed is not None
    pair = routed.pairs[0]
    assert pair.route is not None and pair.route.share == 0.9 and pair.route.kloc == (36.0, 36.0)
    # The covered 36 kLOC at the route's class, the other 4 kLOC at the pair's: the same COCOMO equation.
    ltex = pair.ltex
    lo = effort_months(36, AAF_RANGE[entry.via.cost][0], ltex) + effort_months(4, AAF_RANGE[entry.cost][0], ltex)
    assert routed.effort[0] == pytest.approx(lo)
    assert routed.effort[1] < direct.effort[0]  # much lower than a rewrite, across the whole range
    assert pair.route.direct_effort == direct.effort
    # No share stated: the route is named, not costed; a share of 0 is the rewrite.
    named = direct.pairs[0].route
    assert named is not None and named.share is None and direct.pairs[0].effort == direct.effort
    zero = move_cost(kb, target, _profile(0.0))
    assert zero is not None and zero.effort == pytest.approx(direct.effort)
    # Effort falls as more of the code is pure Keras.
    efforts = [move_cost(kb, target, _profile(s)).effort[0] for s in (0.0, 0.3, 0.6, 1.0)]  # type: ignore[union-attr]
    assert efforts == sorted(efforts, reverse=True)


def test_only_the_tensorflow_pairs_have_the_route(kb) -> None:  # type: ignore[no-untyped-def]
    routed = {pair for pair, m in kb.migrations.items() if m.via is not None}
    assert routed == {("tensorflow", "pytorch"), ("tensorflow", "jax")}
    cost = move_cost(kb, "jax", load_profile_text("team: {current: [pytorch]}\ncodebase: {kloc: 40, keras_share: 1}\n"))
    assert cost is not None and cost.pairs[0].route is None


def test_the_break_even_uses_the_route_and_the_advice_names_it(kb) -> None:  # type: ignore[no-untyped-def]
    rewrite, keras = _assess(kb, None), _assess(kb, 0.9)
    assert rewrite.break_even is not None and keras.break_even is not None
    assert rewrite.break_even.challenger == keras.break_even.challenger == "pytorch"
    # The same challenger: at rewrite cost the move does not pay, by the Keras 3 route it does.
    assert rewrite.recommendation.decision == "stay" and keras.recommendation.decision == "move"
    assert keras.break_even.capacity_share is not None and rewrite.break_even.capacity_share is not None
    assert keras.break_even.capacity_share < rewrite.break_even.capacity_share
    assert keras.break_even.cost is not None and keras.break_even.cost.pairs[0].route is not None
    assert "Keras 3 on the PyTorch backend" in break_even_statement(keras.break_even)
    # Uncosted, the advice names the route and the one field that costs it.
    steps = worded_recommendation(rewrite.recommendation).next_steps
    named = [s for s in steps if "Keras 3 on the PyTorch backend" in s]
    assert named and "codebase.keras_share" in named[0]
    # The route travels as a code with its parameters.
    route = keras.migration["pytorch"].model_dump(mode="json")["pairs"][0]["route"]
    assert route["code"] == "keras3_backend" and route["share"] == 0.9 and route["backend"] == "pytorch"
