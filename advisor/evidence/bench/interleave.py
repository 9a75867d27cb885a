"""Interleaved rounds: every framework's child alive at once, taking turns one benchmark (one round) at a time.

All children start together, so their imports overlap, and none measures until all are ready. Then,
benchmark by benchmark, each child runs one round in turn (the order rotates every round), so a
change in the machine's load during the run hits every framework alike instead of whichever ran
last. The cheap, repeatable benchmarks (`ROUND_BENCHMARKS`) run in several rounds whose samples are
pooled (`stats.merge_rounds`); a pooled figure that is an outlier against the estimated peak or its
own spread gets one more round. A child that crashes or hangs loses the benchmark it was running and
is restarted for the rest, as in `runner._run_script`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from advisor.evidence.bench.figures import _env_of, _measurement, _pct_of_peak
from advisor.evidence.bench.presets import IMPORT_TIMEOUT_S, MAX_RESTARTS
from advisor.evidence.bench.results import BenchEvent
from advisor.evidence.bench.runner import _Run
from advisor.evidence.bench.session import CANCELLED, DIED, TIMED_OUT, ChildSession, Turn
from advisor.evidence.bench.stats import PEAK_LIMIT, ResultRow, busy_reason, is_outlier, merge_rounds

#: Rounds per preset for `ROUND_BENCHMARKS` (the others, with compiles and one-off set-up, run once).
ROUNDS = {"test": 1, "fleet": 1, "quick": 2, "standard": 3, "thorough": 5}
ROUND_BENCHMARKS = ("gemm", "elementwise", "dispatch", "conv")
#: GEMM, the figure the advice leans on most, in more and shorter rounds with more time in all: this host's speed
#: swings by 20-50% for seconds at a time with no steal or load to show for it (benchmarks/host_drift.py), so
#: a figure sampled over more moments of the run lands nearer the next run's.
GEMM_ROUNDS = {"test": 1, "fleet": 2, "quick": 4, "standard": 5, "thorough": 7}
GEMM_BUDGET_FACTOR = {"test": 1.0, "fleet": 1.0, "quick": 1.5, "standard": 1.25, "thorough": 1.0}


class _Cancelled(Exception):
    """The run was cancelled: every child is stopped."""


@dataclass
class Member:
    """One framework's child in the interleaved run."""

    fid: str
    display: str
    module: str
    root: Path
    args: list[str]
    env: dict[str, str]
    benchmarks: list[str]
    skip: set[str] = field(default_factory=set)  # benchmark@device pairs measured elsewhere (collectives)
    session: ChildSession | None = None
    kinds: list[str] = field(default_factory=list)
    dead: bool = False
    restarts: int = 0
    ready: Turn | None = None  # the start-up of a child started before the run (a shared probe-and-bench child)


def _start(run: _Run, m: Member, devices: Sequence[str] | None, cancel: threading.Event | None) -> None:
    """Launch `m`'s child and wait for `ready`; on failure report it once (benchmark "*") and mark it dead."""
    if m.session is not None and m.ready is not None:  # started before the run: adopt its start-up once
        turn, m.ready = m.ready, None
    else:
        m.session = ChildSession(m.module, m.args, root=m.root, env=m.env)
        turn = m.session.start(IMPORT_TIMEOUT_S, cancel)
    for ev in turn.events:
        if ev.get("event") == "env":
            run.envs.setdefault(m.fid, _env_of(ev))
            kinds = [str(d.get("kind")) for d in ev.get("devices") or () if isinstance(d, dict)] or ["cpu"]
            m.kinds = [k for k in kinds if not devices or k in devices]
    failed = next((e for e in turn.events if e.get("event") == "import" and not e.get("ok")), None)
    ready = any(e.get("event") == "ready" for e in turn.events)
    if turn.status == CANCELLED:
        m.dead = True
        raise _Cancelled
    if ready and m.kinds:
        return
    m.dead = True
    assert m.session is not None
    m.session.kill()
    if failed is not None:
        run.fail(m.fid, "*", None, "import_error", str(failed.get("error") or "import failed"))
    elif turn.status == TIMED_OUT:
        run.fail(m.fid, "*", None, "timed_out", f"did not start within {IMPORT_TIMEOUT_S:g} s (import hung?); killed")
    elif ready:
        run.fail(m.fid, "*", None, "skipped", f"no {'/'.join(devices or ())} device visible to {m.display}")
    else:
        run.fail(m.fid, "*", None, "crashed" if (m.session.proc and m.session.proc.returncode) else "bad_output",
                 m.session.ending())


