"""Pilot tests: a terminal too small for the steps gets one sentence saying how large to make it; 80x24 is fine."""

from __future__ import annotations

import asyncio
from typing import Any

from _tui_support import goto, make_app, settle


def run(coro: Any) -> Any:
    """Run one async test body (pytest-asyncio is not a dependency)."""
    return asyncio.run(coro)


def weight_name_widths(app: Any) -> list[int]:
    """How wide the Priorities step draws each criterion's name."""
    return [w.region.width for w in app.screen.query(".weight-name") if w.region.height]


def test_at_60x20_the_app_says_how_large_to_make_the_terminal_and_comes_back_as_it_was(kb: Any) -> None:
    """At 60x20 the Priorities step broke each criterion's name into 4-character fragments, one per line."""

    async def body() -> None:
        from advisor.tui.screens.too_small import MIN_SIZE, TooSmallScreen

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "priorities")
            shown = app.screen
            assert min(weight_name_widths(app)) >= 12  # 80x24: the names read whole
            await pilot.resize_terminal(60, 20)
            await settle(pilot)
            assert isinstance(app.screen, TooSmallScreen)
            text = str(app.screen.query_one("#too-small").render())
            assert f"at least {MIN_SIZE.width}x{MIN_SIZE.height}" in text and "60x20" in text, text
            await pilot.press("b")  # the walk's keys stand aside while the terminal is too small
            await settle(pilot)
            assert isinstance(app.screen, TooSmallScreen)
            await pilot.resize_terminal(MIN_SIZE.width, MIN_SIZE.height)
            await settle(pilot)
            assert app.screen is shown and min(weight_name_widths(app)) >= 8

    run(body())


def test_started_in_a_small_terminal_it_says_so_at_once_and_q_quits(kb: Any) -> None:
    async def body() -> None:
        from advisor.tui.screens.too_small import TooSmallScreen

        app = make_app(kb)
        async with app.run_test(size=(60, 20)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, TooSmallScreen)
            await pilot.press("q")
            await settle(pilot)
            assert not app.is_running

    run(body())
