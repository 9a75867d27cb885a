"""The TUI's own files (settings, the last session's evidence) are read through the one input reader.

A FIFO, a folder or a device where the settings file should be once hung the app's start (`read_text` on a
FIFO waits for a writer), and a deeply nested file crashed it with a RecursionError. They only hold
conveniences, so anything unusable gives the defaults, at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _tui_support import make_app, settle

from advisor.tui.data.answers import answer, fresh_profile
from advisor.tui.data.state import (
    STATE_VERSION,
    Settings,
    Walk,
    evidence_path,
    load_evidence,
    load_settings,
    save_evidence,
    save_settings,
    state_path,
)


def finishes(fn: Callable[[], Any], limit_s: float = 10.0) -> Any:
    """fn() in a thread; fails (instead of hanging the suite) if it has not returned within `limit_s`."""
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(limit_s)
    assert not worker.is_alive(), f"{fn} did not return within {limit_s} s"
    return out[0]


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["fifo", "folder", "deep", "corrupt", "not_an_object", "huge"])
def test_unusable_settings_and_evidence_give_defaults_at_once(tmp_path: Path, kind: str) -> None:
    for name, load, default in (("state.json", load_settings, Settings()), ("evidence.json", load_evidence,
                                                                             (None, None))):
        path = tmp_path / kind / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "fifo":
            _fifo(path)
        elif kind == "folder":
            path.mkdir()
        elif kind == "deep":
            path.write_text("[" * 100_000 + "]" * 100_000)
        elif kind == "corrupt":
            path.write_text('{"theme": ')
        elif kind == "not_an_object":
            path.write_text("[1, 2]")
        else:
            path.write_bytes(b" " * (17 << 20) + b"{}")  # over every limit of the input reader
        assert finishes(lambda p=path, f=load: f(p)) == default


def test_settings_and_evidence_round_trip(tmp_path: Path) -> None:
    settings = Settings(theme="textual-light", last_profile="team.yaml")
    save_settings(settings, tmp_path / "state.json")
    assert load_settings(tmp_path / "state.json") == settings
    save_evidence({"schema": "p"}, {"schema": "b"}, tmp_path / "evidence.json")
    assert load_evidence(tmp_path / "evidence.json") == ({"schema": "p"}, {"schema": "b"})
    assert json.loads((tmp_path / "evidence.json").read_text()) == {"probe": {"schema": "p"}, "bench": {"schema": "b"}}


def test_the_kept_evidence_reads_back_as_the_same_models(tmp_path: Path) -> None:
    from _tui_support import recorded_evidence

    from advisor.tui import core

    probe, bench = recorded_evidence()
    save_evidence(core.evidence_json(probe), core.evidence_json(bench), tmp_path / "evidence.json")
    again, bench_again = core.saved_evidence(*load_evidence(tmp_path / "evidence.json"), file="evidence.json")
    assert again == probe and bench is not None and bench_again is not None
    # The figures come back whole; the environment passes the recorded-variable allow-list again on the way in.
    assert (bench_again.results, bench_again.failures) == (bench.results, bench.failures)
    # A file that no longer reads as evidence (another version wrote it) is as none: the user measures again.
    save_evidence({"schema": "p"}, {"schema": "b"}, tmp_path / "evidence.json")
    assert core.saved_evidence(*load_evidence(tmp_path / "evidence.json"), file="evidence.json") == (None, None)


def test_the_app_starts_with_fifos_where_its_files_should_be(kb: Any) -> None:  # type: ignore[no-untyped-def]
    """The real app on Pilot, resuming, with both of its files replaced by FIFOs nobody writes to."""
    _fifo(state_path())
    _fifo(evidence_path())

    async def body() -> None:
        app = make_app(kb, resume=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.screen.step == "welcome"

    finishes(lambda: asyncio.run(body()), limit_s=60)


def test_a_saved_walk_with_a_value_the_loader_refuses_resumes(kb: Any) -> None:
    """`codebase_size: huge` ended every resume on the Team step (NoMatches); now one line, the rest kept."""
    walk = {"step": "scenario", "scenario": "production_inference", "codebase_size": "huge",
            "current_frameworks": ["pytorch"], "team_size": 4}
    state_path().parent.mkdir(parents=True, exist_ok=True)
    state_path().write_text(json.dumps({"version": 2, "walk": walk}))

    async def body() -> None:
        app = make_app(kb, resume=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.screen.step == "scenario"
            profile = app.walk.profile
            assert (profile.codebase.size, profile.scenario, profile.team.size) == ("none", "production_inference", 4)
            assert profile.team.current == ["pytorch"]
            notes = [n.message for n in app._notifications]
            assert len(notes) == 1 and "\n" not in notes[0]
            assert notes[0].startswith(f"{state_path()}: walk.codebase_size: ") and "dropped" in notes[0]

    finishes(lambda: asyncio.run(body()), limit_s=120)


def test_percent_weights_of_an_older_walk_are_never_read_as_0_to_5(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    # Older versions saved every criterion's weight in percent once one was changed.
    path.write_text(json.dumps({"walk": {"weights": {"deployment": 30, "performance": 20, "ecosystem": 10}}}))
    settings = load_settings(path)
    assert settings.walk.profile.weights == {"deployment": 5.0, "performance": 3.33, "ecosystem": 1.67}  # same shares
    assert len(settings.notes) == 1 and "converted to the 0-5 scale" in settings.notes[0]
    path.write_text(json.dumps({"walk": {"weights": {"deployment": 4, "performance": 2}}}))  # percent or 0-5?
    settings = load_settings(path)
    assert settings.walk.profile.weights is None and "dropped" in settings.notes[0]
    save_settings(Settings(walk=Walk(profile=answer(fresh_profile(), "weights", value={"deployment": 4.5}))), path)
    assert json.loads(path.read_text())["version"] == STATE_VERSION
    settings = load_settings(path)
    assert settings.walk.profile.weights == {"deployment": 4.5} and settings.notes == []


def test_a_value_the_loader_refuses_in_a_saved_profile_is_dropped_alone(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    profile = {"team": {"current": ["pytorch"], "size": "many"}, "codebase": {"size": "huge"}, "serving": ["x"]}
    path.write_text(json.dumps({"version": STATE_VERSION, "walk": {"step": "nowhere", "profile": profile}}))
    settings = load_settings(path)
    assert [n.split(": ")[1] for n in settings.notes] == ["walk.step", "walk.profile.team.size",
                                                        "walk.profile.codebase.size"]
    assert all("\n" not in n for n in settings.notes)
    kept = settings.walk.profile
    assert (kept.team.current, kept.team.size, kept.codebase.size, kept.serving) == (["pytorch"], None, "none", ["x"])
    assert settings.walk.step == "welcome"


def test_the_state_files_scale_is_the_profiles() -> None:
    from advisor.profile import WEIGHT_SCALE_MAX
    from advisor.tui.data import state
    from advisor.tui.widgets import weight_row

    assert state.WEIGHT_SCALE_MAX == weight_row.MAX_WEIGHT == WEIGHT_SCALE_MAX
