"""Result helpers and the benchmark driver of every `bench_*` child (stdlib + NumPy only).

Presets live in probes/_presets.py, timing and statistics in probes/_timing.py; both are re-exported here, so
scripts use `B.measure` and `B.PRESETS`.

The method follows `torch.utils.benchmark` and pyperf: warm up, batch calls into blocks long
enough that timer overhead is negligible, sample blocks until the spread is small or the budget
is spent, then report median, IQR, min and the number of samples with warnings when a figure
cannot be trusted. Every framework's script measures through these same functions, so their
figures are comparable; only the workload code differs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from probes._presets import BENCHMARKS, PRESETS, Preset  # noqa: F401 - re-exported: scripts and tests use `B.<name>`
from probes._proto import emit
from probes._timing import (  # noqa: F401 - re-exported: every bench script measures through `B.<name>`
    _LAST_MACHINE,
    MIN_BLOCK_S,
    MIN_SAMPLES,
    TARGET_REL_IQR,
    THREADS,
    TIMED_ONCE,
    UNSTABLE_REL_IQR,
    WARMUP_S,
    Stats,
    measure,
    measure_latencies,
    median_ci,
    note,
    percentiles,
    spread_warnings,
    summarize,
    time_first_call,
    timed_once,
)

# --------------------------------------------------------------------------------------------- results


def result(
    benchmark: str,
    variant: str,
    stats: Stats | None,
    *,
    value: float,
    unit: str,
    metric: str = "throughput",
    higher_is_better: bool = True,
    params: dict[str, Any] | None = None,
    compile_s: float | None = None,
    warnings: Sequence[dict[str, Any]] = (),
    flops: float | None = None,
) -> dict[str, Any]:
    """One `result` event's fields (the parent adds framework, device, environment and % of peak)."""
    fields: dict[str, Any] = {
        "benchmark": benchmark,
        "variant": variant,
        "metric": metric,
        "value": float(value),
        "unit": unit,
        "higher_is_better": higher_is_better,
        "params": params or {},
        "compile_s": compile_s,
        "flops": flops,
    }
    if stats is not None:
        fields.update(stats.to_json())
    if not fields.get("machine"):
        fields["machine"] = dict(_LAST_MACHINE[0])
    fields["warnings"] = [*(stats.warnings if stats else ()), *warnings]
    return fields


def rate(amount: float, seconds: float) -> float:
    """amount / seconds, 0 when seconds is 0 (never divides by zero)."""
    return amount / seconds if seconds > 0 else 0.0


