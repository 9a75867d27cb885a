"""A fleet node's share of the cross-node all-reduce: the leader from the launcher, a plan per preset, a bound."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.errors import UsageError
from advisor.evidence.bench.collective import FRAMEWORKS, Leader, Plan, run_allreduce
from advisor.evidence.bench.collective_model import AllReduceReport, CollectiveRun, RunOutcome, Scope
from advisor.fleet.launcher import Launcher, LauncherEnv

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport

#: torchrun's default rendezvous port, used when the launcher names a leader but no port.
DEFAULT_RENDEZVOUS_PORT = 29500
#: Seconds a node waits for its peers and measures before its all-reduce is ended and reported timed out.
DEFAULT_TIMEOUT_S = 300.0
#: The least bound of the intra-node run, which waits for no peer: starting torchrun and its ranks on a busy
#: node takes tens of seconds, and a short wait for the peers must not cut it.
INTRA_TIMEOUT_S = 120.0
#: Per node preset: (sizes, calls per sample, samples). The fleet preset compares nodes and the interconnect
#: at nccl-tests' small-to-large range in steps of 16; `test` only checks the plumbing.
#: The probe's NVIDIA outcomes that say "no GPU here" (`no_library`: not looked; `error`: could not tell).
_NO_GPU_STATUSES = ("no_driver", "no_gpu")
_SIZES = {"test": ((4 << 10, 64 << 10), 3, 3), "fleet": ((64 << 10, 1 << 20, 16 << 20), 10, 3),
          "quick": ((64 << 10, 1 << 20, 16 << 20), 10, 3)}


@dataclass(frozen=True)
class AllReduceOptions:
    """Whether and how a node joins the all-reduce: framework (None: PyTorch where installed, else JAX), bounds."""

    enabled: bool = True
    framework: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    leader: str | None = None  # HOST:PORT given by hand; None: the launcher's leader
    port: int | None = None  # the rendezvous port on the launcher's leader; None: see `leader_for`


def leader_for(place: LauncherEnv, options: AllReduceOptions) -> Leader | None:
    """Where node 0 serves the rendezvous, from `--leader` or the launcher's environment (None: none known).

    Under torchrun, MASTER_PORT is the outer job's own store, busy on the leader: the all-reduce takes the
    next port (and JAX's coordinator the one after). Elsewhere torchrun's default, 29500, unless `port` is given.
    """
    if options.leader:
        return Leader.parse(options.leader, field="--leader")
    if not place.leader_addr:
        return None
    host = place.leader_addr.strip("[]")
    host = f"[{host}]" if ":" in host else host
    if options.port is not None:
        port = options.port
    elif place.launcher is Launcher.TORCHRUN and place.leader_port:
        port = place.leader_port + 1
    else:
        port = place.leader_port or DEFAULT_RENDEZVOUS_PORT
    if not 1 <= port <= 65534:
        raise UsageError(f"the rendezvous port must be 1-65534, got {port}", field="--allreduce-port")
    return Leader(host, port)


def plan_for(preset: str, framework: str, timeout_s: float, *, fork_ranks: bool = False) -> Plan:
    """What every node measures under a node preset (the same on each, so the ranks agree on the sizes).

    `fork_ranks` (see `forks_ranks`): PyTorch's ranks are forked from torchrun's agent and use the CPU alone.
    """
    fork = fork_ranks and framework == "pytorch"
    devices = ("cpu",) if fork else Plan.devices
    if preset in _SIZES:
        sizes, iters, samples = _SIZES[preset]
        return Plan(framework=framework, sizes=sizes, iters=iters, samples=samples, warmup=1, timeout_s=timeout_s,
                    op_timeout_s=min(60.0, timeout_s / 2), devices=devices, fork_ranks=fork)
    return Plan(framework=framework, timeout_s=timeout_s, op_timeout_s=min(60.0, timeout_s / 2), devices=devices,
                fork_ranks=fork)


def forks_ranks(probe: ProbeReport) -> bool:
    """Whether torchrun may fork the ranks: only where the probe looked for NVIDIA GPUs and found none, and saw
    no other accelerator. CUDA (and ROCm's HIP) do not survive a fork; a probe that did not look (no NVML
    bindings) or could not tell (NVML failed) counts as a GPU."""
    looked = probe.gpus.status in _NO_GPU_STATUSES
    return looked and not probe.gpus.devices and not any(a.present for a in probe.accelerators.values())


def framework_for(probe: ProbeReport, asked: str | None) -> str | None:
    """The framework that runs the all-reduce: the one asked for, else PyTorch where installed, else JAX."""
    if asked:
        return asked
    return next((f for f in FRAMEWORKS if (fp := probe.frameworks.get(f)) is not None and fp.installed), None)


def gpu_count(probe: ProbeReport) -> int:
    """The node's NVIDIA GPUs: one rank each (NCCL takes one GPU per rank); one rank on a node without."""
    return len(probe.gpus.devices)


def _not_run(framework: str, nnodes: int, node_rank: int, outcome: RunOutcome, why: str) -> AllReduceReport:
    run = CollectiveRun(framework, Scope.INTER_NODE, outcome, nnodes, 1, node_rank=node_rank, error=why)
    return AllReduceReport(framework, None, run, {"node_rank": node_rank, "nnodes": nnodes})


def node_allreduce(place: LauncherEnv, preset: str, options: AllReduceOptions, probe: ProbeReport, *,
                   cancel: threading.Event | None = None) -> AllReduceReport | None:
    """This node's intra-node run and its share of the inter-node one (None: a fleet of one, or turned off).

    A node that cannot join says why with the inter-node run's outcome: `missing` (no framework that can run
    it), `skipped` (no leader address); a peer that never comes is `timed_out` or `failed` within the bound.
    """
    nnodes = place.node_count or 1
    if not options.enabled or nnodes < 2:
        return None
    framework = framework_for(probe, options.framework)
    if framework is None:
        return _not_run("none", nnodes, place.node_index, RunOutcome.MISSING,
                        "neither PyTorch nor JAX is installed on this node")
    leader = leader_for(place, options)
    if leader is None:
        return _not_run(framework, nnodes, place.node_index, RunOutcome.SKIPPED,
                        f"the launcher ({place.launcher.value}) gives no leader address; give --leader HOST:PORT")
    plan = plan_for(preset, framework, options.timeout_s, fork_ranks=forks_ranks(probe))
    return run_allreduce(nnodes, place.node_index, leader, plan=plan, nproc_per_node=max(gpu_count(probe), 1),
                         intra_timeout_s=max(options.timeout_s, INTRA_TIMEOUT_S), rdzv_id="fwadvisor-fleet",
                         cancel=cancel)