def _restart(run: _Run, m: Member, bench: str, device: str, outcome: str, devices: Sequence[str] | None,
             cancel: threading.Event | None) -> None:
    m.restarts += 1
    if m.restarts > MAX_RESTARTS:
        run.fail(m.fid, "*", None, outcome, f"gave up after {MAX_RESTARTS} restarts")
        m.dead = True
        return
    run.tell(BenchEvent("note", m.fid, bench, device, message=f"restarting after {outcome} in {bench}"))
    _start(run, m, devices, cancel)


def _turn(run: _Run, m: Member, bench: str, kind: str, round_: int, share: float, budget: float | None,
          timeout: float, cancel: threading.Event | None, devices: Sequence[str] | None,
          collected: dict[tuple[str, str, str], list[ResultRow]], stopped: set[tuple[str, str]]) -> None:
    """One round of one benchmark on one device in `m`'s child; its results go to `collected`."""
    assert m.session is not None
    run.started.add(m.fid)
    run.tell(BenchEvent("bench_start", m.fid, bench, kind, message=f"round {round_ + 1}" if round_ else ""))
    cmd = {"cmd": "run", "benchmark": bench, "device": kind, "round": round_, "share": share, "budget": budget,
           "cpu_low_precision": run.cpu_low_precision}
    turn: Turn = m.session.turn(cmd, timeout, cancel)
    for ev in turn.events:
        kind_ = ev.get("event")
        if kind_ == "result":
            # The child's JSON line, kept as it came: `merge_rounds` pools it, `_measurement` reads it into a model.
            collected.setdefault((m.fid, kind, str(ev.get("variant"))), []).append(cast(ResultRow, ev))
        elif kind_ == "skip":
            stopped.add((m.fid, kind))
            if round_ == 0:
                run.fail(m.fid, str(ev.get("benchmark")), kind, "skipped", str(ev.get("reason")))
        elif kind_ == "bench_error":
            stopped.add((m.fid, kind))
            run.fail(m.fid, bench, kind, str(ev.get("outcome", "error")), str(ev.get("error")))
        elif kind_ == "agreement":
            run.agreement[(m.fid, kind)] = dict(ev)
    if turn.status == CANCELLED:
        raise _Cancelled
    if turn.status in (TIMED_OUT, DIED):
        stopped.add((m.fid, kind))
        if turn.status == TIMED_OUT:
            outcome, message = "timed_out", f"no result within {timeout:g} s; killed"
        else:
            rc = m.session.proc.returncode if m.session.proc else None
            outcome, message = ("crashed" if rc else "bad_output"), m.session.ending()
        run.fail(m.fid, bench, kind, outcome, message)
        _restart(run, m, bench, kind, outcome, devices, cancel)


