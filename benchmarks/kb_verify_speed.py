"""How long `fwadvisor kb verify` takes on the whole base: cold (no cached answers) and warm (answers cached).

Run: `python benchmarks/kb_verify_speed.py [--runs N] [--jobs N]`. Each figure is the wall time of a
fresh `python -m advisor kb verify --json` subprocess with pip's own configuration (whatever index pip
is configured with here), median of N runs with min and max. Cold runs use an empty cache folder
(FWADVISOR_CACHE_DIR) each time; warm runs reuse the folder the last cold run filled. Also printed: how
many pip questions a run asked and the slowest one. Goal: the whole base cold in under 120 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run(cache: str, jobs: int) -> tuple[float, dict[str, object]]:
    """(wall seconds, the --json report) of one run."""
    env = dict(os.environ) | {"FWADVISOR_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "advisor", "kb", "verify", "--json", "--jobs", str(jobs)],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    wall = time.perf_counter() - start
    if out.returncode not in (0, 1):
        raise SystemExit(f"kb verify exited {out.returncode}: {out.stderr.strip()[-300:]}")
    return wall, json.loads(out.stdout)


def summary(name: str, walls: list[float], report: dict[str, object]) -> None:
    """One line: median (min-max), questions asked and cached, the slowest question."""
    times = [t for fw in report["frameworks"].values() for t in fw["times"]]  # type: ignore[attr-defined]
    unique = {t["question"]: t for t in times}.values()
    slow = max(unique, key=lambda t: t["seconds"], default=None)
    cached = sum(1 for t in unique if t["cached"])
    print(f"{name}: median {statistics.median(walls):.1f} s (min {min(walls):.1f}, max {max(walls):.1f}, "
          f"{len(walls)} runs); {len(unique)} questions, {cached} cached"
          + (f"; slowest {slow['question']} {slow['seconds']:.1f} s" if slow else ""))


def main() -> None:
    """Measure cold then warm runs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=8)
    args = parser.parse_args()
    cold: list[float] = []
    warm: list[float] = []
    report: dict[str, object] = {}
    cache = ""
    try:
        for _ in range(args.runs):
            if cache:
                shutil.rmtree(cache, ignore_errors=True)
            cache = tempfile.mkdtemp(prefix="fwadvisor-kb-verify-speed-")
            wall, report = one_run(cache, args.jobs)
            cold.append(wall)
        summary("cold", cold, report)
        for _ in range(args.runs):
            wall, report = one_run(cache, args.jobs)
            warm.append(wall)
        summary("warm", warm, report)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
