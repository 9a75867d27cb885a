"""Forked all-reduce ranks: chosen from the probe's GPU list, and a real run through torchrun's fork path.

Where a node's probe found no GPU, torchrun forks the ranks from its agent (which has imported torch) instead of
starting a fresh interpreter per rank; with a GPU, or a probe that could not tell, never (CUDA does not survive a
fork). The GPU probes here are recorded fixtures (`probe_fake_*`): no test needs a GPU. The real runs are gloo on
127.0.0.1 with tiny sizes; they check the plumbing and that the guarantees of the spawned path hold.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import replace
from typing import Any

import pytest

from advisor.evidence.bench import collective
from advisor.evidence.bench.collective import Plan, RankEvent, run_loopback
from advisor.evidence.bench.collective_model import RankState, RunOutcome, Scope
from advisor.evidence.child import ChildResult
from advisor.evidence.children import CHILDREN
from advisor.evidence.probe import ProbeReport
from advisor.fleet.allreduce import AllReduceOptions, node_allreduce
from advisor.fleet.launcher import Launcher, explicit_launcher
from tests._scoring_support import probe_json

TINY = dict(sizes=(4096, 16384), iters=3, samples=2, warmup=1, timeout_s=120.0, op_timeout_s=20.0)
FORKED = Plan(devices=("cpu",), fork_ranks=True, **TINY)  # type: ignore[arg-type]


def _planned(probe: ProbeReport, monkeypatch: pytest.MonkeyPatch) -> Plan:
    """The plan a node of a two-node fleet hands to the all-reduce, for this probe (nothing is run)."""
    seen: dict[str, Any] = {}

    def capture(*args: Any, **kwargs: Any) -> None:
        seen.update(kwargs)

    monkeypatch.setattr("advisor.fleet.allreduce.run_allreduce", capture)
    place = replace(explicit_launcher(1, 2), leader_addr="127.0.0.1", leader_port=29500)
    assert place.launcher is Launcher.EXPLICIT
    node_allreduce(place, "fleet", AllReduceOptions(framework="pytorch"), probe)
    plan = seen["plan"]
    assert isinstance(plan, Plan)
    return plan


def test_a_probe_without_a_gpu_plans_forked_cpu_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = ProbeReport.from_json(probe_json("probe_cpu_only.json"))
    assert probe.gpus.status == "no_driver" and not probe.gpus.devices
    plan = _planned(probe, monkeypatch)
    assert plan.fork_ranks and plan.devices == ("cpu",)
    worker = plan.torchrun_worker(collective.probes_root())
    assert worker[:2] == ["--start-method=fork", "--run-path"] and os.path.isabs(worker[2])
    assert worker[-1] == "--forked"


@pytest.mark.parametrize("fixture", ["probe_fake_nvidia_h100.json", "probe_fake_nvidia_t4.json"])
def test_a_probe_with_a_faked_gpu_plans_spawned_ranks(fixture: str, monkeypatch: pytest.MonkeyPatch) -> None:
    probe = ProbeReport.from_json(probe_json(fixture))
    assert probe.gpus.devices  # a recorded (faked) NVIDIA GPU: no GPU is touched
    plan = _planned(probe, monkeypatch)
    assert not plan.fork_ranks and "gpu" in plan.devices
    assert plan.torchrun_worker(collective.probes_root())[0] == "-m"


@pytest.mark.parametrize("status", ["error", "no_library"])
def test_a_probe_that_could_not_look_for_gpus_never_forks(status: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = probe_json("probe_cpu_only.json")
    data["gpus"]["status"] = status  # NVML failed, or its bindings are missing: a GPU may be there
    assert not _planned(ProbeReport.from_json(data), monkeypatch).fork_ranks


def test_another_accelerator_never_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    data = probe_json("probe_cpu_only.json")
    data["accelerators"]["rocm"]["present"] = True  # ROCm's torch drives it as a CUDA device
    assert not _planned(ProbeReport.from_json(data), monkeypatch).fork_ranks


def test_forked_ranks_with_a_gpu_device_are_refused() -> None:
    with pytest.raises(ValueError, match="CPU alone"):
        Plan(fork_ranks=True)


@pytest.mark.frameworks
def test_forked_ranks_on_loopback_yield_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Intra-node (2 forked ranks, --standalone) and inter-node (2 agents on 127.0.0.1, 1 forked rank each)."""
    pytest.importorskip("torch")
    children: list[tuple[list[str], ChildResult]] = []
    real = collective.run_child

    def recording(module: str, args: list[str], **kwargs: Any) -> ChildResult:
        result = real(module, args, **kwargs)
        children.append((list(args), result))
        return result

    monkeypatch.setattr(collective, "run_child", recording)
    report = run_loopback(2, plan=FORKED, intra=True)
    for run, scope in ((report.intra, Scope.INTRA_NODE), (report.inter, Scope.INTER_NODE)):
        assert run is not None and run.outcome == RunOutcome.OK, run and run.error
        assert (run.scope, run.world_size, run.backend) == (scope, 2, "gloo")
        assert [r.state for r in run.ranks] == [RankState.FINISHED] * 2
        assert [r.nbytes for r in run.rows] == [4096, 16384]
        assert all(r.wrong == 0 and r.time_s > 0 and r.busbw_GBps > 0 for r in run.rows)
    assert len(children) == 3  # one standalone agent, two c10d agents
    for args, result in children:
        assert "--start-method=fork" in args and "--run-path" in args
        # The ranks found torch imported (their agent's): an import in a fresh interpreter takes seconds.
        imports = result.of("import")
        assert imports and all(float(e["seconds"]) < 0.05 for e in imports), imports
    assert CHILDREN.alive() == []


