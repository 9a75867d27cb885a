"""Pilot tests of the app on recorded evidence: the walk by keyboard, weights, checklist, export, help, resume."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _tui_support import goto, make_app, settle

from advisor.tui.data.state import STEPS


def run(coro):  # type: ignore[no-untyped-def]
    """Run one async test body (pytest-asyncio is not a dependency)."""
    import asyncio

    return asyncio.run(coro)


def test_walk_every_screen_with_the_keyboard(kb) -> None:  # type: ignore[no-untyped-def]
    async def body() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            seen = [app.screen.step]
            for _ in range(len(STEPS) - 1):
                await pilot.press("n")
                await settle(pilot)
                seen.append(app.screen.step)
            assert seen == list(STEPS)
            await pilot.press("n")  # past the end: stays on the last step
            assert app.screen.step == "export"
            await pilot.press("b")
            await settle(pilot)
            assert app.screen.step == "onboarding"
            await pilot.press("question_mark")
            await pilot.pause()
            from advisor.tui.screens.help import HelpScreen

            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.step == "onboarding"

    run(body())


def test_ranking_changes_when_a_weight_changes(kb) -> None:  # type: ignore[no-untyped-def]
    """Zero every weight but one criterion another framework leads: the preview's winner changes."""

    async def body() -> None:
        from advisor.tui.screens.priorities import PrioritiesScreen
        from advisor.tui.widgets.weight_row import WeightRow

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "priorities")
            screen = app.screen
            assert isinstance(screen, PrioritiesScreen)
            first = screen.last_report
            assert first is not None, screen.last_error
            winner = first.ranking[0].framework
            # A criterion with no measured evidence whose best framework (knowledge score) is not the winner.
            candidates = {e.framework for e in first.ranking}
            target = None
            for cid, crit in kb.criteria.items():
                if crit.evidence != "none":
                    continue
                scores = {f: kb.frameworks[f].scores[cid].score for f in candidates}
                best = max(scores.values())
                leaders = [f for f, s in scores.items() if s == best]
                if len(leaders) == 1 and leaders[0] != winner:
                    target = (cid, leaders[0])
                    break
            assert target is not None, "the knowledge base has no criterion another framework leads"
            rows = list(screen.query(WeightRow))
            rows[0].focus()
            await pilot.pause()
            for row in rows:
                assert app.focused is row
                await pilot.press("0" if row.criterion != target[0] else "plus")
                await pilot.press("tab")
            await settle(pilot)
            after = screen.last_report
            assert after is not None
            weights = app.effective_weights()
            assert weights[target[0]] > 0
            assert all(w == 0 for c, w in weights.items() if c != target[0])
            assert after.ranking[0].framework == target[1] != winner

    run(body())


def test_whatif_reranks_without_touching_the_answers(kb) -> None:  # type: ignore[no-untyped-def]
    async def body() -> None:
        from advisor.tui.screens.results import ResultsScreen
        from advisor.tui.widgets.weight_row import WeightRow

        app = make_app(kb)
        async with app.run_test(size=(120, 40)) as pilot:
            await goto(pilot, "results")
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            assert screen.report is not None
            before = [e.framework for e in screen.report.ranking]
            answers_before = dict(app.effective_weights())
            screen.query_one("#results-tabs").active = "tab-whatif"
            await pilot.pause()
            rows = list(screen.query(WeightRow))
            rows[0].focus()
            await pilot.pause()
            for _row in rows:
                await pilot.press("0")
                await pilot.press("tab")
            # Keep only the criterion (without measured evidence) the runner-up leads most on.
            runner_up = before[1]
            plain = [c for c, crit in kb.criteria.items() if crit.evidence == "none"]
            lead = max(
                plain, key=lambda c: kb.frameworks[runner_up].scores[c].score - kb.frameworks[before[0]].scores[c].score
            )
            row = next(r for r in rows if r.criterion == lead)
            row.focus()
            await pilot.press("plus", "plus")
            await settle(pilot)
            after = [e.framework for e in screen.report.ranking]
            assert screen.whatif is not None and screen.whatif[lead] == 1.0  # two steps of 0.5 on the 0-5 scale
            assert after != before
            assert app.effective_weights() == answers_before  # the walk's answers are untouched
            await pilot.press("r")
            await settle(pilot)
            assert [e.framework for e in screen.report.ranking] == before

    run(body())


def test_tick_a_checklist_item_is_saved_and_shown_again(kb) -> None:  # type: ignore[no-untyped-def]
    async def body() -> tuple[str, str]:
        from textual.widgets import SelectionList

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "results")
            await pilot.press("enter")  # choose the highlighted (top) framework
            await settle(pilot)
            chosen = app.walk.chosen
            assert chosen
            await goto(pilot, "onboarding")
            sel = app.screen.query_one("#checklist", SelectionList)
            sel.focus()
            await pilot.press("down", "space")
            await settle(pilot)
            ticked = list(sel.selected)
            assert len(ticked) == 1
            return chosen, ticked[0]

    chosen, item = run(body())
    from advisor.progress import ProgressStore

    assert item in ProgressStore().done(chosen, None)

    async def again() -> None:
        from textual.widgets import SelectionList

        app = make_app(kb, resume=True)  # resumes on the onboarding step, with the same choice
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.screen.step == "onboarding"
            assert item in app.screen.query_one("#checklist", SelectionList).selected

    run(again())


