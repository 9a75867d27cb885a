"""How much this machine's own speed moves: one fixed NumPy GEMM loop, timed in short windows, nothing else running.

Run: `python benchmarks/host_drift.py [--n 1024] [--seconds 60] [--window 2] [--threads N]`. It prints the
GFLOP/s of every window, their spread (max/min - 1), the spread of the means of the first and second
halves, and the CPU steal seen meanwhile. A spread larger than a benchmark's repeatability goal means no
method can meet that goal from a sample this short on this machine: compare `report_repeatability.py`'s
figures with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _steal_ticks() -> tuple[int, int] | None:
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (fields[7] if len(fields) > 7 else 0), sum(fields)


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1024, help="matrix size (default 1024)")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--window", type=float, default=2.0, help="seconds per window (default 2)")
    ap.add_argument("--threads", type=int, default=None, help="BLAS threads (default: the library's own)")
    args = ap.parse_args()
    if args.threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    import numpy as np  # after the thread variables, which BLAS reads when it loads

    rng = np.random.default_rng(0)
    a = rng.standard_normal((args.n, args.n), dtype=np.float32)
    b = rng.standard_normal((args.n, args.n), dtype=np.float32)
    for _ in range(3):
        a @ b
    before = _steal_ticks()
    rates: list[float] = []
    end = time.perf_counter() + args.seconds
    while time.perf_counter() < end:
        start, calls = time.perf_counter(), 0
        while time.perf_counter() - start < args.window:
            a @ b
            calls += 1
        rates.append(2.0 * args.n**3 * calls / (time.perf_counter() - start) / 1e9)
    after = _steal_ticks()
    print(f"NumPy fp32 GEMM n={args.n}, {len(rates)} windows of {args.window:g} s, "
          f"load average {tuple(round(v, 2) for v in os.getloadavg())}")
    print("GFLOP/s per window:", " ".join(f"{r:.0f}" for r in rates))
    half = len(rates) // 2
    print(f"min {min(rates):.1f}  median {statistics.median(rates):.1f}  max {max(rates):.1f}  "
          f"spread {max(rates) / min(rates) - 1:.0%}")
    if half:
        m1, m2 = statistics.fmean(rates[:half]), statistics.fmean(rates[half:])
        print(f"mean of first half {m1:.1f}, second half {m2:.1f}: {abs(m1 / m2 - 1):.1%} apart")
    if before and after and after[1] > before[1]:
        print(f"CPU steal meanwhile: {100.0 * (after[0] - before[0]) / (after[1] - before[1]):.1f}%")


if __name__ == "__main__":
    main()