@pytest.mark.frameworks
def test_a_forked_rank_killed_mid_run_is_reported_and_nothing_is_left() -> None:
    pytest.importorskip("torch")
    pids: dict[int, int] = {}

    def kill_rank_1(ev: RankEvent) -> None:
        if ev.kind == "rank_start" and ev.rank is not None and ev.pid is not None:
            pids[ev.rank] = ev.pid
            if len(pids) == 2:
                os.kill(pids[1], signal.SIGKILL)

    plan = replace(FORKED, samples=100_000)  # minutes of work: the kill lands mid-run
    run = run_loopback(2, plan=plan, intra=False, on_event=kill_rank_1).inter
    assert run is not None and run.outcome == RunOutcome.FAILED
    states = {r.rank: r.state for r in run.ranks}
    assert states[1] == RankState.LOST and states[0] in (RankState.ERROR, RankState.LOST)
    assert run.wall_s < plan.timeout_s
    assert CHILDREN.alive() == []


@pytest.mark.frameworks
def test_a_cancel_ends_every_forked_rank() -> None:
    pytest.importorskip("torch")
    cancel = threading.Event()
    started: list[int] = []

    def on_event(ev: RankEvent) -> None:
        if ev.kind == "rank_start":
            started.append(ev.rank or 0)
            if len(started) == 2:
                cancel.set()

    plan = replace(FORKED, samples=100_000)
    run = run_loopback(2, plan=plan, intra=False, cancel=cancel, on_event=on_event).inter
    assert run is not None and run.outcome == RunOutcome.CANCELLED
    assert run.wall_s < plan.timeout_s
    assert CHILDREN.alive() == []


@pytest.mark.frameworks
@pytest.mark.slow
def test_a_forked_rank_that_hangs_is_reported_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv("FWADVISOR_COLLECTIVE_FAULT", "hang@1")
    run = run_loopback(2, plan=replace(FORKED, timeout_s=60.0, op_timeout_s=5.0), intra=False).inter
    assert run is not None and run.outcome in (RunOutcome.FAILED, RunOutcome.TIMED_OUT)
    assert {r.rank: r.state for r in run.ranks} == {0: RankState.ERROR, 1: RankState.LOST}
    assert CHILDREN.alive() == []
