"""Migration for teams with no framework yet, and for teams with several: no move is free, none is counted twice."""

from __future__ import annotations

from advisor.profile import load_profile_text, resolve_profile
from advisor.report.models import worded_recommendation
from advisor.scoring.engine import assess
from advisor.scoring.steps import StepCode


def _assess(kb, text: str):  # type: ignore[no-untyped-def]
    return assess(kb, resolve_profile(load_profile_text(text), kb), draws=200)


def _migration(a, fw: str):  # type: ignore[no-untyped-def]
    b = next(b for b in a.ranking if b.framework == fw)
    return next(c for c in b.contributions if c.criterion == "migration_cost")


def test_greenfield_migration_does_not_rank_frameworks(kb) -> None:  # type: ignore[no-untyped-def]
    a = _assess(kb, "scenario: research_prototyping\nteam: {current: []}\n")
    scores = {b.framework: _migration(a, b.framework).score for b in a.ranking}
    assert set(scores.values()) == {5.0}, scores
    assert a.break_even is None and not a.migration


def test_a_second_incumbent_must_be_ported_to_settle_on_the_first(kb) -> None:  # type: ignore[no-untyped-def]
    text = "team: {current: [pytorch, tensorflow], size: 4}\ncodebase: {by_framework: {pytorch: 40, tensorflow: 12}}\n"
    a = _assess(kb, text)
    torch_mig = _migration(a, "pytorch")
    assert torch_mig.score < 5.0 and "tensorflow -> pytorch" in torch_mig.evidence
    assert a.migration["pytorch"].pairs[0].kloc == (12.0, 12.0)  # only TensorFlow's code moves
    tf_mig = _migration(a, "tensorflow")
    assert a.migration["tensorflow"].pairs[0].kloc == (40.0, 40.0) and tf_mig.score < torch_mig.score
    # A framework the team does not use ports both code bases.
    assert {p.source for p in a.migration["jax"].pairs} == {"pytorch", "tensorflow"}
    # Staying is costed too: its value is less than the incumbent's benefit, and the advice says what moves.
    gap = a.break_even
    assert gap is not None and gap.stay_cost is not None and gap.value_stay is not None
    assert gap.value_stay < gap.benefit_incumbent
    if a.ranking[0].framework in ("pytorch", "tensorflow"):
        assert any(s.code is StepCode.SETTLE for s in a.recommendation.steps)
        assert any("to be ported" in s for s in worded_recommendation(a.recommendation).next_steps)


def test_a_single_incumbent_stays_free(kb) -> None:  # type: ignore[no-untyped-def]
    a = _assess(kb, "team: {current: [pytorch], size: 4}\ncodebase: {kloc: 50}\n")
    assert _migration(a, "pytorch").score == 5.0
    assert a.break_even is not None and a.break_even.stay_cost is None and a.break_even.value_stay is None
