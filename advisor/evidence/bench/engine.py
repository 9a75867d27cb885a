"""`run_bench`: the NumPy baseline and each framework's children, in order, into one `BenchReport`."""

from __future__ import annotations

import os
import platform
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from advisor.errors import UsageError
from advisor.evidence.bench.agreement import _compare_agreement
from advisor.evidence.bench.diagnose import explain_gemm
from advisor.evidence.bench.figures import _gpu_peak_from_probe, _peak_from_probe
from advisor.evidence.bench.interleave import Member, run_interleaved
from advisor.evidence.bench.presets import (
    AGREEMENT_TOL,
    BENCH_TIMEOUT_S,
    BENCHMARKS,
    DEVICES,
    NUMPY,
    NUMPY_BENCHMARKS,
    PRESET_BENCHMARKS,
    PRESETS,
)
from advisor.evidence.bench.results import BenchEvent, BenchReport, Measurement
from advisor.evidence.bench.runner import _Run, _run_script, _torchrun, child_base_args, child_env_vars
from advisor.evidence.bench.stats import BUSY_FIGURES_SHARE, BUSY_OTHERS_SHARE, BUSY_STEAL_PCT, busy_cause
from advisor.frameworks.base import FrameworkAdapter
from advisor.paths import probes_root
from advisor.privacy import recorded_env, scrub
from advisor.sanitize import echo

if TYPE_CHECKING:
    from advisor.evidence.hardware.cpu import PeakEstimate


def _environment(preset: str, peak: PeakEstimate | None, threads: int, budget: float | None) -> dict[str, Any]:
    env_vars = recorded_env()  # exact names only (advisor.privacy): a prefix would catch TF_VAR_* secrets
    try:
        load = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        load = None
    return {
        "python": platform.python_version(), "platform": platform.platform(), "machine": platform.machine(),
        "usable_cores": threads, "threads": threads, "preset": preset, "budget_s": budget,
        "peak": None if peak is None else {"fp32_gflops": peak.fp32_gflops, "bf16_gflops": peak.bf16_gflops,
                                           "formula": peak.formula},
        "loadavg_start": load, "env": env_vars,
        "method": "warm-up; calls batched into blocks >= 10 ms; blocks sampled until IQR/median <= 2% "
                  "(>= 5 samples) or the budget is spent; median, IQR, min reported",
    }


class BusyThresholds(TypedDict):
    """The thresholds a busy machine is judged by (bench/stats.py), recorded beside the verdict."""

    others_share_of_cores: float
    steal_pct: float
    busy_figures_share: float


class MachineBusy(TypedDict):
    """How busy the machine was over a run's figures: the report's `environment.machine_state`."""

    busy: bool
    figures: int
    busy_figures: int
    reasons: list[str]
    others_cores_median: float | None
    others_cores_max: float | None
    steal_pct_max: float | None
    cores: int
    thresholds: BusyThresholds


