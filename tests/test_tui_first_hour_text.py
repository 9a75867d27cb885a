"""Pilot tests: text from outside (typed paths, a pack's path, a member's file, typed numbers) never ends the app."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _tui_support import goto, make_app, settle
from textual.pilot import Pilot

HOSTILE = "x[/]y[b]"


def run(coro: Any) -> Any:
    """Run one async test body (pytest-asyncio is not a dependency)."""
    return asyncio.run(coro)


def rendered(widget: Any) -> str:
    """What a widget shows, as plain text."""
    return str(widget.render())


async def type_keys(pilot: Pilot[Any], text: str) -> None:
    """Type `text` key by key (brackets and slashes as the keys a terminal sends)."""
    names = {"[": "left_square_bracket", "]": "right_square_bracket", "/": "slash", " ": "space", ".": "full_stop"}
    await pilot.press(*[names.get(ch, ch) for ch in text])


def test_brackets_typed_in_an_export_path_are_shown_as_typed(kb: Any) -> None:
    """Typing `x[/]` into an Export path raised MarkupError key by key (the command line re-renders per key)."""

    async def body() -> None:
        from textual.widgets import Input

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "export")
            field = app.screen.query_one("#path-markdown", Input)
            field.focus()
            field.value = ""
            await type_keys(pilot, HOSTILE)
            await settle(pilot)
            assert app.is_running and field.value == HOSTILE
            assert HOSTILE in rendered(app.screen.query_one("#command"))

    run(body())


def test_a_pack_path_with_brackets_that_fails_to_load_is_named_as_written(tmp_path: Path) -> None:
    """`--kb 'p[/]'` that cannot load: its reason (with the path) was parsed as markup where shown."""

    async def body() -> None:
        pack = tmp_path / f"pack{HOSTILE}"
        pack.mkdir(parents=True)  # the `/` in `[/]` makes it two folders
        (pack / "frameworks.yaml").write_text("frameworks: [", encoding="utf-8")  # broken YAML
        app = make_app(None, packs=(str(pack),))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            for _ in range(100):  # the knowledge base loads in a thread worker
                if app.kb_error is not None:
                    break
                await asyncio.sleep(0.05)
            await settle(pilot)
            assert app.kb_error is not None and HOSTILE in app.kb_error
            await goto(pilot, "scenario")
            assert app.is_running
            assert HOSTILE in rendered(app.screen.query_one("#scenario-desc"))

    run(body())


def test_a_team_member_path_with_brackets_is_named_as_written(kb: Any, tmp_path: Path) -> None:
    """A member file named with `[/]` that cannot be used: its left-out line and notification were markup."""

    async def body() -> None:
        from advisor.tui.screens.team import TeamScreen
        from advisor.tui.widgets.team_view import TeamView

        good = tmp_path / "good.yaml"
        good.write_text("scenario: research_prototyping\n", encoding="utf-8")
        bad = tmp_path / f"bad{HOSTILE}.yaml"
        bad.parent.mkdir(parents=True)
        bad.write_text("weights: [\n", encoding="utf-8")
        app = make_app(kb)
        async with app.run_test(size=(100, 30)) as pilot:
            await goto(pilot, "priorities")
            app.push_screen(TeamScreen([str(good), str(bad)]))
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert app.is_running
            view = app.screen.query_one(TeamView)
            assert any(HOSTILE in line for line in view.left_out), view.left_out
            assert HOSTILE in rendered(app.screen.query_one("#team-left-out"))

    run(body())


@pytest.mark.parametrize("field", ["team-size", "horizon", "kloc"])
@pytest.mark.parametrize("typed", ["2026-13-45", "9" * 5000])
def test_a_bad_typed_number_is_one_line_at_its_field_not_a_crash(kb: Any, field: str, typed: str) -> None:
    """`2026-13-45` (YAML reads a date, month 13) or a 5,000-digit number (past int's digit limit) raised
    ValueError in the field parser and ended the app with a traceback; the old answer must stay."""

    async def body() -> None:
        from textual.widgets import Input, SelectionList

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "scenario")
            app.screen.query_one("#current", SelectionList).select("pytorch")
            await settle(pilot)
            if field == "kloc":
                target = next(i for i in app.screen.query(".kloc").results(Input) if i.name == "pytorch")
            else:
                target = app.screen.query_one(f"#{field}", Input)
            before = app.walk.profile
            target.focus()
            target.value = typed  # what a paste leaves in the field (key by key would take minutes)
            await pilot.press("enter")
            await settle(pilot)
            assert app.is_running
            assert app.walk.profile is before  # the refused value changed nothing
            assert any(rendered(e).strip() for e in app.screen.query(".field-error")), "no error at the field"

    run(body())


def test_text_fields_take_no_more_than_their_answer_can_need(kb: Any) -> None:
    """A 100,000-character paste froze the app for minutes (every key re-checked and re-rendered the field):
    every text field has a length limit, and a paste past it keeps at most that many characters."""

    async def body() -> None:
        from textual import events
        from textual.widgets import Input

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            for step in ("welcome", "scenario", "export"):
                await goto(pilot, step)
                for field in app.screen.query(Input).results(Input):
                    assert 0 < field.max_length <= 4096, (step, field.id, field.max_length)
            field = app.screen.query_one("#path-json", Input)
            field.focus()
            field.value = ""
            field.post_message(events.Paste("7" * 100_000))
            await settle(pilot)
            assert app.is_running and len(field.value) <= field.max_length

    run(body())


def test_when_no_member_file_is_usable_each_still_says_why(kb: Any, tmp_path: Path) -> None:
    """With only unusable files the screen said "no usable member profile ...; see the line for each" and showed
    no line (the per-file reasons were dropped with the error)."""

    async def body() -> None:
        from advisor.tui.screens.team import TeamScreen
        from advisor.tui.widgets.team_view import TeamView

        missing = tmp_path / "nobody.yaml"
        app = make_app(kb)
        async with app.run_test(size=(100, 30)) as pilot:
            await goto(pilot, "priorities")
            app.push_screen(TeamScreen([str(missing)]))
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            view = app.screen.query_one(TeamView)
            assert view.document is None and "see the line for each" in view.markdown
            assert len(view.left_out) == 1 and str(missing) in view.left_out[0], view.left_out
            assert str(missing) in rendered(app.screen.query_one("#team-left-out"))

    run(body())
