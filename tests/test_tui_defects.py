"""Pilot tests of the keyboard walk's defects (issue 13), each on recorded evidence and the real app."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from _tui_support import goto, make_app, recorded_evidence, recorded_probe, settle

from advisor.report.words import warning_items


def run(coro: Any) -> Any:
    """Run one async test body (pytest-asyncio is not a dependency)."""
    return asyncio.run(coro)


def test_fast_typing_into_path_fields_keeps_every_key(kb: Any, tmp_path: Path) -> None:
    """Every key typed in one burst lands, also while the app redraws its screens (a probe or the KB arriving)."""

    async def body() -> None:
        from textual.widgets import Input

        app = make_app(kb)
        app.settings.last_profile = "old-profile.yaml"
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            field = app.screen.query_one("#profile-path", Input)
            field.focus()
            await pilot.press("end", *["backspace"] * len(field.value))
            app._refresh_screens()  # what a finished probe does while the user types
            typed = str(tmp_path / "new-profile.yaml")
            await pilot.press(*typed)
            assert field.value == typed
            await pilot.press("escape")  # leave the field: n is a key again
            await goto(pilot, "export")
            path = app.screen.query_one("#path-markdown", Input)
            path.focus()
            await pilot.press("end", *["backspace"] * len(path.value))
            typed = str(tmp_path / "out" / "dir" / "report.md")
            await pilot.press(*typed)
            await settle(pilot)
            assert path.value == typed
            assert typed in str(app.screen.query_one("#command").render())

    run(body())


def test_ctrl_q_quits_from_a_text_field_and_escape_leaves_it(kb: Any) -> None:
    async def body() -> None:
        from textual.widgets import Input

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.screen.query_one("#report-path", Input).focus()
            await pilot.press("escape")
            assert not isinstance(app.focused, Input)
            app.screen.query_one("#report-path", Input).focus()
            await pilot.press("q")  # a letter types there
            assert app.screen.query_one("#report-path", Input).value == "q"
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert app.return_code == 0

    run(body())


def test_loading_an_invalid_profile_says_the_cli_line_and_keeps_the_answers(kb: Any, tmp_path: Path, cli_env) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenario: nope\n")
    checked = subprocess.run(
        [sys.executable, "-m", "advisor", "profile", "check", str(bad)],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
    )
    assert checked.returncode == 2
    cli_line = checked.stderr.strip().removeprefix("fwadvisor: error: ")

    async def body() -> None:
        from textual.widgets import Input

        from advisor.tui.data.answers import edited

        app = make_app(kb)
        app.walk.profile = edited(app.walk.profile, {("scenario",): "production_inference",
                                                     ("weights",): {"deployment": 40.0}})
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.screen.query_one("#profile-path", Input).value = str(bad)
            await pilot.click("#load-profile")
            await settle(pilot)
            assert app.screen.step == "welcome"
            status = str(app.screen.query_one("#welcome-status").render())
            assert cli_line in status.replace("\n", " ")
            profile = app.walk.profile
            assert profile.scenario == "production_inference" and profile.weights == {"deployment": 40.0}

    run(body())


def test_resumed_on_export_writes_the_report_and_checklist(kb: Any, tmp_path: Path) -> None:
    async def first() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "export")
            await pilot.press("q")

    run(first())

    async def again() -> None:
        from textual.widgets import Input

        app = make_app(kb, resume=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.screen.step == "export"
            for key in ("json", "markdown", "profile", "checklist"):
                app.screen.query_one(f"#path-{key}", Input).value = str(tmp_path / f"out-{key}")
            app.screen.query_one("#export").focus()
            await pilot.press("e")
            await settle(pilot)
            status = str(app.screen.query_one("#export-status").render())
            assert "not written" not in status, status

    run(again())
    assert json.loads((tmp_path / "out-json").read_text())["ranking"]
    assert "- [ ]" in (tmp_path / "out-checklist").read_text()


def test_results_warnings_read_as_sentences(kb: Any) -> None:
    async def body() -> None:
        app = make_app(kb)
        async with app.run_test(size=(120, 40)) as pilot:
            await goto(pilot, "results")
            report = app.screen.report
            assert report is not None and report.warnings
            text = str(app.screen.query_one("#warnings").render())
            assert "{'code'" not in text and "{" not in text
            shown = text.replace("\n", " ")
            # The words every shell says (a framework's per-figure benchmark warnings in one line each).
            for _code, said in warning_items(report.warnings):
                assert said[:40] in shown

    run(body())


def test_opened_report_brings_its_own_choice_to_onboarding(kb: Any) -> None:
    """`tui --report FILE` after a walk that chose another framework: Onboarding follows the report."""
    from advisor.profile import parse_profile
    from advisor.tui import core

    profile = parse_profile({"scenario": "production_inference"})
    saved = core.assess(kb, profile, *recorded_evidence())
    top = saved.recommendation.framework
    other = next(f for f in kb.frameworks if f != top)

    async def body() -> None:
        app = make_app(kb)
        app.walk.chosen = other  # what the previous walk had picked
        app.walk.step = "results"
        app.open_report(saved)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await goto(pilot, "onboarding")
            title = str(app.screen.query_one("#checklist-title").render())
            assert kb.frameworks[top].name in title and kb.frameworks[other].name not in title.split("—")[0]

    run(body())


@pytest.mark.parametrize("size", [(80, 24), (72, 22)], ids=lambda s: f"{s[0]}x{s[1]}")  # 72x22: the least size
def test_pairwise_dialog_shows_every_answer_in_full(kb: Any, size: tuple[int, int]) -> None:
    async def body() -> None:
        from textual.widgets import Button

        from advisor.tui.screens.pairwise import ANSWERS, PairwiseScreen

        app = make_app(kb)
        async with app.run_test(size=size) as pilot:
            await goto(pilot, "priorities")
            await pilot.press("w")
            await settle(pilot)
            dialog = app.screen
            assert isinstance(dialog, PairwiseScreen)
            box = dialog.query_one("#pairwise").content_region
            for key, label, _v in ANSWERS:
                button = dialog.query_one(f"#ans-{key}", Button)
                region = button.region
                assert box.contains_region(region), (key, region, box)
                assert label in str(button.label)
                assert region.width >= len(str(button.label)), (key, region.width)

    run(body())


def test_preset_asks_before_replacing_weights_and_can_be_undone(kb: Any) -> None:
    async def body() -> None:
        from advisor.tui.screens.confirm import ConfirmScreen

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "priorities")
            await pilot.press("w")
            await settle(pilot)
            for _ in app.screen.pairs:
                await pilot.press("1")
            await settle(pilot)
            mine = (app.walk.profile.weights, app.walk.profile.pairwise)  # the answers are kept
            await pilot.press("p")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("escape")  # no
            await settle(pilot)
            assert (app.walk.profile.weights, app.walk.profile.pairwise) == mine
            await pilot.press("p")
            await settle(pilot)
            await pilot.press("y")
            await settle(pilot)
            assert (app.walk.profile.weights, app.walk.profile.pairwise) == (None, None)  # all the preset's
            await pilot.press("u")
            await settle(pilot)
            assert (app.walk.profile.weights, app.walk.profile.pairwise) == mine

    run(body())


def test_start_fresh_asks_before_wiping_the_walk(kb: Any) -> None:
    async def body() -> None:
        from advisor.tui.data.answers import with_scenario
        from advisor.tui.screens.confirm import ConfirmScreen

        app = make_app(kb)
        app.walk.profile = with_scenario(app.walk.profile, "production_inference")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.click("#fresh")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("escape")
            await settle(pilot)
            assert app.walk.profile.scenario == "production_inference"

    run(body())


def test_exported_pairwise_report_rescored_by_the_cli_agrees(kb: Any, tmp_path: Path, cli_env) -> None:  # type: ignore[no-untyped-def]
    """After pairwise questions the report keeps them (profile.ahp), and `--from-json` alone re-scores that profile."""

    async def body() -> None:
        from textual.widgets import Input

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "priorities")
            await pilot.press("w")
            await settle(pilot)
            for i, _ in enumerate(app.screen.pairs):
                await pilot.press("2" if i % 2 else "4")
            await settle(pilot)
            await goto(pilot, "export")
            for key in ("json", "markdown", "profile", "checklist"):
                app.screen.query_one(f"#path-{key}", Input).value = str(tmp_path / f"out-{key}")
            app.screen.query_one("#export").focus()
            await pilot.press("e")
            await settle(pilot)

    run(body())
    exported = json.loads((tmp_path / "out-json").read_text())
    assert exported["profile"]["ahp"] is not None
    assert exported["profile"]["weight_source"] == "pairwise"
    done = subprocess.run(
        [sys.executable, "-m", "advisor", "report", "--from-json", str(tmp_path / "out-json"), "--json"],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rescored = json.loads(done.stdout)
    assert rescored["profile"]["normalized_weights"] == pytest.approx(exported["profile"]["normalized_weights"])
    assert [(e["framework"], round(e["total"], 6)) for e in rescored["ranking"]] == [
        (e["framework"], round(e["total"], 6)) for e in exported["ranking"]
    ]


def test_a_cancelled_run_is_kept_only_when_there_is_no_complete_one() -> None:
    from advisor.evidence.bench.results import BenchFailure, BenchReport
    from advisor.tui.data.answers import kept_bench

    _, complete = recorded_evidence()
    assert complete is not None and complete.results
    partial = BenchReport(preset="quick", wall_s=1.0, environment={}, results=(),
                          failures=(BenchFailure("jax", "*", None, "cancelled", "cancelled"),))
    assert kept_bench(complete, partial, cancelled=True) is complete
    assert kept_bench(None, partial, cancelled=True) is partial  # better some figures than none
    assert kept_bench(partial, complete, cancelled=False) is complete
    assert kept_bench(complete, None, cancelled=False) is complete


def test_screenshot_is_saved_when_there_is_no_downloads_folder(
    kb: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # a fresh account: no ~/Downloads
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.chdir(tmp_path)

    async def body() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await app.run_action("screenshot")
            # Textual writes the file in a thread that then reports back to the app through call_from_thread:
            # the app must outlive that thread, or the (non-daemon) thread waits forever and so does the
            # interpreter's exit. Wait for the thread, not only for the file to appear.
            for _ in range(200):
                saving = [t for t in threading.enumerate() if "save_file_thread" in t.name]
                if list(tmp_path.glob("*.svg")) and not saving:
                    break
                await pilot.pause(0.05)
            assert not [t for t in threading.enumerate() if "save_file_thread" in t.name]

    run(body())
    assert not (home / "Downloads").exists() or list((home / "Downloads").glob("*.svg"))
    assert list(tmp_path.glob("*.svg")) or list((home / "Downloads").glob("*.svg"))


def test_breakdown_figures_add_up_to_the_total_shown(kb: Any) -> None:
    from advisor.tui.widgets.explain import breakdown

    async def body() -> None:
        from rich.console import Console

        app = make_app(kb)
        async with app.run_test(size=(120, 40)) as pilot:
            await goto(pilot, "results")
            report = app.screen.report
            assert report is not None
            for entry in report.ranking:
                console = Console(width=120, record=True)
                console.print(breakdown(entry))
                lines = console.export_text().splitlines()
                table = lines[: next(i for i, line in enumerate(lines) if line.strip().startswith("total")) + 1]
                points = [float(line.split()[-1]) for line in table if line.rstrip() and line.split()[-1][-3:-2] == "."]
                *parts, total = points
                assert round(sum(parts), 2) == total, (entry.framework, parts, total)
                assert total == round(entry.total, 2)

    run(body())


def test_walk_keys_digits_tabs_and_arrows_never_change_a_weight(kb: Any) -> None:
    async def body() -> None:
        from textual.widgets import TabbedContent

        from advisor.tui.widgets.weight_row import WeightRow

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("3")
            await settle(pilot)
            assert app.screen.step == "priorities"
            rows = list(app.screen.query(WeightRow))
            rows[0].focus()
            before = [r.weight for r in rows]
            await pilot.press("left", "right", "down")
            assert app.focused is rows[1]
            await pilot.press("up")
            assert app.focused is rows[0]
            assert [r.weight for r in rows] == before
            await pilot.press("t")
            assert app.screen.query_one("#priorities-tabs", TabbedContent).active == "tab-constraints"
            await pilot.press("7")
            await settle(pilot)
            assert app.screen.step == "export"

    run(body())


def test_onboarding_follows_the_hardware_the_team_must_run_on(kb: Any) -> None:
    """A "must run on google_tpu" constraint gives JAX's TPU install and verify steps on this CPU machine."""

    async def body() -> None:
        from textual.widgets import SelectionList

        from advisor.tui.data.answers import with_constraint

        app = make_app(kb)
        app.walk.profile = with_constraint(app.walk.profile, "must_run_on", ["google_tpu"])
        app.walk.chosen = "jax"
        async with app.run_test(size=(120, 40)) as pilot:
            await goto(pilot, "onboarding")
            items = app.screen.query_one("#checklist", SelectionList)
            prompts = [str(items.get_option_at_index(i).prompt) for i in range(items.option_count)]
            assert any("Install JAX for Google TPU" in p for p in prompts), prompts[:4]
            assert any("computes on the TPU" in p for p in prompts)
            assert not any("on the CPU" in p for p in prompts)

    run(body())