def machine_summary(results: Sequence[Measurement], cores: int) -> MachineBusy:
    """How busy the machine was over the run's figures, and whether it was too busy to recommend from."""
    timed = [m for m in results if m.machine]
    causes = {m.key: c for m in timed if (c := busy_cause(m.machine, cores))}
    others = sorted(float(v) for m in timed if isinstance(v := m.machine.get("others_cores"), int | float))
    steal = [float(v) for m in timed if isinstance(v := m.machine.get("steal_pct"), int | float)]
    busy = bool(timed) and len(causes) > BUSY_FIGURES_SHARE * len(timed)
    worst: list[str] = []
    if "steal" in causes.values():
        worst.append(f"CPU steal up to {max(steal):.0f}%")
    if "others" in causes.values():
        worst.append(f"other processes used up to {others[-1]:.1f} of {cores} cores "
                     f"(median {others[len(others) // 2]:.1f})")
    return {
        "busy": busy, "figures": len(timed), "busy_figures": len(causes), "reasons": worst,
        "others_cores_median": others[len(others) // 2] if others else None,
        "others_cores_max": others[-1] if "others" in causes.values() else None,
        "steal_pct_max": max(steal) if steal else None,
        "cores": cores,
        "thresholds": {"others_share_of_cores": BUSY_OTHERS_SHARE, "steal_pct": BUSY_STEAL_PCT,
                       "busy_figures_share": round(BUSY_FIGURES_SHARE, 3)},
    }


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# --------------------------------------------------------------------------------------------- entry point


def run_bench(
    *,
    preset: str = "quick",
    frameworks: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
    devices: Sequence[str] | None = None,
    budget_s: float | None = None,
    on_event: Callable[[BenchEvent], None] | None = None,
    cancel: threading.Event | None = None,
    peak: PeakEstimate | None = None,
    nproc: int = 2,
    rendezvous: Sequence[str] = (),
    threads: int | None = None,
    baseline: bool = True,
    adapters: Mapping[str, FrameworkAdapter] | None = None,
    bench_timeout_s: float | None = None,
    started: Mapping[str, Member] | None = None,
) -> BenchReport:
    """Run the suite through each installed framework (one child each) and return every figure and failure.

    `budget_s` bounds the measuring time of the whole run (split evenly over frameworks and
    benchmarks; imports and compiles are extra). `rendezvous` are torchrun options for a
    multi-node all-reduce (e.g. `--nnodes=2 --node-rank=0 --rdzv-endpoint=host:29400`).
    `adapters` replaces the registry (plugins, tests); `baseline=False` skips the NumPy child.
    `started` are children already up, keyed by adapter id (`bench.shared`: they probed their framework and wait
    for benchmark commands); one the run does not use is closed. Their command line must be this run's.
    """
    if preset not in PRESETS:
        raise UsageError(f"unknown preset {echo(preset)}; choose one of {', '.join(PRESETS)}", field="--preset")
    selected = list(only) if only else list(PRESET_BENCHMARKS.get(preset, BENCHMARKS))
    unknown = [b for b in selected if b not in BENCHMARKS]
    if unknown:
        raise UsageError(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}",
                         field="--only")
    bad_dev = [d for d in devices or () if d not in DEVICES]
    if bad_dev:
        raise UsageError(f"unknown device(s) {', '.join(bad_dev)}; choose from {', '.join(DEVICES)}",
                         field="--device")
    if nproc < 1:
        raise UsageError("--nproc must be at least 1", field="--nproc")
    if adapters is None:
        from advisor.frameworks.registry import adapters as registry

        adapters = registry()
    wanted = list(frameworks) if frameworks else list(adapters)
    missing_adapter = [f for f in wanted if f not in adapters]
    if missing_adapter:
        raise UsageError(f"no adapter for {', '.join(missing_adapter)}; known: {', '.join(adapters)}",
                         field="--framework")
    selected = [b for b in BENCHMARKS if b in selected]
    start = time.perf_counter()
    try:
        load_start: list[float] | None = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        load_start = None
    peak = peak if peak is not None else _peak_from_probe()
    n_threads = threads or _usable_cores()
    gpu_peak = _gpu_peak_from_probe() if not devices or "gpu" in devices else None
    run = _Run(peak=peak, on_event=on_event, cores=n_threads, gpu_peak=gpu_peak)
    bench_timeout = bench_timeout_s or BENCH_TIMEOUT_S[preset]
    per_bench = None
    if budget_s is not None:
        per_bench = max(budget_s / max(len(wanted) * len(selected), 1), 0.01)
    base = child_base_args(preset, n_threads, devices, per_bench)
    child_env = child_env_vars(n_threads)
    fault = {k: v for k, v in child_env.items() if k == "FWADVISOR_BENCH_FAULT"}
    started = dict(started or {})
    # The fleet preset leaves out the CPU's bf16 GEMM where the probe found no bf16 units (its peak has no bf16
    # figure): emulated, it costs seconds a call (PyTorch 4.5 s at 1024) and compares nothing between nodes.
    run.cpu_low_precision = not (preset == "fleet" and peak is not None and peak.bf16_gflops is None)

    members: list[Member] = []
    np_benches = [b for b in selected if b in NUMPY_BENCHMARKS]
    if baseline and np_benches and (not devices or "cpu" in devices):
        members.append(Member(NUMPY, "NumPy baseline", "probes.bench_numpy", probes_root(), base,
                              dict(child_env), np_benches))
    collectives: list[FrameworkAdapter] = []
    for fid in wanted:
        adapter = adapters[fid]
        if adapter.installed() is None:
            run.fail(fid, "*", None, "missing", f"not installed (none of {', '.join(adapter.distributions)})")
            continue
        if not adapter.bench_module:
            host = adapter.probe_with()  # Keras 3: its ops are its backend's, measured under that name
            run.fail(fid, "*", None, "skipped", "no benchmark script of its own" + (
                f": it runs on {host}, whose figures are its figures" if host else ""))
            continue
        own = list(selected)
        skip: set[str] = set()
        collective = "allreduce" in own and fid in ("pytorch", "jax")
        if collective and fid == "pytorch":
            own.remove("allreduce")  # measured under torchrun below
        if collective and fid == "jax" and (not devices or "cpu" in devices):
            skip.add("allreduce@cpu")  # needs a child with several host devices, below
        if collective:
            collectives.append(adapter)
        if own:
            member = Member(fid, adapter.display_name, adapter.bench_module, adapter.script_root(), base,
                            dict(child_env), own, skip)
            pre = started.pop(fid, None)
            if pre is not None:  # its child is up already: it probed the framework and waits for commands
                member.session, member.ready = pre.session, pre.ready
            members.append(member)
    for pre in started.values():  # started for a framework this run does not measure
        if pre.session is not None:
            pre.session.close()
    if cancel is not None and cancel.is_set():
        for m in members:
            if m.session is not None:
                m.session.kill()
            run.fail(m.fid, "*", None, "cancelled", "cancelled before it started")
        members = []
    # Every child alive at once, taking turns benchmark by benchmark (see bench/interleave.py).
    run_interleaved(run, members, selected, preset=preset, budget=per_bench, bench_timeout=bench_timeout,
                    cancel=cancel, devices=devices)

    for adapter in collectives:
        fid = adapter.id
        if cancel is not None and cancel.is_set():
            break
        if fid == "pytorch":
            run.tell(BenchEvent("note", fid, "allreduce", None, message=f"all-reduce: torchrun, {nproc} processes"))
            _torchrun(run, adapter, preset, nproc=nproc, rendezvous=rendezvous, devices=devices,
                      bench_timeout=bench_timeout, budget=per_bench, cancel=cancel)
        if fid == "jax" and (not devices or "cpu" in devices):
            flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={nproc}".strip()
            jax_args = [*base[:4], "--device", "cpu", *(["--budget", f"{per_bench:.4g}"] if per_bench else [])]
            _run_script(run, fid, adapter.bench_module or "", jax_args, ["allreduce"], root=adapter.script_root(),
                        bench_timeout=bench_timeout, cancel=cancel,
                        env={"XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu", **fault})

    if "agreement" in selected:
        _compare_agreement(run, AGREEMENT_TOL)
    run.results[:] = explain_gemm(run.results, n_threads, n_threads)
    env = _environment(preset, peak, n_threads, budget_s)
    env["gpu_peak"] = gpu_peak
    if not run.cpu_low_precision:
        env["skipped_dtypes"] = {"cpu": ["bf16"], "reason": "the probe found no bf16 units on this CPU"}
    try:
        env["loadavg_end"] = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        env["loadavg_end"] = None
    env["loadavg_start"] = load_start
    env["machine_state"] = machine_summary(run.results, n_threads)
    env["frameworks"] = run.envs
    env["argv"] = scrub(list(sys.argv[1:]))  # the command line names files, often under the home folder
    return BenchReport(preset=preset, wall_s=time.perf_counter() - start, environment=env,
                       results=tuple(run.results), failures=tuple(run.failures))
