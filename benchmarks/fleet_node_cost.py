"""What one `fwadvisor fleet node` costs, phase by phase: wall and CPU time, cold probe cache, from its report.

    PYTHONPATH=. python benchmarks/fleet_node_cost.py [--preset fleet] [--runs 1] [--json FILE]

The node command runs as a child (a fleet of one, `--stdout`) with a fresh probe cache, as a fleet's first run
has. CPU time is the child's and its children's (user + system, from `wait4`): on a host where the simulated
nodes share the cores (benchmarks/fleet_sim.py), the CPU a node needs is what its wall time follows. The
phases (probe, bench, framework imports in the probe) come from the report. The `advisor` package run is the
one on PYTHONPATH, so the same script measures another checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one_run(preset: str) -> dict[str, object]:
    """Run the node command once with a cold probe cache; its wall, CPU and phase times."""
    cache = tempfile.mkdtemp(prefix="fwcost-")
    env = {**os.environ, "FWADVISOR_CACHE_DIR": cache}
    args = ["--no-bench"] if preset == "none" else ["--preset", preset]
    cmd = [sys.executable, "-m", "advisor", "fleet", "node", "--stdout", "--rank", "0", "--world-size", "1", *args]
    load = os.getloadavg()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    shutil.rmtree(cache, ignore_errors=True)
    report = json.loads(out)
    probe, bench = report.get("probe") or {}, report.get("benchmarks") or {}
    return {
        "preset": preset, "rc": os.waitstatus_to_exitcode(status), "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "loadavg_start": [round(v, 2) for v in load],
        "probe_s": probe.get("wall_s"), "bench_s": bench.get("wall_s"),
        "probe_import_s": {f: e.get("import_s") for f, e in (probe.get("frameworks") or {}).items()
                           if e.get("import_s")},
        "figures": len(bench.get("results") or []),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="fleet", help="node preset, or 'none' for --no-bench")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    runs = [one_run(args.preset) for _ in range(args.runs)]
    text = json.dumps(runs, indent=1)
    if args.json:
        Path(args.json).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
