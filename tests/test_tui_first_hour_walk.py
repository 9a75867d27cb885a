"""Pilot tests: opening a report keeps the saved walk; Start fresh asks only when there is something to lose."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from _tui_support import goto, recorded_evidence, recorded_probe, settle

from advisor.tui.data.answers import answer, edited, os_answer


def run(coro: Any) -> Any:
    """Run one async test body (pytest-asyncio is not a dependency)."""
    return asyncio.run(coro)


def app_for(kb: Any, settings: Path, report: Path | None = None) -> Any:
    """The app as `fwadvisor tui [--report FILE]` builds it, on recorded evidence and this settings file."""
    from advisor.cli.commands.tui import build_app

    args = argparse.Namespace(report=str(report) if report else None, fresh=False, kb=[])
    probe, bench = recorded_evidence()
    return build_app(args, kb=kb, probe=probe, bench=bench, live=False, settings_path=settings)


async def until(pilot: Any, done: Any) -> None:
    """Poll until `done()` and no worker runs. Not `pilot.pause`: going back to the own walk redraws the Priorities
    step twice at once (every shown step, then the one shown), and pilot's wait never ends for a row removed meanwhile.
    """
    for _ in range(400):
        await asyncio.sleep(0.05)
        if done() and not any(w.is_running for w in pilot.app.workers):
            break


def saved_walk(settings: Path) -> dict[str, Any]:
    """The walk as the settings file holds it."""
    walk: dict[str, Any] = json.loads(settings.read_text(encoding="utf-8"))["walk"]
    return walk


def test_opening_a_report_keeps_the_saved_walk_beside_it(kb: Any, tmp_path: Path) -> None:
    """`fwadvisor tui --report FILE` overwrote the saved walk (team, weights, pairwise answers) with the report's,
    without a word. Now the report has a walk of its own: the saved one is untouched, and Resume goes back to it."""
    from advisor.profile import parse_profile
    from advisor.tui import core

    settings = tmp_path / "state.json"
    criteria = list(kb.criteria)

    async def answer() -> dict[str, Any]:
        app = app_for(kb, settings)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            # Pairwise answers stand for the weights (a profile holds one or the other).
            app.walk.profile = edited(app.walk.profile, {
                ("scenario",): next(iter(kb.scenarios)), ("team", "size"): 6, ("team", "current"): ["tensorflow"],
                ("pairwise",): [[criteria[0], criteria[1], 3.0]]})
            await goto(pilot, "priorities")
            await pilot.press("q")
        return saved_walk(settings)

    mine = run(answer())
    assert mine["profile"]["team"]["size"] == 6 and mine["profile"]["pairwise"] and mine["step"] == "priorities"
    # Someone else's report: other answers (no team, another scenario, no pairwise).
    theirs = parse_profile({"scenario": list(kb.scenarios)[-1], "team": {"current": ["pytorch"]}})
    report = tmp_path / "theirs.json"
    report.write_text(core.report_json_text(core.assess(kb, theirs, *recorded_evidence())))

    async def view() -> None:
        from textual.widgets import Button

        app = app_for(kb, settings, report)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            told = [n.message for n in app._notifications]
            assert any("your own walk is kept" in m for m in told), told
            await settle(pilot)
            assert app.screen.step == "results" and app.walk.profile.team.current == ["pytorch"]
            await goto(pilot, "export")  # walking the report saves the settings on every step
            assert saved_walk(settings) == mine
            await goto(pilot, "welcome")
            resume = app.screen.query_one("#resume", Button)
            assert not resume.disabled and "my walk" in str(resume.label)
            resume.press()
            await until(pilot, lambda: app.screen.step == "priorities")
            assert app.screen.step == "priorities"
            profile = app.walk.profile
            assert profile.team.size == 6 and [list(j) for j in profile.pairwise or []] == mine["profile"]["pairwise"]
            assert profile.team.current == ["tensorflow"] and app.loaded_report is None
            await app.action_quit()  # what `q` does (pilot.press would wait on those removed rows)
        assert saved_walk(settings) == mine

    run(view())


def test_start_fresh_keeps_the_probed_os_and_asks_only_when_there_are_answers(kb: Any, tmp_path: Path) -> None:
    """On a first run Start fresh asked to discard answers when there were none; after it the OS the probe had
    ticked was un-ticked; and in the question `n` meant No while everywhere else `n` means next."""
    settings = tmp_path / "state.json"

    async def body() -> None:
        from textual.widgets import SelectionList

        from advisor.tui.screens.confirm import ConfirmScreen

        app = app_for(kb, settings)
        probed_os = os_answer(app.walk.profile)
        assert probed_os and probed_os[0] in recorded_probe()["software"]["os"].lower()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.click("#fresh")  # a first run: nothing to lose, no question
            await settle(pilot)
            assert not isinstance(app.screen, ConfirmScreen) and app.screen.step == "scenario"
            assert os_answer(app.walk.profile) == probed_os
            assert app.screen.query_one("#os", SelectionList).selected == probed_os
            app.walk.profile = answer(app.walk.profile, "team", "size", value=6)
            await goto(pilot, "welcome")
            await pilot.click("#fresh")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("n")  # next, everywhere else: it must not answer the question
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen) and app.walk.profile.team.size == 6
            await pilot.press("y")
            await settle(pilot)
            assert app.screen.step == "scenario" and app.walk.profile.team.size is None
            assert os_answer(app.walk.profile) == probed_os  # Start fresh forgets answers, not what the probe found
            assert app.screen.query_one("#os", SelectionList).selected == probed_os

    run(body())
