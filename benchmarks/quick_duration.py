"""How long `fwadvisor bench --quick` takes (goal: under 60 s for three frameworks and NumPy), and where the time goes.

Usage: `python benchmarks/quick_duration.py [--preset quick] [--runs 1] [--framework pytorch ...]`. Each run is
the real command line in a subprocess; its progress lines on stderr are time-stamped as they arrive,
so the script can print the seconds spent per framework and benchmark (from one `bench_start` line to
the next). Load averages are printed with every run: other processes on the machine move these figures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--framework", action="append", default=[])
    ap.add_argument("--top", type=int, default=12, help="show the N slowest steps")
    args = ap.parse_args()
    cmd = [sys.executable, "-m", "advisor", "bench", "--preset", args.preset, "--json"]
    for f in args.framework:
        cmd += ["--framework", f]
    print("command:", "fwadvisor", " ".join(cmd[3:]))
    walls = []
    for i in range(args.runs):
        load = os.getloadavg()
        t0 = time.perf_counter()
        with tempfile.TemporaryFile() as out:  # stdout to a file: a full pipe nobody reads would stall the run
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.PIPE, text=True)
            assert proc.stderr is not None
            stamped = [(time.perf_counter() - t0, line.rstrip()) for line in proc.stderr]
            proc.wait()
        wall = time.perf_counter() - t0
        walls.append(wall)
        print(f"run {i}: {wall:.1f} s, exit {proc.returncode}, load before {tuple(round(v, 2) for v in load)}, "
              f"after {tuple(round(v, 2) for v in os.getloadavg())}")
        steps = []
        for (t, line), (t_next, _) in zip(stamped, stamped[1:] + [(wall, "")], strict=True):
            text = line.strip()
            if text and not text.startswith(("cpu ", "gpu ")):
                steps.append((t_next - t, text[:70]))
        first_bench = next((t for t, line in stamped if line.startswith("  ")), None)
        if first_bench is not None:
            print(f"  first benchmark began at {first_bench:.1f} s (imports and start-up before it)")
        for dt, text in sorted(steps, reverse=True)[: args.top]:
            print(f"  {dt:6.1f} s  {text}")
    goal = "; goal < 60 s" if args.preset == "quick" else ""
    print(f"median wall {sorted(walls)[len(walls) // 2]:.1f} s over {len(walls)} run(s){goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
