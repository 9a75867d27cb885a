"""One weight scale in the TUI (0-5, as in profiles), shares as %, and a sensitivity value What-if reproduces.

Real app on Pilot over recorded evidence (tests/fixtures/tui): the weights shown are the core resolver's, a
scenario chosen without touching a weight gives no "above the 0-5 scale" warning and exports no weights,
and the value the sensitivity names, typed into What-if, changes the advice.
"""

from __future__ import annotations

import asyncio
from typing import Any

import yaml
from _tui_support import goto, make_app, recorded_evidence, settle

from advisor.profile import parse_profile, resolve_profile
from advisor.scoring import assess
from advisor.tui.data.answers import with_scenario


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_the_named_value_typed_into_whatif_changes_the_advice(kb: Any) -> None:
    """tpu_first: the core names a learning-curve weight; typed in What-if (Enter, the value, Enter) it flips."""

    async def body() -> None:
        from textual.widgets import Input, Static

        from advisor.tui import core
        from advisor.tui.screens.results import ResultsScreen
        from advisor.tui.widgets.weight_row import WeightRow

        app = make_app(kb)
        app.walk.profile = with_scenario(app.walk.profile, "tpu_first")
        async with app.run_test(size=(120, 40)) as pilot:
            await goto(pilot, "results")
            screen = app.screen
            assert isinstance(screen, ResultsScreen) and screen.report is not None
            before = screen.report.recommendation.framework
            assert screen.report.sensitivity is not None
            change = screen.report.sensitivity.advice_change
            assert change is not None and change.framework != before
            stated = f"to {change.value:.2f} (now {change.value_now:.2f}), others unchanged"
            assert stated in str(screen.query_one("#sensitivity", Static).render())
            assert stated in core.report_markdown(screen.report)  # the Markdown says the same number
            screen.query_one("#results-tabs").active = "tab-whatif"
            await pilot.pause()
            row = next(r for r in screen.query(WeightRow) if r.criterion == change.criterion)
            assert row.weight == change.value_now
            row.focus()
            await pilot.press("enter")
            field = row.query_one(Input)
            assert app.focused is field
            field.value = ""
            await pilot.press(*f"{change.value:.2f}", "enter")
            await settle(pilot)
            assert screen.whatif is not None and screen.whatif[change.criterion] == change.value
            assert screen.report.recommendation.framework == change.framework
            await pilot.press("r")
            await settle(pilot)
            assert screen.report.recommendation.framework == before

    run(body())


def test_a_scenario_alone_reads_on_the_0_5_scale_and_exports_no_weights(kb: Any) -> None:
    """Choosing a scenario touches no weight: no 'above the scale' warning, rows show the scaled preset with
    shares, and the exported profile names the scenario only; one weight set is the only one exported."""

    async def body() -> None:
        from advisor.tui import core
        from advisor.tui.screens.priorities import PrioritiesScreen
        from advisor.tui.widgets.weight_row import WeightRow

        app = make_app(kb)
        app.walk.profile = with_scenario(app.walk.profile, "production_inference")
        async with app.run_test(size=(100, 30)) as pilot:
            await goto(pilot, "priorities")
            screen = app.screen
            assert isinstance(screen, PrioritiesScreen) and screen.last_report is not None, screen.last_error
            assert not [w for w in screen.last_report.warnings if "0-5 scale" in w.message]
            preset = resolve_profile(parse_profile({"scenario": "production_inference"}), kb).weights
            rows = {r.criterion: r for r in screen.query(WeightRow)}
            assert {c: r.weight for c, r in rows.items()} == preset
            assert max(preset.values()) == 5
            total = sum(preset.values())
            assert all(abs(r.share - preset[c] / total) < 1e-12 for c, r in rows.items() if r.share is not None)
            exported = yaml.safe_load(core.profile_yaml(app.profile()))
            assert exported["scenario"] == "production_inference" and "weights" not in exported
            rows["deployment"].focus()
            await pilot.press("minus")
            await settle(pilot)
            exported = yaml.safe_load(core.profile_yaml(app.profile()))
            assert exported["weights"] == {"deployment": preset["deployment"] - 0.5}
            # What the TUI ranked is what the CLI's reading of that profile ranks.
            probe, bench = recorded_evidence()
            again = assess(kb, resolve_profile(parse_profile(exported), kb), probe=probe, bench=bench, draws=200)
            assert [b.framework for b in again.ranking] == [e.framework for e in screen.last_report.ranking]

    run(body())
