"""Shared helpers of the TUI tests: recorded evidence, an app built on it, and waiting for workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tui"


def recorded_probe() -> dict[str, Any]:
    """The full probe of the 2-core CPU test machine (recorded with run_probe, anonymised)."""
    return json.loads((FIXTURES / "probe.json").read_text(encoding="utf-8"))


def recorded_bench() -> dict[str, Any]:
    """A quick benchmark run of torch, jax and TensorFlow on the same machine (recorded with run_bench)."""
    return json.loads((FIXTURES / "bench.json").read_text(encoding="utf-8"))


def recorded_evidence() -> tuple[Any, Any]:
    """`recorded_probe` and `recorded_bench` read into the models the core takes (`ProbeReport`, `BenchReport`)."""
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport

    return ProbeReport.from_json(recorded_probe()), BenchReport.from_json(recorded_bench())


def make_app(kb: Any, **kwargs: Any) -> Any:
    """The app on recorded evidence: no probing, no benchmarks, a fresh walk."""
    from advisor.tui.app import AdvisorApp

    probe, bench = recorded_evidence()
    options: dict[str, Any] = {
        "kb": kb,
        "probe": probe,
        "bench": bench,
        "live": False,
        "resume": False,
    }
    options.update(kwargs)
    return AdvisorApp(**options)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every worker has finished and the messages they posted are handled.

    A worker cancelled meanwhile (an exclusive one superseded by a newer call) has finished too: wait again.
    """
    from textual.worker import WorkerCancelled

    for _ in range(2):
        await pilot.pause()
        for _attempt in range(5):
            try:
                await pilot.app.workers.wait_for_complete()
            except WorkerCancelled:
                await pilot.pause()
                continue
            break
    await pilot.pause()


async def goto(pilot: Pilot[Any], step: str) -> None:
    """Walk with `n` (or back with `b`) until `step` is in front (keyboard only)."""
    from advisor.tui.data.state import STEPS

    for _ in range(len(STEPS)):
        here = getattr(pilot.app.screen, "step", None)
        if here == step:
            break
        await pilot.press("n" if STEPS.index(step) > STEPS.index(here) else "b")
        await settle(pilot)
    assert pilot.app.screen.step == step
