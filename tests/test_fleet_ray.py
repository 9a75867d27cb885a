"""`fwadvisor fleet run --ray` on a simulated three-node Ray cluster (one host), one node killed mid-run.

The second host is what this machine cannot have: `ray.cluster_utils.Cluster` starts three raylets here,
each with a custom resource so STRICT_SPREAD puts one bundle on each. The run happens in a network
namespace of its own (`unshare -n`, loopback only), through benchmarks/fleet_sim.py, which also removes
the Ray session folder. Rank 1's bench hangs on purpose and its node child is killed with SIGKILL.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is the optional extra fwadvisor[ray]; the bare venv has none")

ROOT = Path(__file__).resolve().parent.parent


def _namespace() -> list[str]:
    """`unshare -n sh -c 'ip link set lo up && ...'` when this host can make a network namespace, else skip why."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("no unshare or ip command here: the Ray cluster would not be confined to loopback")
    probe = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, text=True,
                           timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a network namespace here (unshare -n needs root or user namespaces): "
                    f"{probe.stderr.strip()[:200]}")
    return ["unshare", "-n", "sh", "-c"]


@pytest.mark.slow
def test_a_killed_node_is_named_and_the_others_are_merged(tmp_path: Path) -> None:
    wrapper = _namespace()
    result_file = tmp_path / "sim.json"
    sim = [sys.executable, str(ROOT / "benchmarks" / "fleet_sim.py"), "--nodes", "3", "--preset", "test",
           "--fast-probe", "--kill-rank", "1", "--no-allreduce", "--timeout", "120", "--json", str(result_file)]
    command = "ip link set lo up && exec " + " ".join(f"'{a}'" for a in sim)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([*wrapper, command], env=env, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(result_file.read_text())
    assert result["session_dir_removed"]
    assert result["killed_pids"], "the rank-1 node child was never seen running"
    assert result["rc"] == 1, result["stderr_tail"]  # a node gave no report: the run says so in its status
    summary = result["summary"]
    assert summary["nodes_expected"] == 3
    assert [n["label"] for n in summary["nodes"]] == ["node-0000", "node-0002"]
    assert [(f["label"], f["kind"]) for f in summary["failed"]] == [("node-0001", "killed")]
    assert "SIGKILL" in summary["failed"][0]["detail"]
    # The others measured what the fleet preset asked for (the NumPy baseline: a metadata-only probe imports
    # no framework, so none is benchmarked) and their report is whole.
    assert all(n["figures"] for n in summary["nodes"])
    assert "node-0001: killed" in result["stderr_tail"]
