"""Shared timing, statistics, presets and the benchmark driver of every `bench_*` child (stdlib + NumPy only).

The method follows `torch.utils.benchmark` and pyperf: warm up, batch calls into blocks long
enough that timer overhead is negligible, sample blocks until the spread is small or the budget
is spent, then report median, IQR, min and the number of samples with warnings when a figure
cannot be trusted. Every framework's script measures through these same functions, so their
figures are comparable; only the workload code differs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from probes import _machine
from probes._proto import emit

#: Every benchmark a child may run, in the order they run.
BENCHMARKS = (
    "gemm", "elementwise", "dispatch", "conv", "train_mlp", "train_transformer", "infer_latency", "transfer",
    "allreduce", "agreement",
)

#: A block shorter than this is dominated by timer and loop overhead (torch.utils.benchmark uses 10 ms too).
MIN_BLOCK_S = 0.010
#: Stop sampling once IQR/median is below this and enough samples exist.
TARGET_REL_IQR = 0.02
#: Above this the figure is flagged as unstable (pyperf warns at a similar spread).
UNSTABLE_REL_IQR = 0.10
MIN_SAMPLES = 5
#: Warm-up runs at least this long (and at least `warmup` calls) before timing: thread pools spin up, primitive
#: caches fill and the clock ramps up over the first ~0.1 s (TensorFlow's 1024 GEMM ran at half speed for its
#: first ~20 calls here, which was the whole measurement budget of the quick preset).
WARMUP_S = 0.15
#: Threads the suite runs with (set by `run_suite`): the CPU share in each figure's machine state is out of these.
THREADS = [1]
#: The machine state of the last timed run, for results built from `measure_latencies` (which returns times only).
_LAST_MACHINE: list[dict[str, Any]] = [{}]


# --------------------------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class Stats:
    """Summary of per-call times, in seconds."""

    median_s: float
    iqr_s: float
    min_s: float
    mean_s: float
    samples: int
    number: int  # calls per sample (block size)
    total_s: float  # wall time spent sampling
    times_s: tuple[float, ...]
    warnings: tuple[str, ...] = ()
    ci_low_s: float = 0.0  # distribution-free 95% confidence interval of the median (order statistics)
    ci_high_s: float = 0.0
    machine: dict[str, Any] = field(default_factory=dict)  # the machine's state while this was measured

    @property
    def rel_iqr(self) -> float:
        """IQR as a fraction of the median (0 when the median is 0)."""
        return self.iqr_s / self.median_s if self.median_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The fields a `result` event carries."""
        return {
            "median_s": self.median_s,
            "iqr_s": self.iqr_s,
            "min_s": self.min_s,
            "mean_s": self.mean_s,
            "samples": self.samples,
            "number": self.number,
            "total_s": round(self.total_s, 4),
            "times_s": [float(f"{t:.6g}") for t in self.times_s[:200]],
            "warnings": list(self.warnings),
            "ci_low_s": self.ci_low_s,
            "ci_high_s": self.ci_high_s,
            "machine": dict(self.machine),
        }


