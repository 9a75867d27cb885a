"""A fleet node started by a Ray task ends, with its children, when the Ray worker above it is killed.

The Ray worker is a plain Python process calling the task's own function (`ray_run._node_task`): what is
under test is the worker's death by SIGKILL (as the out-of-memory killer ends it), not Ray's scheduling.
The node's NumPy bench hangs on purpose (FWADVISOR_BENCH_FAULT) so that it is mid-run when the worker dies.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from advisor.evidence.children import MARKER

ROOT = Path(__file__).resolve().parent.parent
NODE_ARGV = ["fleet", "node", "--rank", "0", "--world-size", "1", "--stdout", "--preset", "test", "--fast-probe",
             "--no-allreduce"]


def _wait_for_bench(worker: psutil.Process, timeout_s: float) -> list[psutil.Process]:
    """The worker's descendants once the node's bench child runs (the node is then mid-run)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        tree = worker.children(recursive=True)
        for p in tree:
            try:
                if "probes.bench_numpy" in p.cmdline():
                    return tree
            except psutil.Error:
                continue
        time.sleep(0.2)
    pytest.fail("the node command never started its bench child")


def _with_descendants(procs: list[psutil.Process]) -> list[psutil.Process]:
    out = list(procs)
    for p in procs:
        with contextlib.suppress(psutil.Error):
            out += p.children(recursive=True)
    return out


def _marked_by(tree: list[psutil.Process]) -> list[psutil.Process]:
    """Processes carrying the marker of a node in `tree`, even one started after the snapshot was taken."""
    prefixes = tuple(f"{p.pid}-" for p in tree if _is_node(p))
    out = []
    for p in psutil.process_iter() if prefixes else []:
        with contextlib.suppress(psutil.Error):
            if p.environ().get(MARKER, "").startswith(prefixes):
                out.append(p)
    return out


def _is_node(p: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return "fleet" in p.cmdline()
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_killed_ray_worker_takes_its_node_and_the_node_s_children_along(cli_env: dict[str, str]) -> None:
    code = ("import sys; from advisor.fleet.ray_run import _node_task; "
            f"_node_task({NODE_ARGV!r}, 600.0, 'gemm:hang')")
    worker = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=cli_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tree: list[psutil.Process] = []
    try:
        tree = _wait_for_bench(psutil.Process(worker.pid), 120)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        _gone, alive = psutil.wait_procs(tree, timeout=15)
        assert not alive, f"still running after the worker died: {[p.cmdline()[:4] for p in alive]}"
    finally:
        for p in _with_descendants(tree) + _marked_by(tree):  # only what this test started
            with contextlib.suppress(psutil.Error):
                p.kill()
        if worker.poll() is None:
            worker.kill()
