"""A profile loaded into the TUI is the profile it scores and exports: every scenario, the ranking unchanged.

The TUI's walk holds the core's own `Profile`: a loaded file is kept as read (as the Welcome screen's Load
does), each screen's edit rewrites only its own field, and the export is the profile's YAML. What a walk of
separate answers could not show (a total kLOC, keras_share, experience in a framework not used today, weights
without a preset) once came back changed: 36 of 38 scenario profiles, 31 of them ranked differently (a TPU
team's JAX became PyTorch). No app is started here: the same functions the screens call, on every scenario.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import SCENARIOS, load_scenario

from advisor.profile import load_profile_text, profile_to_json, resolve_profile
from advisor.scoring import assess
from advisor.tui import core
from advisor.tui.data.answers import answer, with_current
from advisor.tui.data.state import Settings, Walk, load_settings, save_settings

TODAY = dt.date(2026, 12, 1)


def _ranking(kb: Any, profile: Any, probe: Any, bench: Any) -> list[tuple[str, float]]:
    result = assess(kb, resolve_profile(profile, kb), probe=probe, bench=bench, today=TODAY, draws=50)
    return [(e.framework, round(e.total, 9)) for e in result.ranking]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_loaded_profile_is_scored_and_exported_unchanged(path: Path, kb: Any, tmp_path: Path) -> None:
    _, profile, probe, bench = load_scenario(path)
    walk = Walk()
    walk.profile = profile  # what `set_profile` does with a loaded file
    state = tmp_path / "state.json"
    save_settings(Settings(walk=walk), state)  # and the walk resumed next time
    resumed = load_settings(state)
    assert resumed.notes == []
    back = load_profile_text(core.profile_yaml(resumed.walk.profile), "<exported>")  # the Export step's file
    assert profile_to_json(back) == profile_to_json(profile)
    assert _ranking(kb, back, probe, bench) == _ranking(kb, profile, probe, bench)


def test_an_edited_field_is_the_users_and_the_rest_stays_the_files(kb: Any) -> None:
    path = next(p for p in SCENARIOS if p.stem == "tpu_large_scale_training")
    _, profile, _, _ = load_scenario(path)
    # The Team step changed; the weights (no preset: the rest are 0) are still the file's
    back = answer(profile, "team", "size", value=9)
    assert back.team.size == 9 and back.scenario is None and back.weights == profile.weights
    assert {k: v for k, v in profile_to_json(back).items() if k != "team"} == {
        k: v for k, v in profile_to_json(profile).items() if k != "team"}


def test_a_framework_no_longer_used_takes_what_was_said_of_it_along() -> None:
    profiles = [load_scenario(p)[1] for p in SCENARIOS]
    profile = next(p for p in profiles if len(p.team.current) > 1 and p.codebase.by_framework)
    used = [str(f) for f in profile.team.current]
    fewer = with_current(profile, used[:-1])
    assert [str(f) for f in fewer.team.current] == used[:-1] and fewer.team.size == profile.team.size
    assert used[-1] not in fewer.codebase.by_framework and used[-1] not in fewer.team.experience
    assert fewer.codebase.by_framework == {f: k for f, k in profile.codebase.by_framework.items() if f != used[-1]}


def test_a_tampered_saved_profile_loses_the_bad_value_only(kb: Any, tmp_path: Path) -> None:
    _, profile, _, _ = load_scenario(SCENARIOS[0])
    state = tmp_path / "state.json"
    save_settings(Settings(walk=Walk(profile=profile)), state)
    data = json.loads(state.read_text())
    data["walk"]["profile"].setdefault("team", {})["size"] = "many"
    state.write_text(json.dumps(data))
    tampered = load_settings(state)
    assert len(tampered.notes) == 1 and "walk.profile.team.size" in tampered.notes[0]
    assert tampered.walk.profile.team.size is None
    assert tampered.walk.profile.team.current == profile.team.current  # the answers on screen are kept
