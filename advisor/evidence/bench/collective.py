"""All-reduce across nodes: each node's launcher as a child (torchrun with a c10d rendezvous, or a JAX process).

`run_allreduce(nnodes, node_rank, leader)` is what every node of a fleet calls, the same on each: an intra-node
run first (torchrun `--standalone`, or one JAX process over the node's devices), then the node's share of the
inter-node run, whose rendezvous (torchrun's c10d store, JAX's coordinator) the leader, node 0, serves at
`leader`. `run_loopback(nnodes)` starts every simulated node on this host over 127.0.0.1. Every child goes
through `advisor.evidence.child.run_child`, so timeouts, cancel, signals and leftovers are `children.py`'s.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from advisor.errors import UsageError
from advisor.evidence.bench.collective_model import (
    AllReduceReport,
    CollectiveRun,
    RankReport,
    RankState,
    RunOutcome,
    Scope,
    SizeRow,
    merge_nodes,
)
from advisor.evidence.bench.presets import _COLLECTIVE_ENV_PREFIXES
from advisor.evidence.child import ChildResult, Outcome, run_child
from advisor.evidence.children import CHILDREN
from advisor.paths import probes_root
from advisor.sanitize import echo

#: Message sizes in bytes when none are given: nccl-tests' range in steps of 16, up to 16 MiB.
DEFAULT_SIZES = (4 << 10, 64 << 10, 1 << 20, 16 << 20)
FRAMEWORKS = ("pytorch", "jax")
_MODULES = {"pytorch": "probes.allreduce_nodes_torch", "jax": "probes.allreduce_jax"}
_DISTRIBUTIONS = {"pytorch": "torch", "jax": "jax"}
_LEADER = re.compile(r"(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])"
                     r":(?P<port>\d{1,5})")


@dataclass(frozen=True)
class Leader:
    """Where node 0 serves the rendezvous: torchrun's c10d store at `port`, JAX's coordinator at `port + 1`."""

    host: str
    port: int

    @classmethod
    def parse(cls, text: str, field: str = "--leader") -> Leader:
        """HOST:PORT (IPv6 in brackets); anything else is a `UsageError` naming the flag."""
        m = _LEADER.fullmatch(text.strip())
        if not m or not 1 <= int(m.group("port")) <= 65534:
            raise UsageError(f"must be HOST:PORT with a port of 1-65534, got {echo(text)}", field=field)
        return cls(m.group("host"), int(m.group("port")))

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Plan:
    """What every node measures, the same on each: framework, sizes, repetitions, devices and time limits."""

    framework: str = "pytorch"
    sizes: tuple[int, ...] = DEFAULT_SIZES
    iters: int = 20
    samples: int = 5
    warmup: int = 2
    devices: tuple[str, ...] = ("cpu", "gpu")
    # A node's whole run, and how long the nodes wait for each other to join (a node still busy with its
    # intra-node run); a rank that hangs past it is killed and reported lost.
    timeout_s: float = 300.0
    op_timeout_s: float = 60.0  # how long a collective may block on a lost peer before the rank reports it
    # Start torchrun's ranks by fork from its agent, which has imported torch already, instead of a fresh
    # interpreter per rank that imports it again (seconds on a small host). CPU ranks only: CUDA does not
    # survive a fork, so the caller sets it only where the probe found no GPU, and the ranks use the CPU alone.
    fork_ranks: bool = False

    def __post_init__(self) -> None:
        if self.fork_ranks and "gpu" in self.devices:
            raise ValueError("forked ranks run on the CPU alone: devices must not include 'gpu'")
        if self.framework not in FRAMEWORKS:
            raise UsageError(f"must be one of {', '.join(FRAMEWORKS)}, got {echo(self.framework)}", field="--framework")
        if not self.sizes or any(s < 4 or s > 1 << 32 for s in self.sizes):
            raise UsageError("sizes must be 4 bytes to 4 GiB", field="--sizes")
        if min(self.iters, self.samples) < 1 or self.warmup < 0:
            raise UsageError("iterations and samples must be at least 1", field="--iters")

    def child_args(self) -> list[str]:
        """The options every rank script takes."""
        return ["--sizes", ",".join(map(str, self.sizes)), "--iters", str(self.iters), "--samples",
                str(self.samples), "--warmup", str(self.warmup), "--device", ",".join(self.devices),
                "--op-timeout", f"{self.op_timeout_s:g}", "--join-timeout", f"{self.timeout_s:g}"]

    def torchrun_worker(self, root: Path) -> list[str]:
        """torchrun's worker arguments: `-m` the rank script (a fresh interpreter per rank), or, with
        `fork_ranks`, the script run in a fork of the agent (`--start-method=fork --run-path`, an absolute path)."""
        if self.fork_ranks:
            script = root.resolve() / Path(*_MODULES["pytorch"].split(".")).with_suffix(".py")
            return ["--start-method=fork", "--run-path", str(script), *self.child_args(), "--forked"]
        return ["-m", _MODULES["pytorch"], *self.child_args()]


@dataclass(frozen=True)
class RankEvent:
    """Progress from one node's child: a rank joined, finished or failed, or a size's figures arrived."""

    node: int  # the node whose launcher reported it
    kind: str  # "rank_start" | "rank_end" | "rank_error" | "size"
    rank: int | None = None
    pid: int | None = None
    nbytes: int | None = None


OnEvent = Callable[[RankEvent], None]


def free_port() -> int:
    """A TCP port free on the loopback now (and its successor likely so: JAX takes port + 1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _installed(framework: str) -> bool:
    from importlib import metadata

    try:
        metadata.version(_DISTRIBUTIONS[framework])
    except metadata.PackageNotFoundError:
        return False
    return True


def _env(plan: Plan, extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.startswith(_COLLECTIVE_ENV_PREFIXES)}
    env["OMP_NUM_THREADS"] = "1"  # torchrun's default too: the ranks share the cores
    if os.environ.get("FWADVISOR_COLLECTIVE_FAULT"):
        env["FWADVISOR_COLLECTIVE_FAULT"] = os.environ["FWADVISOR_COLLECTIVE_FAULT"]
    if plan.framework == "jax" and "gpu" not in plan.devices:
        env["JAX_PLATFORMS"] = "cpu"
    return {**env, **extra}


def _relay(node: int, on_event: OnEvent | None) -> Callable[[dict[str, Any]], None]:
    def relay(ev: dict[str, Any]) -> None:
        if on_event is None:
            return
        kind = str(ev.get("event"))
        if kind in ("rank_start", "rank_end", "rank_error"):
            on_event(RankEvent(node, kind, _int(ev.get("rank")), _int(ev.get("pid"))))
        elif kind == "allreduce_size":
            on_event(RankEvent(node, "size", nbytes=_int(ev.get("bytes"))))

    return relay


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def run_from_child(child: ChildResult, *, framework: str, scope: Scope, nnodes: int, nproc_per_node: int,
                   node_rank: int | None, launcher: str) -> CollectiveRun:
    """One node's view of a run from its child's events: the rows (the leader's), its ranks, its outcome."""
    env = next((e for e in child.of("env")), {})
    rows: list[SizeRow] = []
    for ev in child.of("allreduce_size"):
        try:
            rows.append(SizeRow(int(ev["bytes"]), int(ev["elements"]), str(ev["dtype"]), int(ev["world_size"]),
                                int(ev["iters"]), tuple(float(t) for t in ev["times_s"]), int(ev.get("wrong") or 0)))
        except (KeyError, TypeError, ValueError):
            continue  # a garbled line is noise; the rank states still say what happened
    ranks: dict[int, RankReport] = {}
    for ev in child.events:
        rank, kind = _int(ev.get("rank")), ev.get("event")
        if rank is None:
            continue
        if kind == "rank_start":  # the node is the launcher's: torchrun's c10d numbers its agents its own way
            ranks[rank] = RankReport(rank, _int(ev.get("node")) if node_rank is None else node_rank, RankState.LOST)
        elif kind == "rank_end" and rank in ranks:
            ranks[rank] = RankReport(rank, ranks[rank].node, RankState.FINISHED)
        elif kind == "rank_error" and rank in ranks:
            ranks[rank] = RankReport(rank, ranks[rank].node, RankState.ERROR, str(ev.get("error") or "")[:500])
    outcome = {Outcome.OK: RunOutcome.OK, Outcome.TIMED_OUT: RunOutcome.TIMED_OUT,
               Outcome.CANCELLED: RunOutcome.CANCELLED}.get(child.outcome, RunOutcome.FAILED)
    if outcome == RunOutcome.OK and (not ranks or any(r.state != RankState.FINISHED for r in ranks.values())):
        outcome = RunOutcome.FAILED
    error = "" if outcome == RunOutcome.OK else _launcher_error(child)
    world = _int(env.get("world_size"))
    per_node = _int(env.get("nproc_per_node")) or nproc_per_node
    return CollectiveRun(
        framework=framework, scope=scope, outcome=outcome, nnodes=_int(env.get("nnodes")) or nnodes,
        nproc_per_node=per_node if world is None else max(world // max(nnodes, 1), 1),
        backend=str(env.get("backend") or ""), device=str(env.get("device") or "cpu"),
        version=str(env.get("version") or ""), launcher=launcher, rows=tuple(rows),
        ranks=tuple(ranks[k] for k in sorted(ranks)), error=error, wall_s=child.wall_s, node_rank=node_rank,
    )


def _launcher_error(child: ChildResult) -> str:
    """What ended the node's launcher or process (torchrun's last stderr line is a row of "=", not a reason)."""
    if child.outcome == Outcome.CRASHED and child.signal is None and child.returncode:
        return f"exited with status {child.returncode}"
    return child.error or child.outcome.value


def _missing(plan: Plan, scope: Scope, nnodes: int, nproc: int, node_rank: int | None) -> CollectiveRun:
    return CollectiveRun(plan.framework, scope, RunOutcome.MISSING, nnodes, nproc, node_rank=node_rank,
                         error=f"{_DISTRIBUTIONS[plan.framework]} is not installed")


def run_node(plan: Plan, *, nnodes: int, node_rank: int, leader: Leader, nproc_per_node: int = 1,
             rdzv_id: str = "fwadvisor-allreduce", cancel: threading.Event | None = None,
             on_event: OnEvent | None = None) -> CollectiveRun:
    """This node's share of the inter-node run (node 0 serves the rendezvous); its view of ranks and rows."""
    if not _installed(plan.framework):
        return _missing(plan, Scope.INTER_NODE, nnodes, nproc_per_node, node_rank)
    root = probes_root()
    report = {"FWADVISOR_REPORTING_NODE": "1" if node_rank == 0 else "0"}  # the leader's ranks send the rows
    if plan.framework == "pytorch":
        # is_host says which agent serves the c10d store: the leader's, also when every "node" shares one host.
        conf = f"is_host={int(node_rank == 0)},join_timeout={max(int(plan.timeout_s), 1)}"
        args = [f"--nnodes={nnodes}", f"--nproc-per-node={nproc_per_node}", "--rdzv-backend=c10d",
                f"--rdzv-endpoint={leader}", f"--rdzv-id={rdzv_id}", f"--rdzv-conf={conf}",
                "--max-restarts=0", *plan.torchrun_worker(root)]
        with CHILDREN.temp_dir("torchrun") as tmp:  # torchrun's log folders land here and go with it
            child = run_child("torch.distributed.run", args, root=root, timeout=plan.timeout_s, cancel=cancel,
                              env=_env(plan, {"TMPDIR": str(tmp), **report}), on_event=_relay(node_rank, on_event))
        launcher = "torch.distributed.run (c10d rendezvous" + (", forked ranks)" if plan.fork_ranks else ")")
    else:
        coordinator = Leader(leader.host, leader.port + 1)
        flags = f"--xla_force_host_platform_device_count={nproc_per_node}"
        args = ["--coordinator", str(coordinator), "--num-processes", str(nnodes), "--process-id", str(node_rank),
                *plan.child_args()]
        child = run_child(_MODULES["jax"], args, root=root, timeout=plan.timeout_s, cancel=cancel,
                          env=_env(plan, {"XLA_FLAGS": flags, **report}), on_event=_relay(node_rank, on_event))
        launcher = "jax.distributed.initialize"
    return run_from_child(child, framework=plan.framework, scope=Scope.INTER_NODE, nnodes=nnodes,
                          nproc_per_node=nproc_per_node, node_rank=node_rank, launcher=launcher)


def run_intra(plan: Plan, *, nproc: int = 2, node_rank: int = 0, cancel: threading.Event | None = None,
              on_event: OnEvent | None = None) -> CollectiveRun:
    """The single-node figure: `nproc` ranks on this machine (torchrun --standalone, or one JAX process)."""
    if not _installed(plan.framework):
        return _missing(plan, Scope.INTRA_NODE, 1, nproc, node_rank)
    if nproc < 2:
        return CollectiveRun(plan.framework, Scope.INTRA_NODE, RunOutcome.SKIPPED, 1, nproc, node_rank=node_rank,
                             error="one rank on this node: nothing to reduce across")
    root = probes_root()
    report = {"FWADVISOR_REPORTING_NODE": "1"}  # one node: its first rank sends the rows
    if plan.framework == "pytorch":
        args = ["--standalone", "--nnodes=1", f"--nproc-per-node={nproc}", "--max-restarts=0",
                *plan.torchrun_worker(root)]
        with CHILDREN.temp_dir("torchrun") as tmp:
            child = run_child("torch.distributed.run", args, root=root, timeout=plan.timeout_s, cancel=cancel,
                              env=_env(plan, {"TMPDIR": str(tmp), **report}), on_event=_relay(node_rank, on_event))
        launcher = "torch.distributed.run --standalone" + (" (forked ranks)" if plan.fork_ranks else "")
    else:
        flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={nproc}".strip()
        child = run_child(_MODULES["jax"], plan.child_args(), root=root, timeout=plan.timeout_s, cancel=cancel,
                          env=_env(plan, {"XLA_FLAGS": flags, **report}), on_event=_relay(node_rank, on_event))
        launcher = "one JAX process, host-platform devices"
    return run_from_child(child, framework=plan.framework, scope=Scope.INTRA_NODE, nnodes=1, nproc_per_node=nproc,
                          node_rank=node_rank, launcher=launcher)


def _load() -> list[float] | None:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


def _environment(start: float, load: list[float] | None, **fields: Any) -> dict[str, Any]:
    """Where and how busy: the load average at both ends (a busy host's figures say so), the wall time."""
    return {**fields, "cores": os.cpu_count(), "loadavg_start": load, "loadavg_end": _load(),
            "wall_s": round(time.perf_counter() - start, 3)}


def run_allreduce(nnodes: int, node_rank: int, leader: Leader | str, *, plan: Plan | None = None,
                  nproc_per_node: int = 1, intra: bool = True, intra_nproc: int | None = None,
                  intra_timeout_s: float | None = None, rdzv_id: str = "fwadvisor-allreduce",
                  cancel: threading.Event | None = None, on_event: OnEvent | None = None) -> AllReduceReport:
    """What each node of a fleet runs: its intra-node figure, then its share of the inter-node run.

    Every node calls this with the same `nnodes`, `leader`, `plan` and its own `node_rank` (0 = the leader,
    which serves the rendezvous). The leader's report carries the inter-node rows; every node's carries the
    ranks it saw, so a fleet merges them with `merge_nodes`. `intra_nproc` defaults to `max(nproc_per_node, 2)`;
    `intra_timeout_s` bounds the intra-node run apart from the plan's (which is also the wait for the other nodes).
    """
    plan = plan or Plan()
    where = leader if isinstance(leader, Leader) else Leader.parse(leader)
    if nnodes < 1 or not 0 <= node_rank < nnodes:
        raise UsageError(f"node rank {node_rank} is not within 0..{nnodes - 1}", field="--node-rank")
    start, load = time.perf_counter(), _load()
    alone = plan if intra_timeout_s is None else replace(plan, timeout_s=intra_timeout_s)
    local = run_intra(alone, nproc=intra_nproc or max(nproc_per_node, 2), node_rank=node_rank, cancel=cancel,
                      on_event=on_event) if intra else None
    inter = run_node(plan, nnodes=nnodes, node_rank=node_rank, leader=where, nproc_per_node=nproc_per_node,
                     rdzv_id=rdzv_id, cancel=cancel, on_event=on_event)
    return AllReduceReport(plan.framework, local, inter,
                           _environment(start, load, node_rank=node_rank, nnodes=nnodes, loopback=False))


def run_loopback(nnodes: int = 2, *, plan: Plan | None = None, nproc_per_node: int = 1, intra: bool = True,
                 cancel: threading.Event | None = None, on_event: OnEvent | None = None) -> AllReduceReport:
    """Every node of an `nnodes` run on this host over 127.0.0.1, merged; with the intra-node run beside it.

    The intra-node run has as many ranks as the inter-node one, so that the two differ only in the launcher
    and the rendezvous (on one host both cross the same loopback, which is what this measures).
    """
    plan = plan or Plan()
    start, load = time.perf_counter(), _load()
    local = run_intra(plan, nproc=nnodes * nproc_per_node, cancel=cancel, on_event=on_event) if intra else None
    leader = Leader("127.0.0.1", free_port())
    views: dict[int, CollectiveRun] = {}

    def node(k: int) -> None:
        views[k] = run_node(plan, nnodes=nnodes, node_rank=k, leader=leader, nproc_per_node=nproc_per_node,
                            cancel=cancel, on_event=on_event)

    threads = [threading.Thread(target=node, args=(k,), name=f"fwadvisor-node-{k}", daemon=True)
               for k in range(nnodes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    inter = merge_nodes([views[k] for k in sorted(views)])
    return AllReduceReport(plan.framework, local, inter, _environment(start, load, nnodes=nnodes, loopback=True))