@lru_cache(maxsize=3)
def gemm_operands(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The two fp32 n x n operands of every framework's GEMM: the same data for all, drawn once per child.

    Every round used to draw them again, the same values each time: on a GPU's sizes that is two 8192 x 8192
    normal draws per case and round on the CPU (a second or more each through NumPy) for no new information.
    Read-only: a framework that wraps them without a copy (torch.from_numpy on the CPU) must not write to them.
    """
    rng = np.random.default_rng([0, n])
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    a.setflags(write=False)
    b.setflags(write=False)
    return a, b


def gemm_result(n: int, dtype: str, stats: Stats, **kw: Any) -> dict[str, Any]:
    """A square GEMM of size n: GFLOP/s from the median (2 n^3 flops per product)."""
    flops = 2.0 * n**3
    return result(
        "gemm", f"{dtype}-{n}", stats, value=rate(flops, stats.median_s) / 1e9, unit="GFLOP/s",
        params={"n": n, "dtype": dtype, **kw.pop("params", {})}, flops=flops, **kw,
    )


def elementwise_result(n: int, itemsize: int, stats: Stats, variant: str = "axpy-fp32", **kw: Any) -> dict[str, Any]:
    """`a*x + y` over n elements: GB/s counting 3 arrays moved (read x, read y, write out), STREAM-triad style.

    Variant "axpy-fp32" is the expression as users write it (a fresh result array each call, so the
    allocator's page faults count); "axpy-fp32-out" writes into a preallocated array.
    """
    moved = 3.0 * n * itemsize
    return result(
        "elementwise", variant, stats, value=rate(moved, stats.median_s) / 1e9, unit="GB/s",
        params={"n": n, "bytes_counted": moved, "accounting": "3 arrays x itemsize (STREAM triad)",
                **kw.pop("params", {})}, **kw,
    )


def conv_flops(p: Preset) -> float:
    """FLOPs of one forward of the 3x3 conv layer (same padding, stride 1) over the whole batch."""
    return 2.0 * p.conv_batch * p.conv_hw * p.conv_hw * p.conv_channels * p.conv_channels * 9


def conv_result(p: Preset, stats: Stats, **kw: Any) -> dict[str, Any]:
    """Images per second of the conv layer forward, with its GFLOP/s in params."""
    return result(
        "conv", "3x3-fp32", stats, value=rate(p.conv_batch, stats.median_s), unit="images/s",
        params={"batch": p.conv_batch, "hw": p.conv_hw, "channels": p.conv_channels,
                "gflops": rate(conv_flops(p), stats.median_s) / 1e9, **kw.pop("params", {})},
        flops=conv_flops(p), **kw,
    )


def step_result(benchmark: str, variant: str, stats: Stats, **kw: Any) -> dict[str, Any]:
    """A training step: milliseconds per step (median), lower is better."""
    return result(benchmark, variant, stats, value=stats.median_s * 1e3, unit="ms/step", metric="latency",
                  higher_is_better=False, **kw)


def latency_result(variant: str, times: Sequence[float], params: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """Batch-1 inference latency: p50 as the value, p90/p99 in params (MLPerf-style)."""
    stats = summarize(times, number=1)
    pct = percentiles(times)
    warnings = [w for w in stats.warnings if w["code"] != "short_blocks"]  # single calls are the point here
    if len(times) < 100:
        warnings.append(note("few_calls", f"only {len(times)} calls: p99 is not meaningful below 100",
                             calls=len(times)))
    out = result("infer_latency", variant, stats, value=pct["p50"] * 1e3, unit="ms", metric="latency",
                 higher_is_better=False, params={**params, **{k: v * 1e3 for k, v in pct.items()}}, **kw)
    out["warnings"] = [*warnings, *kw.get("warnings", ())]
    return out


# --------------------------------------------------------------------------------------------- agreement data


def agreement_data(seed: int = 20240601) -> dict[str, np.ndarray]:
    """The seed data of the numerical-agreement MLP step, identical in every child (NumPy's PCG64)."""
    rng = np.random.default_rng(seed)
    batch, d_in, hidden, d_out = 16, 12, 20, 4
    f32 = np.float32
    return {
        "x": rng.standard_normal((batch, d_in)).astype(f32),
        "y": rng.standard_normal((batch, d_out)).astype(f32),
        "w1": (rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)).astype(f32),
        "b1": (rng.standard_normal((hidden,)) * 0.1).astype(f32),
        "w2": (rng.standard_normal((hidden, d_out)) / np.sqrt(hidden)).astype(f32),
        "b2": (rng.standard_normal((d_out,)) * 0.1).astype(f32),
    }


#: The agreement step: h = tanh(x @ w1 + b1); out = h @ w2 + b2; loss = mean((out - y)^2); SGD with this rate.
AGREEMENT_LR = 0.1
AGREEMENT_PARAMS = ("w1", "b1", "w2", "b2")


def agreement_payload(loss: float, grads: dict[str, Any], updated: dict[str, Any]) -> dict[str, Any]:
    """What a child reports: the loss, each gradient in full (they are small) and the updated weights' norms."""
    return {
        "loss": float(loss),
        "grads": {k: np.asarray(grads[k], dtype=np.float64).ravel().tolist() for k in AGREEMENT_PARAMS},
        "updated_norms": {k: float(np.linalg.norm(np.asarray(updated[k], dtype=np.float64)))
                          for k in AGREEMENT_PARAMS},
    }


# --------------------------------------------------------------------------------------------- driver


@dataclass
class Context:
    """What a benchmark function receives: preset, device, per-case budget and a way to emit results."""

    preset: Preset
    device: str  # "cpu", "gpu", "tpu"
    device_name: str
    budget_s: float
    threads: int
    handle: Any = None  # the framework's device object
    extra: dict[str, Any] = field(default_factory=dict)
    round: int = 0  # which interleaved round this is (0 when the benchmark runs once)

    def gemm_sizes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The GEMM sizes on this device: (fp32, low precision); an accelerator's are large enough to time the math."""
        if self.device == "cpu":
            return self.preset.gemm_sizes, self.preset.gemm_low_precision_sizes if CPU_LOW_PRECISION[0] else ()
        return self.preset.accel_gemm_sizes, self.preset.accel_gemm_low_precision_sizes

    def done_with(self, case: str) -> bool:
        """Whether an earlier round found `case` slower than a round (see `measure_case`): skip its set-up too."""
        return self.round > 0 and (self.device, case) in _SLOW_CASES

    def measure_case(self, case: str, fn: Callable[[], Any], **kw: Any) -> Stats | None:
        """`measure` one case of this benchmark at the context's budget; None when an earlier round found it slow.

        A case whose single call outlasts a whole round's budget (PyTorch's bf16 GEMM on a CPU without
        bf16 units: 2.5 s a call, ~100x its fp32) costs seconds per round for a warm-up and two calls;
        more rounds would add little to a figure that far from the others, so it is measured in its
        first round only and says so.
        """
        key = (self.device, case)
        if self.done_with(case):
            return None
        if self.round > 0:
            # The child is warm from round 0 (compiled, caches filled); a short warm-up wakes its threads after
            # the other frameworks' turns without spending a many-round preset's budget on warming up.
            kw.setdefault("warmup_s", WARMUP_S / 3)
        # A call of over a second and ten rounds' budget is timed once: more samples would cost minutes, not accuracy.
        kw.setdefault("once_over_s", max(10 * self.budget_s, ONCE_OVER_MIN_S))
        stats = measure(fn, budget_s=self.budget_s, **kw)
        if stats.median_s > self.budget_s:
            _SLOW_CASES.add(key)
            slow = note("one_round", f"one call takes {stats.median_s:.2f} s, more than a round's budget "
                        f"({self.budget_s:.2f} s): measured in one round only", seconds=stats.median_s)
            if stats.samples == 1:  # timed once: one note says both
                slow = timed_once(stats.median_s, ", in one round only")
                stats = Stats(**{**stats.__dict__, "warnings": tuple(w for w in stats.warnings
                                                                     if w["code"] != "timed_once")})
            stats = Stats(**{**stats.__dict__, "warnings": (*stats.warnings, slow)})
        return stats

    def emit_result(self, fields: dict[str, Any]) -> None:
        """Send one result to the parent now (so progress shows live)."""
        emit("result", device=self.device, device_name=self.device_name, **fields)

    def skip(self, benchmark: str, reason: str) -> None:
        """Report that a benchmark does not apply here, with the reason."""
        emit("skip", benchmark=benchmark, device=self.device, reason=reason)


BenchFn = Callable[[Context], None]
#: A GEMM case's first call longer than this (and than ten rounds' budget) is its only sample.
ONCE_OVER_MIN_S = 1.0
#: (device, case) pairs found slower per call than a round's budget (see `Context.measure_case`).
_SLOW_CASES: set[tuple[str, str]] = set()
#: Whether the CPU's low-precision GEMM runs: the parent turns it off where the probe found no bf16 units on this
#: CPU (for the fleet preset), since an emulated bf16 GEMM costs seconds a call and compares nothing between nodes.
CPU_LOW_PRECISION = [True]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line every bench child accepts (the parent builds it)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="quick", choices=sorted(PRESETS))
    ap.add_argument("--only", default="", help="comma-separated benchmarks (default: all)")
    ap.add_argument("--skip", default="", help="comma-separated benchmark@device pairs already done")
    ap.add_argument("--device", default="", help="comma-separated device kinds (default: all)")
    ap.add_argument("--budget", type=float, default=None, help="seconds per benchmark (split over its cases)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--serve", action="store_true", help="take benchmark commands from stdin (JSON lines)")
    ap.add_argument("--no-cpu-low-precision", action="store_true", help="no bf16/fp16 GEMM on the CPU")
    return ap.parse_args(argv)


def usable_cores() -> int:
    """CPUs this process may run on (affinity), the default thread count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _fault(benchmark: str, device: str) -> None:
    """Test hook: FWADVISOR_BENCH_FAULT="gemm:crash" (or hang / raise / oom) breaks that benchmark on purpose.

    It exists so the reliability tests can prove a crash, hang or out-of-memory loses only one
    benchmark with the real frameworks; the parent forwards the variable only when it is set.
    """
    spec = os.environ.get("FWADVISOR_BENCH_FAULT", "")
    for item in filter(None, spec.split(",")):
        name, _, kind = item.partition(":")
        if name != benchmark:
            continue
        if kind == "crash":
            os.abort()
        elif kind == "hang":
            time.sleep(3600)
        elif kind == "oom":
            raise MemoryError(f"injected out-of-memory in {benchmark} on {device}")
        else:
            raise RuntimeError(f"injected failure in {benchmark} on {device}")


def _run_one(name: str, fn: BenchFn | None, device: tuple[str, str, Any], preset: Preset, budget: float,
             threads: int, extra: dict[str, Any] | None, round_: int = 0) -> None:
    """Run one benchmark on one device between `bench_start` and `bench_end`; an exception loses it alone."""
    kind, dev_name, handle = device
    emit("bench_start", benchmark=name, device=kind, round=round_)
    start = time.perf_counter()
    ctx = Context(preset=preset, device=kind, device_name=dev_name, handle=handle, budget_s=budget, threads=threads,
                  extra=dict(extra or {}), round=round_)
    if fn is None:
        ctx.skip(name, "not implemented for this framework")
    else:
        try:
            _fault(name, kind)
            fn(ctx)
        except MemoryError as exc:
            emit("bench_error", benchmark=name, device=kind, outcome="out_of_memory",
                 error=f"MemoryError: {exc}"[:1000])
        except Exception as exc:  # noqa: BLE001 - one failing benchmark must not stop the others
            oom = "out of memory" in str(exc).lower() or "resource_exhausted" in str(exc).lower()
            emit("bench_error", benchmark=name, device=kind, outcome="out_of_memory" if oom else "error",
                 error=f"{type(exc).__name__}: {exc}"[:1000], traceback=traceback.format_exc(limit=4)[-2000:])
    emit("bench_end", benchmark=name, device=kind, round=round_, seconds=round(time.perf_counter() - start, 4))


def _serve(benches: dict[str, BenchFn], devices: Sequence[tuple[str, str, Any]], preset: Preset, default_budget: float,
           threads: int, extra: dict[str, Any] | None) -> None:
    """Take turns: say `ready`, then run each `{"cmd": "run", ...}` line from stdin until `quit` or end of input.

    The parent keeps every framework's child alive and sends each one benchmark (one round) at a time,
    so that the frameworks' rounds interleave and a drift in the machine's load hits all of them alike.
    """
    by_kind = {d[0]: d for d in devices}
    emit("ready", benchmarks=[b for b in BENCHMARKS if b in benches], devices=list(by_kind))
    for line in sys.stdin:
        try:
            cmd = json.loads(line)
        except ValueError:
            continue
        if not isinstance(cmd, dict) or cmd.get("cmd") == "quit":
            return
        name, kind = str(cmd.get("benchmark")), str(cmd.get("device"))
        if kind not in by_kind:
            emit("bench_start", benchmark=name, device=kind, round=cmd.get("round", 0))
            emit("skip", benchmark=name, device=kind, reason=f"no {kind} device here")
            emit("bench_end", benchmark=name, device=kind, round=cmd.get("round", 0), seconds=0.0)
            continue
        # `share`: this round's part of the budget (the parent splits a benchmark's budget over its rounds).
        budget = float(cmd.get("budget") or default_budget) * float(cmd.get("share") or 1.0)
        CPU_LOW_PRECISION[0] = bool(cmd.get("cpu_low_precision", True))
        _run_one(name, benches.get(name), by_kind[kind], preset, budget, threads, extra, int(cmd.get("round", 0)))


def run_suite(
    benches: dict[str, BenchFn],
    devices: Sequence[tuple[str, str, Any]],
    args: argparse.Namespace,
    *,
    threads: int,
    extra: dict[str, Any] | None = None,
) -> None:
    """Run the selected benchmarks on each (kind, name, handle) device; an exception loses one benchmark only.

    With `--serve` the parent chooses what runs when (see `_serve`); otherwise every selected benchmark
    runs once, in order.
    """
    THREADS[0] = threads
    CPU_LOW_PRECISION[0] = not getattr(args, "no_cpu_low_precision", False)
    preset = PRESETS[args.preset]
    budget = args.budget if args.budget is not None else preset.budget_s
    if getattr(args, "serve", False):
        _serve(benches, devices, preset, budget, threads, extra)
        return
    only = [b for b in args.only.split(",") if b] or [b for b in BENCHMARKS if b in benches]
    skip = {s for s in args.skip.split(",") if s}
    wanted_devices = {d for d in args.device.split(",") if d}
    for name in [b for b in BENCHMARKS if b in only]:
        for device in devices:
            if (wanted_devices and device[0] not in wanted_devices) or f"{name}@{device[0]}" in skip:
                continue
            _run_one(name, benches.get(name), device, preset, budget, threads, extra)
