"""Two full reports back to back: the same recommendation and verdict, and GEMM medians within 10%?

Usage: `python benchmarks/report_repeatability.py [--runs 2] [--preset quick] [--save-dir DIR]`. Each run is the
real `fwadvisor report --json --preset P` in a subprocess (probe cache on, as a user would have it). The
script prints, per run, the wall time, the load average, whether the bench called the machine too busy,
the recommendation and verdict; then every GEMM figure of every run with its 95% interval and the
largest deviation from the first run. Other processes on the machine move these figures: say so with them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--save-dir", default=None)
    args = ap.parse_args()
    cmd = [sys.executable, "-m", "advisor", "report", "--json", "--preset", args.preset]
    print("command: fwadvisor", " ".join(cmd[3:]))
    reports = []
    for i in range(args.runs):
        load = os.getloadavg()
        t0 = time.perf_counter()
        with tempfile.TemporaryFile("w+") as out:  # a file, not a pipe: the JSON is larger than a pipe's buffer
            proc = subprocess.run(cmd, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL, check=False)
            out.seek(0)
            text = out.read()
        wall = time.perf_counter() - t0
        if proc.returncode != 0 or not text.strip():
            print(f"run {i}: exit {proc.returncode}", file=sys.stderr)
            return 1
        data = json.loads(text)
        reports.append(data)
        if args.save_dir:
            Path(args.save_dir).mkdir(parents=True, exist_ok=True)
            Path(args.save_dir, f"report{i}.json").write_text(text)
        rec = data["recommendation"]
        state = ((data.get("benchmarks") or {}).get("environment") or {}).get("machine_state") or {}
        print(f"run {i}: {wall:.0f} s, load before {tuple(round(v, 1) for v in load)}, busy={state.get('busy')} "
              f"({state.get('busy_figures')}/{state.get('figures')} figures), recommends {rec.get('framework')} "
              f"({rec.get('verdict')})")
    same = len({(r["recommendation"].get("framework"), r["recommendation"].get("verdict")) for r in reports}) == 1
    print(f"\nsame recommendation and verdict in every run: {same}")
    table: dict[tuple[str, str], list[tuple[float, list[float] | None]]] = {}
    for data in reports:
        for r in (data.get("benchmarks") or {}).get("results") or []:
            if r["benchmark"] == "gemm":
                table.setdefault((r["framework"], r["variant"]), []).append((r["value"], r.get("ci")))
    worst = 0.0
    print(f"{'framework':<11} {'variant':<10} {'GFLOP/s per run [95% CI]':<48} {'max dev':>8}")
    for (fw, var), vals in sorted(table.items()):
        first = vals[0][0]
        dev = max(abs(v / first - 1) for v, _ in vals) if first else 0.0
        worst = max(worst, dev)
        cells = "  ".join(f"{v:.1f}" + (f" [{ci[0]:.0f}-{ci[1]:.0f}]" if ci else "") for v, ci in vals)
        print(f"{fw:<11} {var:<10} {cells:<48} {dev:>7.1%}")
    print(f"\nlargest GEMM deviation between runs: {worst:.1%} (goal <= 10%); load now "
          f"{tuple(round(v, 1) for v in os.getloadavg())}")
    # What the scoring compares: each figure against the others of its run. A change of the host's own speed
    # between runs moves every framework alike (their rounds interleave), so these ratios hold where raw figures
    # drift: each figure over NumPy's at the same size in the same run, else over the best framework's.
    rel_worst = 0.0
    per_run: list[dict[tuple[str, str], float]] = []
    for data in reports:
        gemm = {(r["framework"], r["variant"]): r["value"] for r in (data.get("benchmarks") or {}).get("results") or []
                if r["benchmark"] == "gemm" and r.get("device", "cpu") == "cpu"}
        ratios = {}
        for (fw, var), v in gemm.items():
            ref = gemm.get(("numpy", var)) or max(x for (f, w), x in gemm.items() if w == var)
            if fw != "numpy" and ref:
                ratios[(fw, var)] = v / ref
        per_run.append(ratios)
    for key in per_run[0]:
        vals = [r[key] for r in per_run if key in r]
        rel_worst = max(rel_worst, max(abs(v / vals[0] - 1) for v in vals))
    print(f"largest deviation between runs of a figure relative to its run's reference (NumPy's, else the best "
          f"framework's): {rel_worst:.1%}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
