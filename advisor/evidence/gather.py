"""Probe then benchmark in the same children: each framework imported once, for `report`, a fleet node and the TUI."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport
    from advisor.knowledge.base import KnowledgeBase


@dataclass(frozen=True)
class Evidence:
    """What one machine showed: its probe, and its benchmarks where they ran (None: not asked, or nothing to run)."""

    probe: ProbeReport
    bench: BenchReport | None


def benchmarkable(probe: ProbeReport, candidates: Iterable[str]) -> list[str]:
    """The candidates the probe found installed and importing cleanly, in the probe's order."""
    wanted = set(candidates)
    return [fid for fid, entry in probe.frameworks.items()
            if entry.installed and entry.outcome == "ok" and fid in wanted]


def probe_and_bench(
    *,
    kb: KnowledgeBase,
    preset: str | None,
    candidates: Iterable[str],
    identify: bool = False,
    fast: bool = False,
    fresh: bool = False,
    frameworks: Sequence[str] | None = None,
    timeout: float = 60.0,
    baseline_alone: bool = False,
    on_event: Callable[[Any], None] | None = None,
    on_bench_event: Callable[[Any], None] | None = None,
    on_probe_done: Callable[[ProbeReport], None] | None = None,
    on_bench_start: Callable[[list[str]], None] | None = None,
    cancel: threading.Event | None = None,
) -> Evidence:
    """Probe this machine, then run `preset`'s benchmarks (None: no bench) on the candidates that import.

    With a bench to run, each candidate's probe child stays up and runs its benchmarks (one import per
    framework: TensorFlow's alone is seconds). Where no candidate imports, the bench is skipped, or with
    `baseline_alone` runs the NumPy baseline by itself (a fleet compares its nodes even so).
    `on_event` hears the probe's events and, unless `on_bench_event` is given, the bench's; `on_probe_done(probe)`
    gets the probe before the bench starts, `on_bench_start(frameworks)` what is about to be benchmarked (a shell
    shows each as it comes). Every child is registered with
    `advisor.evidence.children`: SIGINT, SIGTERM and `cancel` end them; the rest are closed on the way out.
    """
    from advisor.evidence.bench import run_bench
    from advisor.evidence.bench.engine import _usable_cores as usable_cores
    from advisor.evidence.bench.shared import SharedChildren
    from advisor.evidence.probe import run_probe

    wanted = sorted(set(candidates))
    shared = None if preset is None else SharedChildren(preset=preset, threads=usable_cores(), bench_ids=wanted)
    try:
        probe = run_probe(fast=fast, identify=identify, kb=kb, on_event=on_event, cancel=cancel, fresh=fresh,
                          frameworks=frameworks, timeout=timeout, prober=None if shared is None else shared.probe)
        if on_probe_done is not None:
            on_probe_done(probe)
        if shared is None or preset is None or (cancel is not None and cancel.is_set()):
            return Evidence(probe, None)
        installed = benchmarkable(probe, wanted)
        if not installed and not baseline_alone:
            return Evidence(probe, None)
        if on_bench_start is not None:
            on_bench_start(installed)
        started, shared.members = shared.members, {}
        try:
            # An empty list would mean "every adapter" to the engine: no adapters means the NumPy baseline alone.
            bench = run_bench(preset=preset, frameworks=installed or None, on_event=on_bench_event or on_event,
                              cancel=cancel, peak=probe.cpu.peak, adapters=None if installed else {}, started=started)
        except BaseException:
            shared.members = started  # not adopted (a usage error, an interrupt): closed below
            raise
        return Evidence(probe, bench)
    finally:
        if shared is not None:
            shared.close()
