"""`run_on_ray`: one `fleet node` per Ray node (a STRICT_SPREAD placement group), reports returned in memory.

Ray is an optional extra (`fwadvisor[ray]`) imported only here, when a run starts. Every Ray call is
bounded: connecting, listing the nodes and placing the group run under `_bounded`, the tasks under
`ray.wait(timeout=...)`; a node that fails, is killed or does not answer in time is named, and the
reports of the others are kept. Each task runs the node command in a child process of its own, so a
framework that crashes takes that child with it, not the Ray worker.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from advisor import limits
from advisor.errors import AdvisorError, UsageError
from advisor.fleet.launcher import node_file_name
from advisor.fleet.models import FailedNode, FailureKind
from advisor.fleet.summary import NodeInput
from advisor.sanitize import one_line
from advisor.team.saved_report import SavedKind, saved_report

T = TypeVar("T")

#: Test hook, like the bench engine's FWADVISOR_BENCH_FAULT: "1=gemm:hang" breaks rank 1's bench on purpose.
FAULT_ENV = "FWADVISOR_FLEET_FAULT"
#: Seconds a Ray control call (connect, list nodes, place the group) may take before the run gives up.
CONTROL_TIMEOUT_S = 60.0
#: Seconds the leader waits beyond a node's own timeout (the child is ended at its timeout; this is the margin).
GRACE_S = 30.0


class FleetError(AdvisorError):
    """The fleet run could not start: Ray missing or unreachable, or the nodes could not be placed."""


@dataclass(frozen=True)
class RayPlan:
    """What `run_on_ray` asks of the cluster."""

    address: str | None  # "auto", "HOST:PORT", "ray://HOST:PORT"; None: start a local Ray (a laptop)
    nodes: int | None = None  # None: every alive node
    node_argv: tuple[str, ...] = ()  # `fwadvisor` arguments for each node, without --rank/--world-size
    timeout_s: float = 900.0
    cpus_per_node: float = 1.0
    bundle_resources: Mapping[str, float] = field(default_factory=dict)
    init_kwargs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RayOutcome:
    """The reports that came back, and the nodes that did not report."""

    reports: tuple[NodeInput, ...]
    failed: tuple[FailedNode, ...]
    expected: int


def _bounded(fn: Callable[[], T], timeout_s: float, what: str) -> T:
    """Run a Ray control call with a deadline: it runs in a thread, and the run gives up when time is out."""
    box: dict[str, Any] = {}

    def call() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=call, name=f"fwadvisor-ray-{what}", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise FleetError(f"Ray did not answer ({what}) within {timeout_s:g} s", field="--ray")
    if "error" in box:
        error = box["error"]
        if isinstance(error, AdvisorError):
            raise error
        raise FleetError(f"Ray failed ({what}): {one_line(str(error))[:300]}", field="--ray") from None
    return box["value"]  # type: ignore[no-any-return]


def _quietly(fn: Callable[[], object], what: str) -> None:
    """A clean-up call, bounded; its failure changes nothing the run found (the reports are already in)."""
    try:
        _bounded(fn, CONTROL_TIMEOUT_S, what)
    except AdvisorError:
        pass


def _node_task(argv: list[str], timeout_s: float, fault: str | None) -> dict[str, Any]:
    """Run on a Ray worker: the node command in a child (own session), ended at `timeout_s`."""
    import contextlib
    import signal
    import subprocess
    import sys

    from advisor.fleet.lifeline import PARENT_ENV

    env = {**os.environ, PARENT_ENV: str(os.getpid())}  # the node command ends when this worker dies
    if fault:
        env["FWADVISOR_BENCH_FAULT"] = fault
    proc = subprocess.Popen([sys.executable, "-m", "advisor", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        # SIGTERM first: the node command ends its own probe and bench children, then the group is killed.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        return {"rc": None, "timed_out": True, "stdout": b"", "stderr": err[-4000:]}
    return {"rc": proc.returncode, "timed_out": False, "stdout": out[: limits.MAX_REPORT_BYTES + 1],
            "stderr": err[-4000:]}


def _faults() -> dict[int, str]:
    spec = os.environ.get(FAULT_ENV, "")
    out: dict[int, str] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        rank, _, fault = part.partition("=")
        if rank.isdigit() and fault:
            out[int(rank)] = fault
    return out


def _last_line(stderr: bytes) -> str:
    lines = [ln for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    return one_line(lines[-1])[:300] if lines else ""


def read_answer(rank: int, answer: Mapping[str, Any]) -> NodeInput | FailedNode:
    """A task's answer as a node report, or as the named failure it is."""
    import signal

    label = node_file_name(rank).removesuffix(".json")
    if answer.get("timed_out"):
        return FailedNode(label=label, rank=rank, kind=FailureKind.TIMED_OUT, detail=_last_line(answer["stderr"]))
    rc = answer.get("rc")
    if isinstance(rc, int) and rc < 0:
        name = signal.Signals(-rc).name if -rc in {s.value for s in signal.Signals} else str(-rc)
        return FailedNode(label=label, rank=rank, kind=FailureKind.KILLED, detail=f"ended by {name}")
    if rc != 0:
        return FailedNode(label=label, rank=rank, kind=FailureKind.FAILED,
                          detail=f"exit status {rc}: {_last_line(answer.get('stderr') or b'')}")
    raw = answer.get("stdout") or b""
    try:
        if len(raw) > limits.MAX_REPORT_BYTES:
            raise ValueError("larger than a report may be")
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return FailedNode(label=label, rank=rank, kind=FailureKind.BAD_REPORT, detail=one_line(str(exc))[:200])
    if not isinstance(data, dict) or "schema_version" not in data:
        return FailedNode(label=label, rank=rank, kind=FailureKind.BAD_REPORT, detail="not an fwadvisor report")
    return NodeInput(label=label, report=saved_report(data, label, SavedKind.REPORT), rank=rank, text=raw)