def test_resumed_on_onboarding_shows_the_recommended_checklist(kb: Any) -> None:
    async def first() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "onboarding")
            await pilot.press("q")

    run(first())

    async def again() -> None:
        app = make_app(kb, resume=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.screen.step == "onboarding"
            title = str(app.screen.query_one("#checklist-title").render())
            top = app.report.recommendation.name if app.report else None
            assert top and f"{top} onboarding" in title, title

    run(again())


def test_results_ranking_fits_80_columns_without_scrolling_sideways(kb: Any) -> None:
    async def body() -> None:
        from textual.widgets import DataTable

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "results")
            table = app.screen.query_one("#ranking", DataTable)
            assert table.virtual_size.width <= table.scrollable_content_region.width, (
                table.virtual_size,
                table.scrollable_content_region,
            )
            statuses = [str(cell) for cell in table.get_column("status")]
            assert all(len(s) <= 28 for s in statuses) and "knowledge only" in statuses

    run(body())


def test_brackets_in_a_childs_error_or_note_are_shown_as_text_not_markup(kb: Any) -> None:
    """TensorFlow's errors name devices as '[/job:localhost/...]': as markup that ended the app (MarkupError)."""
    async def body() -> None:
        from textual.widgets import Label, Static

        from advisor.evidence.bench.results import BenchEvent, BenchFailure
        from advisor.evidence.probe import ProbeEvent
        from advisor.tui.messages import BenchProgress, ProbeProgress

        app = make_app(kb)
        async with app.run_test(size=(100, 30)) as pilot:
            await goto(pilot, "evidence")
            screen = app.screen
            hostile = "OOM when allocating tensor on [/job:localhost/replica:0/task:0/device:CPU:0] [b]"
            events: list[tuple[Any, Any]] = [
                (ProbeProgress, ProbeEvent("framework_event", "tensorflow", f"tensorflow: {hostile}")),
                (BenchProgress, BenchEvent("note", "pytorch", "gemm", "cpu", message=f"restarting after {hostile}")),
                (BenchProgress, BenchEvent("failure", "tensorflow", "conv", "cpu",
                                     failure=BenchFailure("tensorflow", "conv", "cpu", "crashed", hostile))),
                (BenchProgress, BenchEvent("failure", "keras", "*", None, failure=BenchFailure(
                    "keras", "*", None, "skipped", "no benchmark script of its own: it runs on tensorflow"))),
            ]
            for progress, event in events:
                screen.post_message(progress(event))
                await pilot.pause()
            assert app.is_running and app.screen is screen
            notes = [str(label.render()) for label in screen.query(".pb-note").results(Label)]
            assert any("[/job:localhost/replica:0/task:0/device:CPU:0] [b]" in n for n in notes), notes
            assert any(n.startswith("skipped: no benchmark script of its own") for n in notes), notes
            failures = str(screen.query_one("#failures", Static).render())
            assert "[/job:localhost/replica:0/task:0/device:CPU:0] [b]" in failures, failures

    run(body())


