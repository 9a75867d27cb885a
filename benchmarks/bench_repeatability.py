"""Repeatability and wall-time figures: N back-to-back `fwadvisor bench --quick --json` runs, GEMM medians compared.

Usage: `python benchmarks/bench_repeatability.py [--runs 3] [--only gemm] [--framework pytorch ...]`.
Each run is the real command line in a subprocess; the script prints each run's wall time and,
for every (framework, GEMM variant), the medians of all runs and their largest deviation from
the mean of the runs (target: within ±5%). Load averages before and after are printed because
other processes on the machine move these figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--only", action="append", default=[], help="pass --only to fwadvisor bench (default: all)")
    ap.add_argument("--framework", action="append", default=[])
    ap.add_argument("--save-dir", default=None, help="keep each run's JSON here")
    args = ap.parse_args()
    cmd = [sys.executable, "-m", "advisor", "bench", "--preset", args.preset, "--json", "--quiet"]
    for o in args.only:
        cmd += ["--only", o]
    for f in args.framework:
        cmd += ["--framework", f]
    print("command:", " ".join(cmd[1:]))
    runs = []
    for i in range(args.runs):
        load = os.getloadavg()
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        if not proc.stdout.strip():
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
        data = json.loads(proc.stdout)
        runs.append(data)
        if args.save_dir:
            Path(args.save_dir).mkdir(parents=True, exist_ok=True)
            Path(args.save_dir, f"run{i}.json").write_text(proc.stdout)
        bad = [f for f in data["failures"] if f["outcome"] not in ("skipped", "missing")]
        print(f"run {i}: wall {wall:.1f} s (engine {data['wall_s']:.1f} s), exit {proc.returncode}, "
              f"load before {tuple(round(v, 2) for v in load)}, failures {len(bad)}")
    table: dict[tuple[str, str], list[float]] = {}
    for data in runs:
        for r in data["results"]:
            if r["benchmark"] == "gemm":
                table.setdefault((r["framework"], r["variant"]), []).append(r["value"])
    print(f"\n{'framework':<11} {'variant':<10} " + " ".join(f"{'run ' + str(i):>9}" for i in range(args.runs))
          + f" {'max dev':>8}  {'% peak (best run)':>17}")
    peak = (runs[0]["environment"].get("peak") or {})
    ok = True
    for (fw, var), vals in sorted(table.items()):
        mean = sum(vals) / len(vals)
        dev = max(abs(v / mean - 1) for v in vals)
        ok &= dev <= 0.05
        ref = peak.get("fp32_gflops") if var.startswith("fp32") else peak.get("bf16_gflops")
        pct = f"{100 * max(vals) / ref:.0f}%" if ref else "–"
        print(f"{fw:<11} {var:<10} " + " ".join(f"{v:>9.1f}" for v in vals) + f" {dev:>7.1%}  {pct:>17}")
    print(f"\nall GEMM medians within ±5% of their mean: {ok}; load now {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
