"""The app driving the real core: a real quick benchmark of JAX (the cheapest import), and a cancelled one."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psutil
import pytest
from _tui_support import goto, recorded_evidence, settle

pytestmark = pytest.mark.frameworks


def _live_app(kb: Any) -> Any:
    from advisor.tui.app import AdvisorApp

    return AdvisorApp(kb=kb, live=True, resume=False, frameworks=("jax",))


async def _wait_for(predicate: Any, pilot: Any, limit_s: float = 300.0) -> None:
    """Let the app run until `predicate()` holds (a bound against hangs, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit_s
    while not predicate():
        assert loop.time() < end, "gave up waiting"
        await pilot.pause(0.2)


def test_real_quick_benchmark_of_jax_through_the_app(kb: Any) -> None:
    async def body() -> None:
        from textual.widgets import DataTable

        app = _live_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "evidence")
            screen = app.screen
            assert app.walk.bench_preset == "quick"
            # The same path as the quick preset with the suite's tiny sizes: CI time, not a different code path.
            app.walk.bench_preset = "test"
            await pilot.press("s")
            await pilot.pause()
            worker = screen.worker
            assert worker is not None
            await pilot.press("n")  # on to Results while the run goes on: it says so, then refreshes itself
            await pilot.pause()
            results = app.screen
            assert results.step == "results"
            assert "running" in str(results.query_one("#run-status").render())
            await _wait_for(lambda: app.bench is not None, pilot)
            await settle(pilot)
            jax = [r for r in app.bench.results if r.framework == "jax"]
            assert any(r.benchmark == "gemm" and r.value > 0 for r in jax)
            assert app.probe is not None and app.probe.frameworks["jax"].outcome == "ok"
            assert screen.query_one("#results", DataTable).row_count == len(app.bench.results)
            assert app.screen is results and not results.query_one("#run-status").display
            ranking = {e.framework: e for e in results.report.ranking}
            # On a machine too busy to trust, the figures are kept but not used, and the status says so.
            busy = (app.bench.environment.get("machine_state") or {}).get("busy")
            assert ranking["jax"].status_code == ("discarded" if busy else "measured")

    asyncio.run(body())


def test_cancel_a_running_benchmark_stops_its_child_processes(kb: Any) -> None:
    """Cancel a re-run during the NumPy baseline: children stop, the previous complete run's figures stay,
    and the progress rows say what happened (JAX never started: no animation; NumPy: cancelled, not done)."""

    async def body() -> None:
        from textual.widgets import DataTable

        from advisor.tui.app import AdvisorApp

        probe, previous = recorded_evidence()
        app = AdvisorApp(kb=kb, live=True, resume=False, frameworks=("jax",), probe=probe, bench=previous)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "evidence")
            screen = app.screen
            await pilot.press("s")
            # Wait until the NumPy baseline's child is measuring, then cancel from the keyboard.
            await _wait_for(lambda: screen.frameworks_seen.get("numpy", {}).get("started", 0) > 0, pilot)
            assert psutil.Process().children(recursive=True), "a benchmark child should be running"
            await pilot.press("c")
            status = screen.query_one("#evidence-status")
            await _wait_for(lambda: "Cancelled: child processes stopped" in str(status.render()), pilot, 120)
            await settle(pilot)
            leftovers = [p for p in psutil.Process().children(recursive=True) if p.is_running()]
            assert not leftovers, leftovers
            assert app.bench is previous  # the cancelled re-run did not replace the complete run
            assert previous is not None
            assert screen.query_one("#results", DataTable).row_count == len(previous.results)
            assert "previous" in str(status.render())
            rows = screen.frameworks_seen
            assert all(row["bar"].total is not None for row in rows.values())  # nothing animates any more
            numpy_note = str(rows["numpy"]["note"].render())
            assert "cancelled" in numpy_note and "done" not in numpy_note
            assert "not started" in str(rows["jax"]["note"].render())

    asyncio.run(body())


def test_quit_while_benchmarking_leaves_no_child_processes(kb: Any) -> None:
    """`q` cancels every worker; the cancel event reaches the core, which kills its children."""

    async def body() -> None:
        app = _live_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "evidence")
            screen = app.screen
            await pilot.press("s")
            await _wait_for(lambda: screen.frameworks_seen.get("jax", {}).get("started", 0) > 0, pilot)
            assert psutil.Process().children(recursive=True)
            await pilot.press("q")
        assert app.return_code in (0, None)

    asyncio.run(body())
    # The worker thread returns once the core has stopped its child; wait for that (bounded).
    end = time.monotonic() + 120
    while [p for p in psutil.Process().children(recursive=True) if p.is_running()]:
        assert time.monotonic() < end, psutil.Process().children(recursive=True)
        time.sleep(0.2)
