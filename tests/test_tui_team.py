"""Pilot: from the Priorities step, `m` opens the team decision; several members' files give the CLI's team view."""

from __future__ import annotations

import shlex
from pathlib import Path

from _tui_support import goto, make_app, recorded_evidence, settle

from advisor.sanitize import markdown_text

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = [str(ROOT / "docs" / "examples" / "team" / n) for n in ("researcher.yaml", "platform.yaml", "lead.yaml")]


def run(coro):  # type: ignore[no-untyped-def]
    """Run one async test body (pytest-asyncio is not a dependency)."""
    import asyncio

    return asyncio.run(coro)


def test_team_decision_from_the_priorities_step(kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "eve.yaml"
    bad.write_text("weights: {deployment: -3}\n")

    async def body() -> None:
        from textual.widgets import Input

        from advisor.team.session import decide_files
        from advisor.tui.screens.team import TeamScreen
        from advisor.tui.widgets.team_view import TeamView

        app = make_app(kb)
        async with app.run_test(size=(100, 30)) as pilot:
            await goto(pilot, "priorities")
            await pilot.press("m")
            await pilot.pause()
            assert isinstance(app.screen, TeamScreen)
            field = app.screen.query_one("#team-files", Input)
            assert app.focused is field
            field.value = " ".join(shlex.quote(p) for p in [*MEMBERS, str(bad)])
            await pilot.press("enter")
            await settle(pilot)
            view = app.screen.query_one(TeamView)
            assert view.document is not None, view.markdown
            assert view.left_out == [f"left out {bad}: line 1: weights.deployment: a weight must be zero or positive"]
            # The same view as `team decide --markdown` on the same evidence.
            probe, bench = recorded_evidence()
            same = decide_files(kb, [*MEMBERS, str(bad)], probe=probe, bench=bench, evidence="x")
            assert view.document.team.ranking == same.document.team.ranking
            assert view.document.consensus == same.document.consensus
            assert view.markdown.startswith("# Team decision: ")
            assert "## Fragility" in view.markdown and markdown_text(str(bad)) in view.markdown
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.step == "priorities"

    run(body())


def test_no_usable_member_says_why(kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    async def body() -> None:
        from textual.widgets import Input

        from advisor.tui.widgets.team_view import TeamView

        app = make_app(kb)
        async with app.run_test(size=(100, 30)) as pilot:
            await goto(pilot, "priorities")
            await pilot.press("m")
            await pilot.pause()
            app.screen.query_one("#team-files", Input).value = str(tmp_path / "nobody.yaml")
            await pilot.press("enter")
            await settle(pilot)
            view = app.screen.query_one(TeamView)
            assert view.document is None
            assert view.markdown.startswith("Team decision: not available (")
            assert "no usable member profile" in view.markdown

    run(body())