def test_brackets_in_a_packs_names_or_the_machines_text_never_end_the_app() -> None:
    """A pack may name a framework, criterion or scenario with brackets, and an opened report may carry any CPU
    model: as markup, '[/x]' raised MarkupError on the first screen that showed it (the welcome screen's machine
    table, the team step's framework list...). Every step is walked with such names everywhere."""
    async def body() -> None:
        from advisor.knowledge import load_knowledge

        hostile = "[/x] [b]"
        kb = load_knowledge(include_user=False)  # its own copy: the names are changed in place
        for table in (kb.frameworks, kb.criteria, kb.scenarios):
            for entry in table.values():
                object.__setattr__(entry, "name", f"{entry.name} {hostile}")
        probe = recorded_probe()
        probe["cpu"]["model"] = f"Some CPU {hostile}"
        from advisor.evidence.probe import ProbeReport

        app = make_app(kb, probe=ProbeReport.from_json(probe))
        async with app.run_test(size=(100, 30)) as pilot:
            for step in ("welcome", "scenario", "priorities", "evidence", "results", "onboarding", "export"):
                await goto(pilot, step)
                assert app.is_running, step
            await goto(pilot, "results")
            from textual.widgets import DataTable

            names = [str(cell) for cell in app.screen.query_one("#ranking", DataTable).get_column_at(2)]
            assert names and all(name.endswith(hostile) for name in names), names  # shown as written

    run(body())
