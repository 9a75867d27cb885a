"""One node of a fleet: probe, benchmark and score through the usual machinery into one schema-valid report."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from advisor.fleet.allreduce import AllReduceOptions
from advisor.fleet.launcher import LauncherEnv
from advisor.knowledge.base import KnowledgeBase

if TYPE_CHECKING:  # the report package is imported at the call (it pulls in scoring)
    from advisor.report import Report

#: The fleet preset (the bench engine's `fleet`: fp32 GEMM at 1024, one elementwise pass, dispatch, agreement;
#: bf16 only where the probe found the units) and the fleet's own all-reduce sweep (`advisor.fleet.allreduce`).
FLEET_PRESET = "fleet"
#: `--preset` names a node accepts: the bench presets plus `fleet`.
NODE_PRESETS = (FLEET_PRESET, "test", "quick", "standard", "thorough")


@dataclass(frozen=True)
class NodeOptions:
    """What one node runs: the probe (full, or package metadata only), the bench preset (None: no bench, and no
    all-reduce) and its share of the cross-node all-reduce."""

    preset: str | None = FLEET_PRESET
    fast_probe: bool = False
    frameworks: tuple[str, ...] = ()
    identify: bool = False
    probe_timeout_s: float = 60.0
    seed: int = 0
    allreduce: AllReduceOptions = AllReduceOptions()


def run_node(
    kb: KnowledgeBase,
    place: LauncherEnv,
    options: NodeOptions,
    *,
    on_event: Callable[[Any], None] | None = None,
    cancel: threading.Event | None = None,
) -> Report:
    """Probe (and bench) this node and score it under the default profile: the typed report.

    The children, their timeouts and the signal handling are the probe's and the bench engine's own.
    A node with no framework that imports cleanly still gets the NumPy baseline's figures when a bench
    runs: a fleet compares its nodes even where a framework is missing on some of them. Then, in a fleet
    of several nodes, the cross-node all-reduce (`advisor.fleet.allreduce`): bounded by its own timeout, so
    a peer that never comes costs that long and is named in the report's `allreduce` section.
    """
    from advisor.evidence.gather import probe_and_bench
    from advisor.fleet.allreduce import node_allreduce
    from advisor.profile import Profile, resolve_profile
    from advisor.report import build_report
    from advisor.scoring import assess
    from advisor.scoring.constraints import apply_constraints

    resolved = resolve_profile(Profile(), kb)
    found = probe_and_bench(kb=kb, preset=options.preset, candidates=apply_constraints(kb, resolved).candidates,
                            identify=options.identify, fast=options.fast_probe,
                            frameworks=list(options.frameworks) or None, timeout=options.probe_timeout_s,
                            baseline_alone=True, on_event=on_event, cancel=cancel)
    probe, bench = found.probe, found.bench
    allreduce = None
    if options.preset is not None and not (cancel is not None and cancel.is_set()):
        allreduce = node_allreduce(place, options.preset, options.allreduce, probe, cancel=cancel)
    assessment = assess(kb, resolved, probe=probe, bench=bench, seed=options.seed)
    return build_report(assessment, kb, probe=probe, bench=bench, profile_source=f"fleet node {place.node_index}",
                        identify=options.identify, hostname=place.node_name if options.identify else None,
                        allreduce=allreduce)


def node_option_args(options: NodeOptions) -> list[str]:
    """The `fwadvisor fleet node` flags that run `options` (`fleet run --ray` adds each task's rank)."""
    argv = ["--no-bench"] if options.preset is None else ["--preset", options.preset]
    if options.fast_probe:
        argv.append("--fast-probe")
    for fid in options.frameworks:
        argv += ["--framework", fid]
    argv += ["--timeout", f"{options.probe_timeout_s:g}"]
    if options.identify:
        argv.append("--identify")
    ar = options.allreduce
    if not ar.enabled:
        argv.append("--no-allreduce")
    if ar.framework:
        argv += ["--allreduce-framework", ar.framework]
    argv += ["--allreduce-timeout", f"{ar.timeout_s:g}"]
    if ar.leader:
        argv += ["--leader", ar.leader]
    if ar.port is not None:
        argv += ["--allreduce-port", str(ar.port)]
    return argv
