"""Nothing is cut at 80x24 (or 72x22, the least the app lays out in): each step shows its text whole; ctrl+q quits."""

from __future__ import annotations

import asyncio
import html
import re
from typing import Any

import pytest
from _tui_support import goto, make_app, settle


def _screen_text(app: Any) -> str:
    """The screen's text as the terminal shows it (from Textual's own SVG screenshot)."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def _ctrl_q_is_the_apps_quit_from_each_field(app: Any) -> Any:
    async def check(pilot: Any, step: str) -> None:
        fields = [w for w in app.screen.query("*") if w.focusable and w.display]
        assert fields, step
        for widget in fields:  # ctrl+q is the app's, whatever has focus (a text field included)
            app.screen.set_focus(widget)  # at once: the focus chain, and so the active bindings, follow it
            assert app.focused is widget
            assert app.check_action("quit", ()) is True
            quit_binding = next(b for key, b in app.active_bindings.items() if key == "ctrl+q")
            assert quit_binding.binding.action == "quit" and quit_binding.enabled, (step, widget)

    return check


@pytest.mark.parametrize("size", [(80, 24), (72, 22)], ids=lambda s: f"{s[0]}x{s[1]}")  # 72x22: the least size
def test_no_step_cuts_its_text_and_ctrl_q_quits_from_every_field(kb: Any, size: tuple[int, int]) -> None:
    from advisor.tui.data.state import STEPS

    async def body() -> None:
        app = make_app(kb)
        check_quit = _ctrl_q_is_the_apps_quit_from_each_field(app)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            seen: dict[str, str] = {}
            for step in STEPS:
                await goto(pilot, step)
                await settle(pilot)
                seen[step] = _screen_text(app)
                labels = [str(lbl.render()) for lbl in app.screen.query(".step")]
                assert f"{STEPS.index(step) + 1} " in " ".join(labels)  # the step bar names the current step
                assert sum(len(t) + 1 for t in labels) <= size[0], labels  # and fits the width whole
                if step == "onboarding":  # the first item's title wraps whole: every word of it is on screen
                    first = app.screen.checklist.sections[0].items[0].title
                    sel = app.screen.query_one("#checklist")
                    lines = [sel.render_line(y).text for y in range(sel.size.height)]
                    words = " ".join(lines).split()
                    assert all(w in words for w in first.split()), (first, lines)
                    assert sum("▌" in ln for ln in lines) < len(lines)  # a box per item, not per line
                if step == "priorities":
                    await pilot.press("t")  # the Constraints tab
                    await settle(pilot)
                    seen["priorities/constraints"] = _screen_text(app)
                if size == (80, 24):
                    await check_quit(pilot, step)
            cut = {name: [ln for ln in text.splitlines() if "…" in ln] for name, text in seen.items()}
            assert not any(cut.values()), {k: v for k, v in cut.items() if v}
            await pilot.press("ctrl+q")  # from the last field of the last step: the app really ends
            await pilot.pause()
            assert app.return_code == 0

    asyncio.run(body())
