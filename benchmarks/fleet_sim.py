"""A simulated three-node Ray cluster on this host running `fwadvisor fleet run --ray`: wall time and peak memory.

    python benchmarks/fleet_sim.py [--nodes 3] [--preset fleet] [--fast-probe] [--kill-rank R] [--no-allreduce]
                                [--json FILE] [--keep-reports DIR]

Each simulated node is a Ray raylet of its own (ray.cluster_utils.Cluster) with one CPU and a custom resource
`fleet_node`, so STRICT_SPREAD places one bundle on each. The command under test is the real CLI in a
child process. Peak memory is the largest sum of RSS over this script's process tree (Ray's GCS, raylets,
workers and every fwadvisor child), sampled every 0.2 s; CPU time is the sum of each process's user and system
seconds as last sampled (so at most the last 0.2 s of each is missed), a figure that load from outside the
tree changes far less than the wall time. The Ray session folder is a temporary folder,
removed at the end, as is the probe cache (a fresh one per run, so every run probes cold, as a fleet's first
run does). Per node, the phases' wall times come from its report (probe, bench, all-reduce). Run it inside
`unshare -n` (after `ip link set lo up`) to keep every packet on loopback.
With --kill-rank R, rank R's bench hangs on purpose (FWADVISOR_FLEET_FAULT) and its node child is killed
with SIGKILL once it has started: the summary must keep the other nodes and name that one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent


def _tree_rss(root: psutil.Process, cpu: dict[tuple[int, float], float]) -> int:
    """The tree's RSS now; records each process's CPU seconds so far in `cpu` (keyed by PID and start time)."""
    total = 0
    for p in [root, *root.children(recursive=True)]:
        try:
            with p.oneshot():
                total += p.memory_info().rss
                times = p.cpu_times()
                cpu[(p.pid, p.create_time())] = times.user + times.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total


def _kill_rank_child(rank: int, stop: threading.Event, killed: list[int]) -> None:
    """SIGKILL the `fleet node --rank R` child once it runs (as a node dying mid-run would end it)."""
    me = psutil.Process()
    while not stop.is_set():
        for p in me.children(recursive=True):
            try:
                cmd = p.cmdline()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            if "fleet" in cmd and "node" in cmd and "--rank" in cmd and cmd[cmd.index("--rank") + 1] == str(rank):
                time.sleep(1.0)  # mid-run: the child is probing by now
                try:
                    p.send_signal(signal.SIGKILL)
                    killed.append(p.pid)
                except psutil.NoSuchProcess:
                    pass
                return
        time.sleep(0.1)


def _phases(folder: Path) -> dict[str, dict[str, float | None]]:
    """Per node report: the wall time of its probe, its bench, and its all-reduce, as the report gives them."""
    out: dict[str, dict[str, float | None]] = {}
    for path in sorted(folder.glob("node-*.json")):
        data = json.loads(path.read_text())
        probe, bench = data.get("probe") or {}, data.get("benchmarks") or {}
        reduce = ((data.get("allreduce") or {}).get("environment") or {}).get("wall_s")
        imports = {f: e.get("import_s") for f, e in (probe.get("frameworks") or {}).items() if e.get("import_s")}
        out[path.stem] = {"probe_s": probe.get("wall_s"), "bench_s": bench.get("wall_s"), "allreduce_s": reduce,
                          "probe_import_s": imports}  # type: ignore[dict-item]
    return out


def simulate(nodes: int, node_args: list[str], kill_rank: int | None, timeout_s: float,
             keep_reports: Path | None = None) -> dict[str, object]:
    """Start the cluster, run the CLI against it, and return the figures and the CLI's summary JSON."""
    from ray.cluster_utils import Cluster

    temp = tempfile.mkdtemp(prefix="fwray-")
    (Path(temp) / "ray").mkdir()  # Ray writes the cluster's address under RAY_TMPDIR/ray
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "RAY_USAGE_STATS_ENABLED": "0", "RAY_TMPDIR": temp, "FWADVISOR_CACHE_DIR": str(Path(temp) / "cache")}
    if kill_rank is not None:
        env["FWADVISOR_FLEET_FAULT"] = f"{kill_rank}=gemm:hang"
    os.environ.update({k: v for k, v in env.items()
                       if k in ("PYTHONPATH", "RAY_USAGE_STATS_ENABLED", "RAY_TMPDIR", "FWADVISOR_CACHE_DIR")})
    reports = Path(temp) / "reports"
    try:
        load_start = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        load_start = None
    me = psutil.Process()
    peak = [0]
    cpu: dict[tuple[int, float], float] = {}
    own_start = sum(me.cpu_times()[:2])
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_rss(me, cpu))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "resources": {"fleet_node": 1}, "temp_dir": str(Path(temp) / "ray"), "include_dashboard": False,
        "node_ip_address": "127.0.0.1"})
    try:
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=1, resources={"fleet_node": 1}, node_ip_address="127.0.0.1")
        cluster.wait_for_nodes()
        up = time.perf_counter() - start
        killed: list[int] = []
        killer = None
        if kill_rank is not None:
            killer = threading.Thread(target=_kill_rank_child, args=(kill_rank, stop, killed), daemon=True)
            killer.start()
        cmd = [sys.executable, "-m", "advisor", "fleet", "run", "--ray", cluster.address, "--nodes", str(nodes),
               "--bundle-resource", "fleet_node=1", "--node-timeout", str(timeout_s), "--json", "--out", str(reports),
               *node_args]
        run_start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout_s + 120, cwd=ROOT)
        run_s = time.perf_counter() - run_start
        phases = _phases(reports)
        if keep_reports is not None:
            shutil.copytree(reports, keep_reports, dirs_exist_ok=True)
    finally:
        stop.set()
        cluster.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
    wall = time.perf_counter() - start
    sampler.join(1)
    try:
        summary = json.loads(proc.stdout)
    except ValueError:
        summary = None
    try:
        load_end = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        load_end = None
    return {"nodes": nodes, "node_args": node_args, "cluster_up_s": round(up, 2), "fleet_run_s": round(run_s, 2),
            "wall_s": round(wall, 2), "peak_rss_mib": round(peak[0] / 2**20),
            "cpu_s": round(sum(cpu.values()) - own_start, 1), "rc": proc.returncode,
            "loadavg_start": load_start, "loadavg_end": load_end, "node_phases_s": phases,
            "killed_pids": killed, "stderr_tail": proc.stderr[-3000:], "summary": summary,
            "session_dir_removed": not Path(temp).exists()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--preset", default="fleet", help="node bench preset, or 'none' for --no-bench")
    parser.add_argument("--fast-probe", action="store_true")
    parser.add_argument("--kill-rank", type=int)
    parser.add_argument("--no-allreduce", action="store_true", help="no cross-node all-reduce (led by bundle 0)")
    parser.add_argument("--timeout", type=float, default=300.0, help="--node-timeout for fleet run")
    parser.add_argument("--json", metavar="FILE", help="write the result JSON here")
    parser.add_argument("--keep-reports", metavar="DIR", type=Path, help="copy the node reports here")
    args = parser.parse_args()
    node_args = ["--no-bench"] if args.preset == "none" else ["--preset", args.preset]
    if args.fast_probe:
        node_args.append("--fast-probe")
    if args.no_allreduce:
        node_args.append("--no-allreduce")
    result = simulate(args.nodes, node_args, args.kill_rank, args.timeout, args.keep_reports)
    text = json.dumps(result, indent=1)
    if args.json:
        Path(args.json).write_text(text)
    brief = {k: v for k, v in result.items() if k not in ("summary", "stderr_tail")}
    print(json.dumps(brief), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
