"""A profile loaded into the TUI is the profile it scores and exports: every scenario, the ranking unchanged.

The TUI keeps its answers in a `Walk`; a loaded profile is read into it (`apply_profile`, as the Welcome
screen's Load does) and turned back into the core's `Profile` for scoring and export (`walk_profile`). What
the walk cannot show (a total kLOC, keras_share, experience in a framework not used today, weights without a
preset) once came back changed: 36 of 38 scenario profiles, 31 of them ranked differently (a TPU team's
JAX became PyTorch). No app is started here: the same functions the screens call, on every scenario.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import SCENARIOS, load_scenario

from advisor.profile import profile_to_json, resolve_profile
from advisor.scoring import assess
from advisor.tui.data.answers import apply_profile, walk_profile
from advisor.tui.data.state import Settings, Walk, load_settings, save_settings

TODAY = dt.date(2026, 12, 1)


def _ranking(kb: Any, profile: Any, probe: Any, bench: Any) -> list[tuple[str, float]]:
    result = assess(kb, resolve_profile(profile, kb), probe=probe, bench=bench, today=TODAY, draws=50)
    return [(e.framework, round(e.total, 9)) for e in result.ranking]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_loaded_profile_is_scored_and_exported_unchanged(path: Path, kb: Any) -> None:
    _, profile, probe, bench = load_scenario(path)
    walk = Walk()
    apply_profile(walk, profile)
    back = walk_profile(walk, kb)
    assert profile_to_json(back) == profile_to_json(profile)
    assert _ranking(kb, back, probe, bench) == _ranking(kb, profile, probe, bench)


def test_an_edited_section_is_the_users_and_the_rest_stays_the_files(kb: Any) -> None:
    path = next(p for p in SCENARIOS if p.stem == "tpu_large_scale_training")
    _, profile, _, _ = load_scenario(path)
    walk = Walk()
    apply_profile(walk, profile)
    walk.team_size = 9  # the Team step changed; the weights (no preset: the rest are 0) are still the file's
    back = walk_profile(walk, kb)
    assert back.team.size == 9 and back.scenario is None and back.weights == profile.weights


def test_the_loaded_copy_survives_the_state_file_and_a_tampered_one_is_dropped(kb: Any, tmp_path: Path) -> None:
    _, profile, _, _ = load_scenario(SCENARIOS[0])
    walk = Walk()
    apply_profile(walk, profile)
    state = tmp_path / "state.json"
    save_settings(Settings(walk=walk), state)
    again = load_settings(state)
    assert again.notes == [] and dataclasses.asdict(again.walk) == dataclasses.asdict(walk)
    data = json.loads(state.read_text())
    data["walk"]["loaded"]["team"] = {"size": "many"}
    state.write_text(json.dumps(data))
    tampered = load_settings(state)
    assert tampered.walk.loaded == {} and tampered.walk.loaded_answers == {}
    assert len(tampered.notes) == 1 and "walk.loaded" in tampered.notes[0]
    assert tampered.walk.current_frameworks == walk.current_frameworks  # the answers on screen are kept
