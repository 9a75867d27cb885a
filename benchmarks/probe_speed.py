"""How long `fwadvisor probe` takes: --fast, the full probe, each framework alone, the cache, torch's collect_env.

Run: `python benchmarks/probe_speed.py [--runs N] [--fast-runs N]`. Every figure is the wall time
of a fresh subprocess (interpreter start included), median of N runs, with min and max. The probe
cache lives in a temporary folder (FWADVISOR_CACHE_DIR) for the run: `--fresh` probes measure the
imports, the repeated `report --no-bench` measures the cached answer (goal: under 2.5 s), and the
first full probe is compared with the slowest single framework's probe, run in interleaved rounds
(goal: at most 1.2x).
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
CACHE = tempfile.mkdtemp(prefix="fwadvisor-probe-speed-")


def fwadvisor() -> list[str]:
    """The installed console script beside this interpreter, else `python -m advisor`."""
    script = Path(sys.executable).parent / "fwadvisor"
    if script.exists():
        return [str(script)]
    found = shutil.which("fwadvisor")
    return [found] if found else [sys.executable, "-m", "advisor"]


def time_runs(cmd: list[str], runs: int) -> tuple[list[float], str]:
    """Wall times of `runs` fresh runs of `cmd`, and the last run's stdout."""
    times: list[float] = []
    out = ""
    env = dict(os.environ)
    env.setdefault("FWADVISOR_CACHE_DIR", CACHE)
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, check=False)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            print(f"  ! {' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()[-300:]}", file=sys.stderr)
        out = proc.stdout
    return times, out


def show(label: str, times: list[float]) -> None:
    """One line: median, min, max."""
    print(f"{label:<48} median {statistics.median(times):7.3f} s   min {min(times):7.3f}   max {max(times):7.3f}"
          f"   (n={len(times)})")


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="runs of each slow command (default 3)")
    parser.add_argument("--fast-runs", type=int, default=9, help="runs of --fast (default 9)")
    args = parser.parse_args()
    base = fwadvisor()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, command: {' '.join(base)}, "
          f"load average {tuple(round(v, 2) for v in os.getloadavg())}")
    times, out = time_runs([*base, "probe", "--fast", "--json"], args.fast_runs)
    show("fwadvisor probe --fast --json", times)
    internal = json.loads(out)
    print(f"  (in-process wall of the last run: {internal['wall_s']:.3f} s; sections: {internal['timings']})")
    # The full probe and each framework alone, in interleaved rounds: this host's speed drifts by tens of
    # percent within minutes, and a ratio of two figures taken minutes apart would measure the drift.
    _, out = time_runs([*base, "probe", "--json", "--fresh"], 1)  # the frameworks present; warms the page cache
    fids = list(json.loads(out)["frameworks"])
    cmds = {"all": [*base, "probe", "--json", "--fresh"]}
    cmds.update({fid: [*base, "probe", "--json", "--fresh", "--framework", fid] for fid in fids})
    walls: dict[str, list[float]] = {name: [] for name in cmds}
    ratios: list[float] = []
    for _ in range(args.runs):
        round_walls = {}
        for name, cmd in cmds.items():
            times, got = time_runs(cmd, 1)
            walls[name] += times
            round_walls[name] = times[0]
            if name == "all":
                out = got
        slowest_now = max((f for f in fids), key=lambda f: round_walls[f], default=None)
        if slowest_now:
            ratios.append(round_walls["all"] / round_walls[slowest_now])
    show("fwadvisor probe --json --fresh (all, parallel)", walls["all"])
    full = statistics.median(walls["all"])
    data = json.loads(out)
    for fid, fw in data["frameworks"].items():
        after = f" (in {fw['probed_after']}'s child)" if fw.get("probed_after") else ""
        print(f"  {fid:<12} outcome {fw['outcome']:<10} import {fw['import_s']} s, child wall {fw['wall_s']} s{after}")
    alone = {fid: statistics.median(walls[fid]) for fid in fids}
    for fid in fids:
        show(f"fwadvisor probe --json --fresh --framework {fid}", walls[fid])
    slowest = max(alone, key=lambda f: alone[f]) if alone else None
    if slowest:
        print(f"  first full probe / slowest single framework ({slowest}): {full / alone[slowest]:.2f}x "
              f"(ratio of medians; per-round ratios median {statistics.median(ratios):.2f}x, "
              f"min {min(ratios):.2f}, max {max(ratios):.2f}; goal <= 1.2x)")
    time_runs([*base, "report", "--no-bench", "--json"], 1)  # fills the cache
    times, _ = time_runs([*base, "report", "--no-bench", "--json"], args.runs)
    show("fwadvisor report --no-bench --json (cached)", times)
    print(f"  goal: under 2.5 s; load average now {tuple(round(v, 2) for v in os.getloadavg())}")
    try:
        import importlib.util

        has_torch = importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        has_torch = False
    if has_torch:
        times, _ = time_runs([sys.executable, "-m", "torch.utils.collect_env"], args.runs)
        show("python -m torch.utils.collect_env", times)
    else:
        print("python -m torch.utils.collect_env: torch not installed, not measured")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(CACHE, ignore_errors=True)
