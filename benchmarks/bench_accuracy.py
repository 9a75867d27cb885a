"""Accuracy figure: fwadvisor's PyTorch GEMM and a*x+y figures against torch.utils.benchmark in the same child.

Usage: `python benchmarks/bench_accuracy.py [--rounds 3] [--budget 0.35]`. The script starts one child
process (itself with `--child`) that imports torch, fixes the threads as `probes.bench_torch` does,
and for each workload alternates (a) the exact measurement `fwadvisor bench --quick` makes
(`probes._bench.measure` with the quick preset's per-case budget) and (b)
`torch.utils.benchmark.Timer(...).blocked_autorange(min_run_time=1)`. It prints both medians and
their ratio per round, and for GEMM both as a % of the hardware probe's estimated peak (the issue's
"PyTorch 69% in fwadvisor, 87% in torch.utils.benchmark in the same minute"); the target is agreement
within ±5%. Other processes on the machine move both methods alike (they alternate within each round).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(rounds: int, budget: float, threads: int | None) -> None:
    sys.path.insert(0, str(ROOT))
    import torch
    import torch.utils.benchmark as tb

    from probes import _bench as B

    threads = threads or B.usable_cores()
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    preset = B.PRESETS["quick"]
    gemm_budget = preset.budget_s  # the per-case budget `fwadvisor bench --quick` gives each GEMM size
    cases = []
    for n in preset.gemm_sizes:
        a, b = torch.randn(n, n), torch.randn(n, n)
        cases.append((f"gemm fp32-{n}", "GFLOP/s", 2.0 * n**3 / 1e9, lambda a=a, b=b: torch.matmul(a, b),
                      "torch.matmul(a, b)", {"a": a, "b": b, "torch": torch}, gemm_budget))
    n = preset.elementwise_n
    x, y, out = torch.ones(n), torch.ones(n), torch.empty(n)
    moved = 3.0 * n * 4 / 1e9
    cases.append(("elementwise axpy-fp32", "GB/s", moved, lambda: 1.5 * x + y, "1.5 * x + y",
                  {"x": x, "y": y}, budget / 2))
    cases.append(("elementwise axpy-fp32-out", "GB/s", moved, lambda: torch.add(y, x, alpha=1.5, out=out),
                  "torch.add(y, x, alpha=1.5, out=out)", {"x": x, "y": y, "out": out, "torch": torch}, budget / 2))
    for r in range(rounds):
        for name, unit, amount, fn, stmt, glob, case_budget in cases:
            # Alternate which method goes first, so a drift in machine load does not favour one of them.
            if r % 2:
                timer = tb.Timer(stmt=stmt, globals=glob, num_threads=threads).blocked_autorange(min_run_time=1.0)
                ours = B.measure(fn, budget_s=case_budget)
            else:
                ours = B.measure(fn, budget_s=case_budget)
                timer = tb.Timer(stmt=stmt, globals=glob, num_threads=threads).blocked_autorange(min_run_time=1.0)
            print(json.dumps({"round": r, "case": name, "unit": unit, "ours": amount / ours.median_s,
                              "ours_samples": ours.samples, "ours_rel_iqr": ours.rel_iqr,
                              "timer": amount / timer.median, "timer_samples": len(timer.times),
                              "timer_rel_iqr": timer.iqr / timer.median}), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--budget", type=float, default=0.35, help="seconds per benchmark, as the quick preset")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (default: usable cores, as the tool)")
    args = ap.parse_args()
    if args.child:
        child(args.rounds, args.budget, args.threads or None)
        return 0
    print(f"load before: {os.getloadavg()}")
    sys.path.insert(0, str(ROOT))
    try:
        from advisor.evidence.hardware.cpu import probe_cpu

        peak = probe_cpu().peak
        fp32_peak = peak.fp32_gflops if peak is not None else None
    except Exception:  # noqa: BLE001 - the % of peak is extra context
        fp32_peak = None
    proc = subprocess.run([sys.executable, __file__, "--child", "--rounds", str(args.rounds), "--budget",
                           str(args.budget), "--threads", str(args.threads)],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    print(f"{'round':>5} {'case':<28} {'fwadvisor':>10} {'Timer':>10} {'unit':<8} {'diff':>7}  "
          f"{'n/IQR ours':>12} {'n/IQR Timer':>12}")
    by_case: dict[str, list[float]] = {}
    timer_only: dict[str, list[float]] = {}
    for row in rows:
        diff = row["ours"] / row["timer"] - 1.0
        by_case.setdefault(row["case"], []).append(diff)
        timer_only.setdefault(row["case"], []).append(row["timer"])
        print(f"{row['round']:>5} {row['case']:<28} {row['ours']:>10.2f} {row['timer']:>10.2f} {row['unit']:<8} "
              f"{diff:>+7.1%}  {row['ours_samples']:>4}/{row['ours_rel_iqr']:>6.1%} "
              f"{row['timer_samples']:>4}/{row['timer_rel_iqr']:>6.1%}")
    print("\nper case, median difference over rounds (target within ±5%):")
    ok = True
    for case, diffs in by_case.items():
        med = statistics.median(diffs)
        within = abs(med) <= 0.05
        ok &= within
        t = timer_only[case]
        print(f"  {case:<28} {med:+.1%}  {'ok' if within else 'OUTSIDE ±5%'}  (rounds: "
              + ", ".join(f"{d:+.1%}" for d in diffs)
              + f"); Timer alone varied {min(t):.1f}..{max(t):.1f} over the rounds ({max(t) / min(t) - 1:+.0%})")
        if case.startswith("gemm") and fp32_peak:
            ours = [r["ours"] for r in rows if r["case"] == case]
            print(f"  {'':<28} % of the estimated peak ({fp32_peak:.0f} GFLOP/s): fwadvisor best "
                  f"{100 * max(ours) / fp32_peak:.0f}%, torch.utils.benchmark best {100 * max(t) / fp32_peak:.0f}%")
    print(f"load after: {os.getloadavg()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
