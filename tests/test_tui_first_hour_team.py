"""Pilot tests: on the Team step a refused value is said at its field, in words; a framework's name gets its id."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _tui_support import goto, make_app, settle
from textual.pilot import Pilot


def run(coro: Any) -> Any:
    """Run one async test body (pytest-asyncio is not a dependency)."""
    return asyncio.run(coro)


async def type_into(pilot: Pilot[Any], field: Any, text: str) -> None:
    """Focus a field, type `text` key by key and take it with Enter."""
    field.focus()
    field.value = ""
    await pilot.press(*[{".": "full_stop", "-": "minus", " ": "space"}.get(ch, ch) for ch in text])
    await pilot.press("enter")
    await settle(pilot)


def shown_errors(app: Any) -> list[Any]:
    """The error lines the Team step shows now."""
    from textual.widgets import Static

    return [e for e in app.screen.query(".field-error").results(Static) if e.display and str(e.render()).strip()]


@pytest.mark.parametrize(
    ("field", "typed", "words"),
    [
        ("#python", "2.7", "Python version like 3.12"),
        ("#team-size", "six", "whole number of engineers"),
        ("#horizon", "0", "number of months above 0"),
        ("#jurisdictions", "USA", "two-letter country codes"),
        (".kloc", "-3", "PyTorch: thousands of lines of code"),
    ],
)
def test_a_refused_value_is_said_in_words_right_under_its_field(kb: Any, field: str, typed: str, words: str) -> None:
    """The error was one line at the bottom of a long page (off screen at 80x24), in a validator's words
    ("String should match pattern '^3\\.\\d+$'"); now it is the line under the field, on screen, in words."""

    async def body() -> None:
        from textual.widgets import Input, SelectionList

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "scenario")
            app.screen.query_one("#current", SelectionList).select("pytorch")
            await settle(pilot)
            target = app.screen.query(field).results(Input).__next__()
            before = app.profile()
            await type_into(pilot, target, typed)
            errors = shown_errors(app)
            assert len(errors) == 1, [str(e.render()) for e in errors]
            line = str(errors[0].render())
            assert words in line and f"“{typed}”" in line, line
            assert "should" not in line and "pattern" not in line and "Input" not in line, line
            assert errors[0].region.y == target.region.bottom or errors[0].region.y - target.region.bottom in (0, 1)
            assert 0 < errors[0].region.y < 24 and errors[0].region.height >= 1  # on screen
            assert app.profile() == before  # the old answer stays
            await type_into(pilot, target, "")  # emptied: the error goes
            assert shown_errors(app) == []

    run(body())


@pytest.mark.parametrize(("written", "meant"), [("PyTorch", "pytorch"), ("torch", "pytorch")])
def test_a_framework_written_as_its_name_gets_a_did_you_mean(kb: Any, tmp_path: Path, written: str, meant: str) -> None:
    """`team: {current: [PyTorch]}` said "String should match pattern '^[a-z][a-z0-9_]*$'" on loading the profile."""

    async def body() -> None:
        from textual.widgets import Input, Static

        profile = tmp_path / "profile.yaml"
        profile.write_text(f"team:\n  current: [{written}]\n", encoding="utf-8")
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.screen.query_one("#profile-path", Input).value = str(profile)
            app.screen.query_one("#load-profile").press()
            await settle(pilot)
            line = str(app.screen.query_one("#welcome-status", Static).render())
            assert f"did you mean '{meant}'?" in line and "pattern" not in line, line
            assert app.walk.profile.team.current == []

    run(body())
