"""Cross-node all-reduce on one host: two torchrun agents (c10d on 127.0.0.1, gloo) and two JAX processes.

Real launchers, real ranks, real loopback sockets; the second "node" is a second launcher on this host (the
machine has no second host). Tiny sizes and few iterations: these check the plumbing, `benchmarks/` measures.
A rank killed mid-run, a rank that hangs and a signal to the CLI must each be reported, with nothing left running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.evidence.bench.collective import Plan, RankEvent, run_loopback
from advisor.evidence.bench.collective_model import RankState, RunOutcome, Scope
from advisor.evidence.children import CHILDREN
from tests.conftest import ROOT
from tests.test_signals import _has, marked, time_to_clean, wait_for

pytestmark = pytest.mark.frameworks

TINY = dict(sizes=(4096, 16384), iters=3, samples=2, warmup=1, timeout_s=120.0, op_timeout_s=20.0)


@pytest.mark.parametrize("framework", ["pytorch", "jax"])
def test_two_nodes_on_loopback_report_nccl_tests_figures(framework: str) -> None:
    events: list[RankEvent] = []
    report = run_loopback(2, plan=Plan(framework=framework, **TINY), intra=False, on_event=events.append)
    run = report.inter
    assert run is not None and report.intra is None
    assert run.outcome == RunOutcome.OK, run.error
    assert (run.scope, run.nnodes, run.world_size, run.backend) == (Scope.INTER_NODE, 2, 2, "gloo")
    assert [r.state for r in run.ranks] == [RankState.FINISHED, RankState.FINISHED]
    assert sorted(r.node for r in run.ranks) == [0, 1]
    assert [r.nbytes for r in run.rows] == [4096, 16384]
    for row in run.rows:
        assert row.wrong == 0 and row.ranks == 2 and len(row.times_s) == 2 and row.time_s > 0
        assert row.algbw_GBps == pytest.approx(row.nbytes / row.time_s / 1e9)
        assert row.busbw_GBps == pytest.approx(row.algbw_GBps)  # 2(n-1)/n is 1 for two ranks
    # The leader (node 0) reports the rows, whichever rank numbers torchrun's rendezvous gave its ranks.
    assert sorted({e.node for e in events if e.kind == "size"}) == [0]
    assert sorted(e.node for e in events if e.kind == "rank_end") == [0, 1]
    assert CHILDREN.alive() == []


def test_a_rank_killed_mid_run_is_reported_and_the_other_ends() -> None:
    pids: dict[int, int] = {}

    def kill_rank_1(ev: RankEvent) -> None:
        if ev.kind == "rank_start" and ev.rank is not None and ev.pid is not None:
            pids[ev.rank] = ev.pid
            if len(pids) == 2:  # both joined: rank 0 is inside a collective with rank 1
                os.kill(pids[1], signal.SIGKILL)

    plan = Plan(**{**TINY, "samples": 100_000})  # would run for minutes: the kill lands mid-run
    run = run_loopback(2, plan=plan, intra=False, on_event=kill_rank_1).inter
    assert run is not None and run.outcome == RunOutcome.FAILED
    states = {r.rank: r.state for r in run.ranks}
    assert states[1] == RankState.LOST
    assert states[0] in (RankState.ERROR, RankState.LOST)
    assert run.wall_s < plan.timeout_s  # ended by the loss, not by the watchdog
    assert CHILDREN.alive() == []


@pytest.mark.slow
def test_a_rank_that_hangs_is_reported_lost_and_the_other_times_out_its_collective(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_COLLECTIVE_FAULT", "hang@1")
    plan = Plan(**{**TINY, "timeout_s": 60.0, "op_timeout_s": 5.0})
    run = run_loopback(2, plan=plan, intra=False).inter
    # Rank 0's collective times out and says so; the hung rank ends with its node's launcher (torchrun's agent
    # stops its workers once the rendezvous is gone) or, failing that, by the node's timeout.
    assert run is not None and run.outcome in (RunOutcome.FAILED, RunOutcome.TIMED_OUT)
    states = {r.rank: r.state for r in run.ranks}
    assert states == {0: RankState.ERROR, 1: RankState.LOST}
    assert CHILDREN.alive() == []


@pytest.mark.parametrize(("sig", "framework", "worker"), [
    (signal.SIGINT, "pytorch", "probes.allreduce_nodes_torch"),
    (signal.SIGTERM, "jax", "probes.allreduce_jax"),
])
def test_a_signal_to_the_cli_ends_every_node_and_rank(sig: int, framework: str, worker: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    tool = subprocess.Popen([sys.executable, "-m", "advisor", "bench", "--allreduce", "--loopback", "2", "--no-intra",
                             "--framework", framework, "--sizes", "4K", "--iters", "3", "--samples", "100000"],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    prefix = f"{tool.pid}-"
    try:
        wait_for(lambda: _has(prefix, worker, 2), 120, f"two {worker} ranks")
        tool.send_signal(sig)
        _, err = tool.communicate(timeout=30)
        assert tool.returncode != 0
        assert time_to_clean(prefix) < 5, [p.cmdline() for p in marked(prefix)]
        assert "Traceback" not in err
    finally:
        if tool.poll() is None:
            tool.kill()
            tool.wait()
        for p in marked(prefix):
            p.kill()