def test_export_writes_files_that_read_back(kb, tmp_path: Path, cli_env) -> None:  # type: ignore[no-untyped-def]
    async def body() -> str:
        from textual.widgets import Input

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "results")
            await pilot.press("enter")
            await goto(pilot, "onboarding")
            await goto(pilot, "export")
            for key, name in (("json", "r.json"), ("markdown", "r.md"), ("profile", "p.yaml"), ("checklist", "c.md")):
                field = app.screen.query_one(f"#path-{key}", Input)
                field.value = str(tmp_path / name)
            await pilot.press("tab")  # leave the text field so `e` is a key, not a letter
            app.screen.query_one("#export").focus()
            await pilot.press("e")
            await settle(pilot)
            return str(app.screen.query_one("#command").render())

    command = run(body())
    from advisor.profile import load_profile
    from advisor.report import load_report

    report = load_report(tmp_path / "r.json")  # schema-valid
    assert report.ranking
    assert (tmp_path / "r.md").read_text().startswith("# fwadvisor report")
    load_profile(tmp_path / "p.yaml")
    assert "- [ ]" in (tmp_path / "c.md").read_text()
    assert "fwadvisor report --profile" in command
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "advisor",
            "report",
            "--from-json",
            str(tmp_path / "r.json"),
            "--profile",
            str(tmp_path / "p.yaml"),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rescored = json.loads(done.stdout)
    assert [e["framework"] for e in rescored["ranking"]] == [e.framework for e in report.ranking]


def test_walk_is_resumed_and_theme_remembered(kb) -> None:  # type: ignore[no-untyped-def]
    async def body() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "priorities")
            app.theme = "nord"
            await pilot.press("q")

    run(body())

    async def again() -> None:
        app = make_app(kb, resume=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.screen.step == "priorities"
            assert app.theme == "nord"

    run(again())


def test_command_palette_offers_every_step(kb) -> None:  # type: ignore[no-untyped-def]
    async def body() -> None:
        from advisor.tui.commands import COMMANDS

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            for step in STEPS:
                assert any(c.action == f"app.goto('{step}')" for c in COMMANDS)
            await pilot.press("ctrl+p")
            await pilot.pause()
            await pilot.press(*"Go to: Results")
            await pilot.pause(0.5)
            await pilot.press("enter")
            await settle(pilot)
            assert app.screen.step == "results"

    run(body())


def test_missing_core_piece_is_said_plainly(kb, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A scoring failure shows "not available" with the reason instead of a made-up ranking."""
    from advisor.tui import core

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise core.Unavailable("advisor.scoring is not available (test)")

    monkeypatch.setattr(core, "assess", broken)

    async def body() -> None:
        from textual.widgets import Static

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "results")
            text = str(app.screen.query_one("#verdict", Static).render())
            assert "not available" in text and "(test)" in text

    run(body())


def test_open_a_saved_report_from_the_welcome_screen(kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Typing a report's path and opening it shows that report's ranking and fills the walk from its profile."""
    from _tui_support import recorded_evidence

    from advisor.profile import parse_profile
    from advisor.report import to_json_text
    from advisor.tui import core

    profile = parse_profile(
        {
            "scenario": "research_prototyping",
            "team": {"current": ["jax"], "experience": {"jax": "expert"}},
            "codebase": {"size": "small"},
        }
    )
    saved = core.assess(kb, profile, *recorded_evidence())
    path = tmp_path / "saved.json"
    path.write_text(to_json_text(saved))

    async def body() -> None:
        from textual.widgets import DataTable

        app = make_app(kb, probe=None, bench=None)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.click("#report-path")
            await pilot.press(*str(path))  # n, b and q are typed into the field, not taken as keys
            await pilot.click("#open-report")
            await settle(pilot)
            assert app.screen.step == "results"
            table = app.screen.query_one("#ranking", DataTable)
            shown = [str(cell) for cell in table.get_column("framework")]
            assert shown == [e.name for e in saved.ranking]
            assert app.walk.profile.scenario == "research_prototyping" and app.walk.profile.team.current == ["jax"]
            assert app.bench is not None and app.probe is not None  # the report's evidence, for what-if

    run(body())


def test_pairwise_questions_set_the_weights(kb) -> None:  # type: ignore[no-untyped-def]
    """`w` asks "which matters more?"; the core's AHP turns the answers into weights (0-5)."""

    async def body() -> None:
        from advisor.tui.screens.pairwise import PairwiseScreen

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "priorities")
            await pilot.press("w")
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, PairwiseScreen)
            await pilot.press("n")  # navigation keys stand aside while the dialog is open
            assert app.screen is dialog
            for _ in dialog.pairs:
                await pilot.press("1")  # the left criterion (earlier in criteria.yaml) matters much more
            await settle(pilot)
            assert app.screen.step == "priorities"
            first, *_, last = kb.criteria
            # The answers are kept, not weights made of them.
            assert app.walk.profile.weights is None and app.walk.profile.pairwise
            weights = app.effective_weights()  # the core reads them on the 0-5 scale: 5 x each AHP share
            assert abs(sum(weights.values()) - 5) < 1e-9 and max(weights.values()) <= 5
            assert weights[first] > weights[last]
            from advisor.tui.widgets.weight_row import WeightRow

            assert {r.criterion: r.weight for r in app.screen.query(WeightRow)} == weights

    run(body())
