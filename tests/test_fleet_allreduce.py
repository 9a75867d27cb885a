"""`fwadvisor fleet node` joins the cross-node all-reduce: two nodes on loopback, and one whose peer never starts.

The second host is what this machine cannot have: each "node" is a real `fleet node` process on this host with
a planted launcher environment (torchrun's variables for the pair, Slurm's for the lone node), and the
all-reduce is real (torchrun's c10d rendezvous on 127.0.0.1, gloo). The smallest preset: these check the
plumbing; benchmarks/allreduce_loopback.py measures.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from advisor.evidence.bench.collective import free_port
from advisor.report import validate_report
from tests.test_fleet_node import _start

pytest.importorskip("torch", reason="the all-reduce runs through PyTorch's torchrun; the bare venv has none")

ARGS = ["--out", "out", "--preset", "test", "--fast-probe", "--allreduce-framework", "pytorch"]
#: The lone node's bound: it must end within it (plus its intra-node run and start-up), whatever its peer does.
LONE_TIMEOUT_S = 10


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.CompletedProcess[str], Path, float]]:
    """A pair under torchrun's variables and a lone node under Slurm's, all started at once."""
    base = tmp_path_factory.mktemp("fleet-allreduce")
    port = free_port()
    torchrun = {"WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
    slurm = {"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_NODEID": "0", "SLURM_LOCALID": "0",
             "SLURM_STEP_NUM_NODES": "2", "SLURM_LAUNCH_NODE_IPADDR": "127.0.0.1"}
    jobs = {
        "rank0": (ARGS + ["--allreduce-timeout", "120"], {**torchrun, "RANK": "0"}),
        "rank1": (ARGS + ["--allreduce-timeout", "120"], {**torchrun, "RANK": "1"}),
        # Its peer (node 1) is never started: the rendezvous port is one nobody else uses.
        "lone": (ARGS + ["--allreduce-timeout", str(LONE_TIMEOUT_S), "--allreduce-port", str(free_port())], slurm),
    }
    started = {}
    for name, (args, env) in jobs.items():
        (base / name).mkdir()
        started[name] = (_start(args, env, base / name), base / name, time.monotonic())
    out = {}
    for name, (proc, folder, t0) in started.items():
        stdout, stderr = proc.communicate(timeout=300)
        out[name] = (subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), folder,
                     time.monotonic() - t0)
    return out


def _report(folder: Path, node: int) -> dict:  # type: ignore[type-arg]
    path = folder / "out" / f"node-{node:04d}.json"
    data = json.loads(path.read_text())
    validate_report(data, str(path))
    return data  # type: ignore[no-any-return]


def test_two_nodes_on_loopback_each_report_their_all_reduce(nodes) -> None:  # type: ignore[no-untyped-def]
    """Second host faked by a second process: both reports carry intra-node figures; the leader's the inter-node."""
    for name in ("rank0", "rank1"):
        assert nodes[name][0].returncode == 0, nodes[name][0].stderr[-3000:]
    leader, other = _report(nodes["rank0"][1], 0)["allreduce"], _report(nodes["rank1"][1], 1)["allreduce"]
    for section in (leader, other):
        assert section["framework"] == "pytorch"
        assert section["intra"]["outcome"] == "ok" and section["intra"]["rows"]
        assert section["inter"]["outcome"] == "ok", section["inter"]["error"]
        assert [r["state"] for r in section["inter"]["ranks"]] == ["finished"]
    inter = leader["inter"]
    assert (inter["nnodes"], inter["world_size"], inter["backend"]) == (2, 2, "gloo")
    assert [r["bytes"] for r in inter["rows"]] == [4096, 65536]
    for row in inter["rows"] + leader["intra"]["rows"]:
        # nccl-tests' figures, from the row's own times: algbw = S/t; busbw = algbw * 2(n-1)/n = algbw for 2 ranks.
        assert row["time_us"] > 0 and row["wrong"] == 0
        assert row["algbw_GBps"] == pytest.approx(row["bytes"] / (row["time_us"] * 1e-6) / 1e9, rel=1e-3)
        assert row["busbw_GBps"] == pytest.approx(row["algbw_GBps"], rel=1e-3)
    assert other["inter"]["rows"] == []  # node 1's ranks leave the rows to the leader's
    assert "127.0.0.1" not in (nodes["rank0"][1] / "out" / "node-0000.json").read_text()  # the leader stays out


def test_the_fleet_summary_shows_intra_beside_inter(nodes, capsys) -> None:  # type: ignore[no-untyped-def]
    from advisor.cli import main

    folders = [str(nodes[n][1] / "out") for n in ("rank0", "rank1")]
    assert main(["fleet", "summary", *folders, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    a = summary["allreduce"]
    assert (a["framework"], a["outcome"], a["nnodes"], a["intra_node"]) == ("pytorch", "ok", 2, "node-0000")
    assert a["nodes"] == {"node-0000": "ok", "node-0001": "ok"}
    assert [r["bytes"] for r in a["rows"]] == [4096, 65536]
    assert all(r["intra_busbw_GBps"] > 0 and r["inter_busbw_GBps"] > 0 for r in a["rows"])
    assert not [f for f in summary["findings"] if f["code"] == "allreduce_failed"]
    assert main(["fleet", "summary", *folders, "--markdown"]) == 0
    text = capsys.readouterr().out
    assert "## All-reduce across nodes" in text and "| 65536 |" in text


def test_a_peer_that_never_starts_ends_the_lone_node_within_its_bound(nodes, capsys) -> None:  # type: ignore[no-untyped-def]
    proc, folder, wall = nodes["lone"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    # Start-up, probe, bench and intra-node run take seconds; the wait for the peer is what the bound caps.
    assert wall < LONE_TIMEOUT_S + 90, wall
    report = _report(folder, 0)
    inter = report["allreduce"]["inter"]
    assert inter["outcome"] in ("timed_out", "failed") and inter["rows"] == []
    assert f"cross-node all-reduce {inter['outcome']}" in proc.stderr
    assert report["allreduce"]["intra"]["outcome"] == "ok"  # what the node measured on its own is kept
    assert report["benchmarks"]["results"] and report["probe"]["frameworks"]
    from advisor.cli import main

    assert main(["fleet", "summary", str(folder / "out"), "--json"]) == 0
    finding = next(f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "allreduce_failed")
    assert finding["nodes"] == ["node-0000"] and finding["values"] == {"node-0000": inter["outcome"]}


@pytest.mark.parametrize(("flags", "field"), [
    (["--leader", "node0;rm -rf /:29500"], "--leader"),
    (["--allreduce-port", "70000"], "--allreduce-port"),
    (["--allreduce-timeout", "0"], "--allreduce-timeout"),
])
def test_bad_all_reduce_flags_are_one_line_before_the_probe(flags: list[str], field: str, capsys) -> None:  # type: ignore[no-untyped-def]
    from advisor.cli import main

    assert main(["fleet", "node", "--stdout", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"fwadvisor: error: {field}:"), err