def run_interleaved(run: _Run, members: Sequence[Member], selected: Sequence[str], *, preset: str,
                    budget: float | None, bench_timeout: float, cancel: threading.Event | None,
                    devices: Sequence[str] | None) -> None:
    """Measure every member's benchmarks in interleaved rounds; children are always stopped on the way out."""
    for m in members:
        run.tell(BenchEvent("framework_start", m.fid, message=m.display))
    try:
        with ThreadPoolExecutor(max_workers=max(len(members), 1), thread_name_prefix="fwbench-start") as pool:
            for f in [pool.submit(_start, run, m, devices, cancel) for m in members]:
                f.result()
        for bench in selected:
            _one_benchmark(run, members, bench, preset=preset, budget=budget, bench_timeout=bench_timeout,
                           cancel=cancel, devices=devices)
    except _Cancelled:
        for m in members:
            if m.session is not None:
                m.session.kill()
            run.fail(m.fid, "*", None, "cancelled", "cancelled")
    finally:
        with ThreadPoolExecutor(max_workers=max(len(members), 1), thread_name_prefix="fwbench-stop") as pool:
            list(pool.map(lambda m: m.session.close() if m.session is not None else None, members))
        for m in members:
            s = m.session
            if s is not None and s.saw("done") and s.proc is not None and s.proc.returncode:
                # Finished and said so, then died on the way out (some runtimes crash at interpreter exit).
                run.tell(BenchEvent("note", m.fid, message=f"finished, then {s.ending()}"))
            run.tell(BenchEvent("framework_end", m.fid))


def remeasure(run: _Run, collected: dict[tuple[str, str, str], list[ResultRow]],
              stopped: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Which (framework, device) pairs get one more round, and why: a pooled figure that is an outlier.

    Above the estimated peak counts only for a figure alone there: when two or more figures of the same size
    and device are above it (NumPy's and PyTorch's fp32-1024 at 115-123% on a VM that hides its boost clock),
    the estimate is what is wrong, and another round would only cost time.
    """
    merged = {key: merge_rounds(rs) for key, rs in collected.items()}
    pct = {key: _pct_of_peak(m, key[1], run.peak, run.gpu_peak) for key, m in merged.items()}
    above: dict[tuple[str, str], int] = {}
    for (_fid, kind, variant), p in pct.items():
        if p is not None and p > PEAK_LIMIT:
            above[(kind, variant)] = above.get((kind, variant), 0) + 1
    again: dict[tuple[str, str], str] = {}
    for (fid, kind, variant), m in merged.items():
        peak_pct = pct[(fid, kind, variant)] if above.get((kind, variant), 0) < 2 else None
        why = is_outlier(m, peak_pct)
        # On a machine that stays busy another round only costs time: the figure is flagged instead.
        if why and (fid, kind) not in stopped and not busy_reason(m.get("machine") or {}, run.cores):
            again.setdefault((fid, kind), why)
    return again


def _one_benchmark(run: _Run, members: Sequence[Member], bench: str, *, preset: str, budget: float | None,
                   bench_timeout: float, cancel: threading.Event | None, devices: Sequence[str] | None) -> None:
    rounds = ROUNDS.get(preset, 1) if bench in ROUND_BENCHMARKS else 1
    share = 1.0 / rounds
    if bench == "gemm":
        rounds = GEMM_ROUNDS.get(preset, rounds)
        share = GEMM_BUDGET_FACTOR.get(preset, 1.0) / rounds
    collected: dict[tuple[str, str, str], list[ResultRow]] = {}
    stopped: set[tuple[str, str]] = set()
    pairs = [(m, k) for m in members if bench in m.benchmarks for k in m.kinds if f"{bench}@{k}" not in m.skip]
    for r in range(rounds):
        shift = r % max(len(pairs), 1)
        for m, kind in pairs[shift:] + pairs[:shift]:  # rotate: nobody always measures first
            if m.dead or (m.fid, kind) in stopped:
                continue
            _turn(run, m, bench, kind, r, share, budget, bench_timeout, cancel, devices, collected, stopped)
    if rounds > 1:
        again = remeasure(run, collected, stopped)
        for m, kind in pairs:
            why = again.get((m.fid, kind))
            if why and not m.dead:
                run.tell(BenchEvent("note", m.fid, bench, kind, message=f"measuring {bench} again: {why}"))
                _turn(run, m, bench, kind, rounds, share, budget, bench_timeout, cancel, devices, collected, stopped)
    for (fid, _kind, _variant), rs in collected.items():
        try:
            run.add(_measurement(fid, merge_rounds(rs), run.envs.get(fid, {}), run.peak, run.gpu_peak))
        except (KeyError, TypeError, ValueError) as exc:
            run.fail(fid, bench, rs[0].get("device"), "bad_output", repr(exc))