def median_ci(times: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """A 95% confidence interval of the median from order statistics (no assumption about the distribution).

    The ranks n/2 -+ z*sqrt(n)/2 of the sorted sample (the normal approximation of the binomial); with
    fewer than 6 samples that interval is wider than the sample, so it is the sample's range.
    """
    xs = sorted(times)
    n = len(xs)
    if n < 6:
        return xs[0], xs[-1]
    half = z * math.sqrt(n) / 2.0
    lo = max(int(math.floor(n / 2.0 - half)), 0)
    hi = min(int(math.ceil(n / 2.0 + half)), n - 1)
    return xs[lo], xs[hi]


def summarize(times: Sequence[float], *, number: int = 1, total_s: float | None = None) -> Stats:
    """Median, IQR, min, mean and the pyperf-style warnings for per-call times (one entry per sample)."""
    if not times:
        raise ValueError("no samples to summarize")
    arr = np.asarray(times, dtype=np.float64)
    q25, med, q75 = (float(v) for v in np.percentile(arr, [25, 50, 75]))
    lo, hi = median_ci(times)
    stats = Stats(
        median_s=med,
        iqr_s=q75 - q25,
        min_s=float(arr.min()),
        mean_s=float(arr.mean()),
        samples=len(times),
        number=number,
        total_s=float(arr.sum() * number) if total_s is None else total_s,
        times_s=tuple(float(t) for t in times),
        ci_low_s=float(lo),
        ci_high_s=float(hi),
    )
    return Stats(**{**stats.__dict__, "warnings": tuple(spread_warnings(stats))})


def spread_warnings(stats: Stats) -> list[str]:
    """Say when a figure cannot be trusted: wide spread, too few samples, blocks too short."""
    out: list[str] = []
    if stats.rel_iqr > UNSTABLE_REL_IQR:
        out.append(f"unstable: IQR is {stats.rel_iqr:.0%} of the median (another process may be using the CPU)")
    if stats.samples < MIN_SAMPLES:
        out.append(f"only {stats.samples} sample(s): the budget was too small for a stable figure")
    if stats.median_s * stats.number < MIN_BLOCK_S / 2:
        out.append(f"blocks of {stats.median_s * stats.number * 1e3:.2f} ms are short: timer overhead may matter")
    if stats.samples >= MIN_SAMPLES and stats.min_s > 0 and stats.median_s / stats.min_s > 1.25:
        out.append(f"median is {stats.median_s / stats.min_s:.2f}x the minimum: a wide spread")
    return out


def percentiles(times: Sequence[float], qs: Iterable[float] = (50, 90, 99)) -> dict[str, float]:
    """Latency percentiles (seconds) keyed "p50", "p90", ..."""
    arr = np.asarray(times, dtype=np.float64)
    return {f"p{q:g}": float(np.percentile(arr, q)) for q in qs}


# --------------------------------------------------------------------------------------------- timing


def _noop() -> None:
    return None


def measure(
    fn: Callable[[], Any],
    *,
    sync: Callable[[Any], Any] | None = None,
    budget_s: float = 1.0,
    min_block_s: float = MIN_BLOCK_S,
    min_samples: int = MIN_SAMPLES,
    max_samples: int = 200,
    target_rel_iqr: float = TARGET_REL_IQR,
    warmup: int = 1,
    warmup_s: float = WARMUP_S,
    clock: Callable[[], float] = time.perf_counter,
) -> Stats:
    """Adaptive repetition: per-call time of `fn`, synchronised by `sync(fn's last result)` at block ends.

    `sync` must wait until the device finished the work (`torch.cuda.synchronize`,
    `block_until_ready`, fetching a TF tensor's value); it runs once per block, inside the timed
    region, as `torch.utils.benchmark` does. Calls are batched until a block takes at least
    `min_block_s`; blocks are sampled until IQR/median < `target_rel_iqr` with `min_samples`
    samples, or until `budget_s` (excluding warm-up) is spent and `min_samples` exist (at most 3x
    the budget to reach them). At least 2 samples are always taken. Warm-up (not timed, not counted in
    the budget) lasts at least `warmup` calls and at least `warmup_s` seconds.
    """
    do_sync = sync or (lambda _r: None)
    warm_start = clock()
    done = 0
    while done < max(warmup, 0) or clock() - warm_start < warmup_s:
        do_sync(fn())
        done += 1

    def block(number: int) -> float:
        start = clock()
        # Results are dropped at once, as in a `timeit` loop; only the last is kept, for the sync.
        for _ in range(number - 1):
            fn()
        do_sync(fn())
        return clock() - start

    # Calibrate the block size the way blocked_autorange does: grow until a block is long enough.
    number = 1
    spent = 0.0
    while True:
        t = block(number)
        spent += t
        if t >= min_block_s or spent > budget_s / 4:
            break
        # Jump close to the target at once rather than doubling many times (cheap ops need thousands of calls).
        number = max(number * 2, int(math.ceil(number * min_block_s * 1.2 / max(t, 1e-9))))
    times: list[float] = [t / number]
    before = _machine.snapshot()
    start = clock()
    while len(times) < max_samples:
        times.append(block(number) / number)
        elapsed = clock() - start
        if len(times) >= min_samples:
            stats = summarize(times, number=number)
            if stats.rel_iqr <= target_rel_iqr and elapsed >= min(budget_s / 4, 0.05):
                break
        # Past the budget, stop once there are enough samples for a median; a burst of load that made
        # blocks far longer than planned may extend the run to 3x the budget to get them.
        if elapsed >= budget_s and len(times) >= 2 and (len(times) >= min_samples or elapsed >= 3 * budget_s):
            break
    stats = summarize(times, number=number, total_s=clock() - start + spent)
    state = _machine.between(before, _machine.snapshot(), THREADS[0])
    _LAST_MACHINE[0] = state
    return Stats(**{**stats.__dict__, "machine": state})


def measure_latencies(
    fn: Callable[[], Any],
    *,
    sync: Callable[[Any], Any] | None = None,
    budget_s: float = 1.0,
    min_calls: int = 20,
    max_calls: int = 10000,
    warmup: int = 3,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Time each call on its own (synchronised), for latency percentiles; at least `min_calls` calls."""
    do_sync = sync or (lambda _r: None)
    for _ in range(max(warmup, 0)):
        do_sync(fn())
    out: list[float] = []
    before = _machine.snapshot()
    start = clock()
    while len(out) < max_calls:
        t0 = clock()
        do_sync(fn())
        out.append(clock() - t0)
        if len(out) >= min_calls and clock() - start >= budget_s:
            break
    _LAST_MACHINE[0] = _machine.between(before, _machine.snapshot(), THREADS[0])
    return out


def time_first_call(fn: Callable[[], Any], sync: Callable[[Any], Any] | None = None) -> float:
    """Seconds taken by one synchronised call (used for the first, compiling call)."""
    start = time.perf_counter()
    result = fn()
    if sync is not None:
        sync(result)
    return time.perf_counter() - start


# --------------------------------------------------------------------------------------------- presets


@dataclass(frozen=True)
class Preset:
    """Problem sizes and time budgets of one preset (the same for every framework)."""

    name: str
    budget_s: float  # measurement budget of one case (one size, one variant)
    gemm_sizes: tuple[int, ...]
    gemm_low_precision_sizes: tuple[int, ...]
    elementwise_n: int
    conv_batch: int
    conv_hw: int
    conv_channels: int
    mlp: tuple[int, int, int, int]  # batch, in, hidden, out
    transformer: tuple[int, int, int, int]  # batch, seq, d_model, heads
    latency_calls: int
    allreduce_sizes: tuple[int, ...]  # float32 elements
    compile_heavy: bool  # also compile the transformer where compiling is slow (torch.compile on CPU)
    transfer_bytes: int = 64 << 20
    # The variants that cost more set-up than measuring on a CPU: torch.compile of the small MLP (10-20 s) and JAX's
    # op-by-op training step (every primitive compiled on first use). The quick preset leaves them to standard.
    full_variants: bool = True


PRESETS: dict[str, Preset] = {
    "test": Preset(
        name="test", budget_s=0.05, gemm_sizes=(64,), gemm_low_precision_sizes=(64,), elementwise_n=1 << 16,
        conv_batch=1, conv_hw=8, conv_channels=4, mlp=(8, 16, 32, 4), transformer=(2, 8, 16, 2),
        latency_calls=20, allreduce_sizes=(1 << 10,), compile_heavy=False, transfer_bytes=1 << 20,
    ),
    "quick": Preset(
        name="quick", budget_s=0.35, gemm_sizes=(256, 1024), gemm_low_precision_sizes=(1024,),
        elementwise_n=1 << 23, conv_batch=4, conv_hw=56, conv_channels=64, mlp=(64, 256, 512, 10),
        transformer=(8, 64, 128, 4), latency_calls=100, allreduce_sizes=(1 << 20,), compile_heavy=False,
        full_variants=False,
    ),
    "standard": Preset(
        name="standard", budget_s=1.0, gemm_sizes=(256, 512, 1024, 2048), gemm_low_precision_sizes=(1024, 2048),
        elementwise_n=1 << 24, conv_batch=16, conv_hw=56, conv_channels=64, mlp=(128, 512, 1024, 10),
        transformer=(16, 128, 256, 8), latency_calls=300, allreduce_sizes=(1 << 16, 1 << 20, 1 << 24),
        compile_heavy=True,
    ),
    "thorough": Preset(
        name="thorough", budget_s=3.0, gemm_sizes=(256, 512, 1024, 2048, 4096),
        gemm_low_precision_sizes=(1024, 2048, 4096), elementwise_n=1 << 26, conv_batch=32, conv_hw=56,
        conv_channels=64, mlp=(256, 1024, 2048, 10), transformer=(32, 128, 512, 8), latency_calls=1000,
        allreduce_sizes=(1 << 12, 1 << 16, 1 << 20, 1 << 24, 1 << 26), compile_heavy=True,
        transfer_bytes=256 << 20,
    ),
}


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
    warnings: Sequence[str] = (),
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
    warnings = [w for w in stats.warnings if not w.startswith("blocks of")]  # single calls are the point here
    if len(times) < 100:
        warnings.append(f"only {len(times)} calls: p99 is not meaningful below 100")
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

    def emit_result(self, fields: dict[str, Any]) -> None:
        """Send one result to the parent now (so progress shows live)."""
        emit("result", device=self.device, device_name=self.device_name, **fields)

    def skip(self, benchmark: str, reason: str) -> None:
        """Report that a benchmark does not apply here, with the reason."""
        emit("skip", benchmark=benchmark, device=self.device, reason=reason)


BenchFn = Callable[[Context], None]


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
                  extra=dict(extra or {}))
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