def _exception_failure(rank: int, exc: BaseException) -> FailedNode:
    import ray.exceptions as rex

    label = node_file_name(rank).removesuffix(".json")
    kind = FailureKind.FAILED
    if isinstance(exc, rex.NodeDiedError | rex.WorkerCrashedError | rex.ActorDiedError | rex.OwnerDiedError):
        kind = FailureKind.KILLED
    elif isinstance(exc, rex.TaskCancelledError | rex.GetTimeoutError):
        kind = FailureKind.TIMED_OUT
    return FailedNode(label=label, rank=rank, kind=kind, detail=one_line(type(exc).__name__ + ": " + str(exc))[:300])


def _bundles(ray: Any, plan: RayPlan, count: int) -> list[dict[str, float]]:
    alive = [n for n in _bounded(ray.nodes, CONTROL_TIMEOUT_S, "list nodes") if n.get("Alive")]
    gpus = sorted((int((n.get("Resources") or {}).get("GPU", 0)) for n in alive), reverse=True)[:count]
    gpus += [0] * (count - len(gpus))
    out = []
    for g in gpus:
        bundle = {"CPU": plan.cpus_per_node, **plan.bundle_resources}
        if g:
            bundle["GPU"] = float(g)  # the node's every GPU: Ray then shows them all to the probe
        out.append(bundle)
    return out


def with_leader(argv: tuple[str, ...], host: str | None, count: int) -> tuple[str, ...]:
    """The node arguments with `--leader HOST:PORT` added: bundle 0's node serves the all-reduce's rendezvous.

    Ray sets none of the launcher variables a node reads its leader from, so without this every node would skip
    the cross-node all-reduce. Left as it is for one node, with the all-reduce off, or with a leader given by hand;
    the port is `--allreduce-port` where given, else torchrun's default.
    """
    from advisor.fleet.allreduce import DEFAULT_RENDEZVOUS_PORT

    if host is None or count < 2 or "--no-allreduce" in argv or "--leader" in argv:
        return argv
    port = argv[argv.index("--allreduce-port") + 1] if "--allreduce-port" in argv[:-1] else DEFAULT_RENDEZVOUS_PORT
    host = f"[{host}]" if ":" in host else host
    return (*argv, "--leader", f"{host}:{port}")


def _bundle_zero_host(ray: Any, pg: Any) -> str | None:
    """The IP address of the node that holds bundle 0 (None where Ray does not say)."""
    from ray.util.placement_group import placement_group_table

    table = _bounded(lambda: placement_group_table(pg), CONTROL_TIMEOUT_S, "read the placement group")
    node_id = (table.get("bundles_to_node_id") or {}).get(0)
    nodes = _bounded(ray.nodes, CONTROL_TIMEOUT_S, "list nodes")
    return next((str(n["NodeManagerAddress"]) for n in nodes
                 if n.get("NodeID") == node_id and n.get("NodeManagerAddress")), None)


