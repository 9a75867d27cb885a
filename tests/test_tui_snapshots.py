"""SVG snapshots of every screen at 80x24 and 120x40, on recorded evidence (deterministic).

Regenerate with `pytest tests/test_tui_snapshots.py --snapshot-update` and read the diff before accepting.
"""

from __future__ import annotations

from typing import Any

import pytest
from _tui_support import goto, make_app, settle

from advisor.tui.data.state import STEPS

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("step", STEPS)
def test_screen_snapshot(snap_compare: Any, kb: Any, step: str, size: tuple[int, int]) -> None:
    app = make_app(kb)

    async def walk(pilot: Any) -> None:
        await settle(pilot)
        if step in ("results", "onboarding", "export"):
            await goto(pilot, "results")
            await pilot.press("enter")  # choose the top framework: onboarding and export follow it
            await settle(pilot)
        await goto(pilot, step)
        app.screen.set_focus(None)  # no blinking cursor or focus ring in the picture
        app.clear_notifications()  # toasts time out: they would make the picture depend on timing
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=walk)


def test_help_snapshot(snap_compare: Any, kb: Any) -> None:
    app = make_app(kb)

    async def walk(pilot: Any) -> None:
        await goto(pilot, "priorities")
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=walk)
