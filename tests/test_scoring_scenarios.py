"""Scenario profiles: the advisor's top choice matches what a seasoned ML engineer would advise, or is a stated tie.

Each `tests/scenarios/*.yaml` holds `expect` (the engineer's pick, why, sources), optional `evidence`
(recorded probe/bench JSON under tests/fixtures/evidence/; the fake ones say so in their names) and
`profile` (validated like any user profile, extra keys forbidden). They run against the shipped
knowledge base (what users get) and the small test pack (the method on its own).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import SCENARIOS, load_scenario, load_small_kb

from advisor.profile import resolve_profile
from advisor.scoring import assess


def test_there_are_at_least_twenty_scenarios() -> None:
    assert len(SCENARIOS) >= 20


@pytest.fixture(scope="module", params=["shipped", "kb_small"])
def any_kb(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """The shipped knowledge base and the small test pack, with their names."""
    if request.param == "kb_small":
        return "kb_small", load_small_kb()
    return "shipped", request.getfixturevalue("kb")


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_top_choice(path: Path, any_kb: tuple[str, Any], request: pytest.FixtureRequest) -> None:
    kb_name, kb = any_kb
    expect, profile, probe, bench = load_scenario(path)
    gap = expect["known_gap"].get(kb_name)
    if gap:
        # A documented disagreement (knowledge or criteria gap, reported to the lead): strict, so that the
        # day the knowledge is fixed and the advisor agrees, this test fails and the note is removed.
        request.applymarker(pytest.mark.xfail(reason=gap, strict=True))
    resolved = resolve_profile(profile, kb)
    result = assess(kb, resolved, probe=probe, bench=bench, today=dt.date(2026, 12, 1), seed=0)
    assert result.ranking, f"every framework excluded: {[e.model_dump(mode='json') for e in result.exclusions]}"
    winner = result.recommendation.framework
    accepted = {expect["top"], *expect.get("equivalent", [])}
    tie_ok = accepted | set(expect.get("also_tie", []))
    stated = {winner, *result.recommendation.tied_with}
    table = ", ".join(f"{b.framework} {b.total:.3f}" for b in result.ranking)
    if winner in accepted:
        return
    # A different winner passes only when the advisor itself declares a tie that includes the expected choice
    # (and the winner is one the engineer would also accept in a tie).
    assert result.recommendation.verdict == "tie" and winner in tie_ok and stated & accepted, (
        f"{path.stem}: advisor chose {winner} ({result.recommendation.verdict}, tied with "
        f"{result.recommendation.tied_with}); expected {expect['top']}. Ranking: {table}"
    )