def run_on_ray(plan: RayPlan) -> RayOutcome:
    """Place one bundle per node (STRICT_SPREAD), run the node command in each, and gather what came back."""
    try:
        import ray
        from ray.util.placement_group import placement_group, remove_placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
    except ImportError:
        raise FleetError("Ray is not installed: pip install 'fwadvisor[ray]'", field="--ray") from None

    started_here = not ray.is_initialized()
    if started_here:
        kwargs = {"log_to_driver": False, "include_dashboard": False, **plan.init_kwargs}
        _bounded(lambda: ray.init(address=plan.address, **kwargs), CONTROL_TIMEOUT_S, "connect")
    pg = None
    try:
        alive = sum(1 for n in _bounded(ray.nodes, CONTROL_TIMEOUT_S, "list nodes") if n.get("Alive"))
        count = plan.nodes or alive
        if count < 1 or count > limits.MAX_NODES:
            raise UsageError(f"must be between 1 and {limits.MAX_NODES}, got {count}", field="--nodes")
        if count > alive:
            raise FleetError(f"{count} nodes asked for, but the Ray cluster has {alive} alive", field="--nodes")
        bundles = _bundles(ray, plan, count)
        pg = placement_group(bundles, strategy="STRICT_SPREAD", name="fwadvisor-fleet")
        try:
            _bounded(lambda: ray.get(pg.ready(), timeout=CONTROL_TIMEOUT_S), CONTROL_TIMEOUT_S + 5, "place nodes")
        except FleetError as exc:
            raise FleetError(f"could not place {count} bundles one per node ({bundles[0]} each): {exc.message}",
                             field="--nodes") from None
        task = ray.remote(max_retries=0)(_node_task)
        faults = _faults()
        node_argv = with_leader(plan.node_argv, _bundle_zero_host(ray, pg), count)
        refs = {}
        for rank, bundle in enumerate(bundles):
            argv = ["fleet", "node", "--rank", str(rank), "--world-size", str(count), "--stdout", *node_argv]
            strategy = PlacementGroupSchedulingStrategy(pg, placement_group_bundle_index=rank)
            extra = {k: v for k, v in bundle.items() if k not in ("CPU", "GPU")}
            ref = task.options(num_cpus=bundle["CPU"], num_gpus=bundle.get("GPU", 0), resources=extra or None,
                               scheduling_strategy=strategy).remote(argv, plan.timeout_s, faults.get(rank))
            refs[ref] = rank
        return _gather(ray, refs, plan.timeout_s + GRACE_S, count)
    finally:
        # Bounded too: a cluster that went away mid-run must not hold the leader at the clean-up.
        if pg is not None:
            _quietly(lambda: remove_placement_group(pg), "remove the placement group")
        if started_here:
            _quietly(ray.shutdown, "disconnect")


def _gather(ray: Any, refs: Mapping[Any, int], timeout_s: float, count: int) -> RayOutcome:
    ready, pending = ray.wait(list(refs), num_returns=len(refs), timeout=timeout_s)
    reports: list[NodeInput] = []
    failed: list[FailedNode] = []
    for ref in ready:
        rank = refs[ref]
        try:
            answer = ray.get(ref, timeout=CONTROL_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - every Ray error names this node and the run goes on
            failed.append(_exception_failure(rank, exc))
            continue
        got = read_answer(rank, answer)
        (failed if isinstance(got, FailedNode) else reports).append(got)  # type: ignore[arg-type]
    for ref in pending:
        _quietly(functools.partial(ray.cancel, ref, force=True), "cancel a node")
        rank = refs[ref]
        failed.append(FailedNode(label=node_file_name(rank).removesuffix(".json"), rank=rank,
                                 kind=FailureKind.TIMED_OUT, detail=f"no answer within {timeout_s:g} s; cancelled"))
    reports.sort(key=lambda r: r.rank or 0)
    failed.sort(key=lambda f: f.rank or 0)
    return RayOutcome(tuple(reports), tuple(failed), count)

