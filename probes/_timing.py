"""Timing and statistics of every bench child: warm-up, blocks, adaptive sampling, median, IQR, its CI (stdlib + NumPy).

The method follows `torch.utils.benchmark` and pyperf: warm up, batch calls into blocks long
enough that timer overhead is negligible, sample blocks until the spread is small or the budget
is spent, then report median, IQR, min, a 95% confidence interval of the median and the number of
samples, with warnings when a figure cannot be trusted, and the machine's state while it ran.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from probes import _machine

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
#: The note of a figure from one call (`measure`'s `once_over_s`); the parent keys on its start.
TIMED_ONCE = "one call takes {:.1f} s: timed once, its warm-up included"


def note(code: str, message: str, **params: Any) -> dict[str, Any]:
    """A warning on a figure: a code the parent decides on (advisor.evidence.bench.results), the sentence, params."""
    return {"code": code, "message": message, "params": params}


def timed_once(seconds: float, tail: str = "") -> dict[str, Any]:
    """The note on a figure timed by one call."""
    return note("timed_once", TIMED_ONCE.format(seconds) + tail, seconds=seconds)
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
    warnings: tuple[dict[str, Any], ...] = ()  # `note`s: code, message, params
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


def spread_warnings(stats: Stats) -> list[dict[str, Any]]:
    """Say when a figure cannot be trusted: wide spread, too few samples, blocks too short."""
    out: list[dict[str, Any]] = []
    if stats.rel_iqr > UNSTABLE_REL_IQR:
        out.append(note("unstable", f"unstable: IQR is {stats.rel_iqr:.0%} of the median (another process may be "
                        "using the CPU)", rel_iqr=stats.rel_iqr))
    if stats.samples < MIN_SAMPLES:
        out.append(note("few_samples", f"only {stats.samples} sample(s): the budget was too small for a stable "
                        "figure", samples=stats.samples))
    block_ms = stats.median_s * stats.number * 1e3
    if block_ms < MIN_BLOCK_S * 1e3 / 2:
        out.append(note("short_blocks", f"blocks of {block_ms:.2f} ms are short: timer overhead may matter",
                        block_ms=block_ms))
    if stats.samples >= MIN_SAMPLES and stats.min_s > 0 and stats.median_s / stats.min_s > 1.25:
        ratio = stats.median_s / stats.min_s
        out.append(note("wide_spread", f"median is {ratio:.2f}x the minimum: a wide spread", ratio=ratio))
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
    once_over_s: float | None = None,
) -> Stats:
    """Adaptive repetition: per-call time of `fn`, synchronised by `sync(fn's last result)` at block ends.

    `sync` must wait until the device finished the work (`torch.cuda.synchronize`,
    `block_until_ready`, fetching a TF tensor's value); it runs once per block, inside the timed
    region, as `torch.utils.benchmark` does. Calls are batched until a block takes at least
    `min_block_s`; blocks are sampled until IQR/median < `target_rel_iqr` with `min_samples`
    samples, or until `budget_s` (excluding warm-up) is spent and `min_samples` exist (at most 3x
    the budget to reach them). At least 2 samples are always taken. Warm-up (not timed, not counted in
    the budget) lasts at least `warmup` calls and at least `warmup_s` seconds.

    A first call longer than `once_over_s` is the only sample (warm-up included, and said so): PyTorch's
    bf16 GEMM of 2048 on a CPU without bf16 units takes ~57 s a call, and warm-up, calibration and two
    samples of it cost the standard preset four minutes for a figure that one call gives within its noise.
    """
    do_sync = sync or (lambda _r: None)
    before = _machine.snapshot()
    warm_start = clock()
    do_sync(fn())
    first = clock() - warm_start
    if once_over_s is not None and first > once_over_s:
        stats = summarize([first], number=1, total_s=first)
        kept = tuple(w for w in stats.warnings if w["code"] != "few_samples")  # the note says why there is one
        state = _machine.between(before, _machine.snapshot(), THREADS[0])
        _LAST_MACHINE[0] = state
        return Stats(**{**stats.__dict__, "warnings": (*kept, timed_once(first)), "machine": state})
    done = 1
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
