"""`fwadvisor fleet`: `node` (one report per node, under any launcher), `run --ray`, and `summary` of the reports."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from advisor.sanitize import echo

HELP = "fleet mode: a report per node (fleet node), one per Ray node (fleet run --ray), the summary (fleet summary)"

#: The node presets (advisor.fleet.NODE_PRESETS; not imported: the parser stays light at start-up).
_PRESETS = ("fleet", "test", "quick", "standard", "thorough")


def configure(parser: argparse.ArgumentParser) -> None:
    """`fleet node`, `fleet run --ray [ADDRESS]` and `fleet summary DIR|FILE...`."""
    sub = parser.add_subparsers(dest="fleet_command", metavar="ACTION", required=True)
    node = sub.add_parser("node", help="probe and benchmark this node; write its report, named by its rank",
                          description="Reads rank, world size and node from the launcher's environment (Slurm, "
                          "Open MPI, PMIx, torchrun, SkyPilot, Kubernetes Indexed Job or JobSet; see docs/fleet.md) "
                          "and writes DIR/node-NNNN.json. Host names stay out of it unless --identify.")
    node.add_argument("--out", default="fleet-reports", metavar="DIR", help="folder for node-NNNN.json "
                      "(default: fleet-reports)")
    node.add_argument("--stdout", action="store_true", help="print the report JSON on stdout instead of a file")
    node.add_argument("--rank", type=int, metavar="N", help="this node's rank (instead of the launcher's)")
    node.add_argument("--world-size", type=int, metavar="N", help="the number of nodes (with --rank)")
    _node_flags(node)
    node.set_defaults(_run=run_node)
    ray = sub.add_parser("run", help="run `fleet node` on every node of a Ray cluster; print the fleet summary",
                         description="One placement-group bundle per node (STRICT_SPREAD), each reserving the node's "
                         "GPUs; each task runs the node command and returns its report in memory. A node that fails "
                         "or hangs is named; the others are merged. Outside a laptop, start the cluster with Ray token "
                         "authentication (RAY_AUTH_MODE=token; see docs/fleet.md).")
    ray.add_argument("--ray", nargs="?", const="auto", required=True, metavar="ADDRESS",
                     help="the cluster: auto (default), HOST:PORT or ray://HOST:PORT; 'local' starts a Ray here")
    ray.add_argument("--nodes", type=int, metavar="N", help="nodes to run on (default: every alive node)")
    ray.add_argument("--out", metavar="DIR", help="also write each node's report to DIR/node-NNNN.json")
    ray.add_argument("--node-timeout", type=float, default=900.0, metavar="S",
                     help="seconds one node may take before it is named and cancelled (default 900)")
    ray.add_argument("--cpus-per-node", type=float, default=1.0, metavar="N",
                     help="CPUs each node's bundle reserves (default 1)")
    ray.add_argument("--bundle-resource", action="append", default=[], metavar="NAME=VALUE",
                     help="a custom Ray resource every bundle also reserves (repeatable)")
    _node_flags(ray)
    _output_flags(ray)
    ray.set_defaults(_run=run_ray)
    summary = sub.add_parser("summary", help="merge node reports: node types, their spread, what it means",
                             description="Groups the nodes by CPU, GPU model and count, and framework versions; names "
                             "a slow or misconfigured node and a framework missing or failing on some nodes.")
    summary.add_argument("paths", nargs="+", metavar="DIR|FILE", help="report files, or folders of node-*.json")
    _output_flags(summary)
    summary.set_defaults(_run=run_summary, identify=False)


def _node_flags(parser: argparse.ArgumentParser) -> None:
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", dest="preset", action="store_const", const="quick", help="the quick bench preset")
    size.add_argument("--standard", dest="preset", action="store_const", const="standard",
                      help="the standard bench preset")
    size.add_argument("--preset", dest="preset", choices=_PRESETS,
                      help="bench preset (default: fleet = fp32 GEMM 1024, a*x+y, dispatch, agreement; "
                           "CPU bf16 only where the probe finds bf16 units)")
    size.add_argument("--no-bench", dest="preset", action="store_const", const=None, help="probe and score only")
    parser.set_defaults(preset="fleet")
    parser.add_argument("--fast-probe", action="store_true", help="probe package metadata only (no framework imports)")
    parser.add_argument("--framework", action="append", default=[], metavar="ID", help="probe only this framework")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help="seconds each framework probe child may take (default 60)")
    parser.add_argument("--identify", action="store_true", help="keep host names and addresses in the reports")
    coll = parser.add_argument_group("cross-node all-reduce (with a bench, when the fleet has several nodes)")
    coll.add_argument("--no-allreduce", dest="allreduce", action="store_false",
                      help="do not join the cross-node all-reduce")
    coll.add_argument("--allreduce-framework", choices=("pytorch", "jax"),
                      help="the framework that runs it, the same on every node (default: PyTorch where installed, "
                           "else JAX)")
    coll.add_argument("--allreduce-timeout", type=float, default=300.0, metavar="S",
                      help="seconds this node waits for its peers and measures before its all-reduce is ended and "
                           "reported timed out; the probe and bench results are kept (default 300)")
    coll.add_argument("--leader", metavar="HOST:PORT",
                      help="node 0's rendezvous address (default: the launcher's leader; see docs/fleet.md)")
    coll.add_argument("--allreduce-port", type=int, metavar="PORT",
                      help="the rendezvous port on the launcher's leader (default: MASTER_PORT+1 under torchrun, "
                           "else 29500; JAX takes the port after it)")


def _output_flags(parser: argparse.ArgumentParser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the summary as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print the summary as Markdown")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the summary to FILE (JSON with --json/.json)")


def _options(args: argparse.Namespace) -> Any:
    from advisor.evidence.bench.collective import Leader
    from advisor.fleet import NodeOptions
    from advisor.fleet.allreduce import AllReduceOptions

    if args.leader:
        Leader.parse(args.leader)  # a bad address is refused now, not after the probe and the bench
    allreduce = AllReduceOptions(enabled=args.allreduce, framework=args.allreduce_framework,
                                 timeout_s=args.allreduce_timeout, leader=args.leader, port=args.allreduce_port)
    return NodeOptions(preset=args.preset, fast_probe=args.fast_probe, frameworks=tuple(args.framework),
                       identify=args.identify, probe_timeout_s=args.timeout, allreduce=allreduce)


def _place(args: argparse.Namespace) -> Any:
    import os

    from advisor.errors import UsageError
    from advisor.fleet.launcher import detect_launcher, explicit_launcher

    if args.rank is None and args.world_size is None:
        return detect_launcher(os.environ)
    if args.rank is None or args.world_size is None:
        raise UsageError("--rank and --world-size go together", field="--rank" if args.rank is None else
                         "--world-size")
    from advisor import limits

    limits.check_number(args.world_size, "--world-size", low=1, high=limits.MAX_NODES)
    return explicit_launcher(args.rank, args.world_size)


def run_node(args: argparse.Namespace) -> int:
    """Probe, bench and score this node; write DIR/node-NNNN.json atomically (or print it with --stdout)."""
    from advisor.cli.output import emit_text, note, warn, write_file
    from advisor.cli.signals import run_cancellable
    from advisor.fleet import node_file_name
    from advisor.fleet import run_node as node_report
    from advisor.fleet.lifeline import die_with_parent
    from advisor.jsonio import json_text
    from advisor.knowledge import load_knowledge
    from advisor.privacy import scrub

    die_with_parent()  # under `fleet run --ray`: a Ray worker that dies takes this node and its children along
    place = _place(args)
    options = _options(args)
    if not place.writes_report:
        note(f"fwadvisor: local rank {place.local_rank} of node {place.node_index}: the node's report is written by "
             "its local rank 0")
        return 0
    target = Path(args.out) / node_file_name(place.node_index)
    if not args.stdout:
        _ready_folder(Path(args.out))
    kb = load_knowledge(args.kb)
    note(f"fwadvisor: fleet node {place.node_index} ({place.launcher.value}, rank {place.rank} of "
         f"{place.world_size or '?'})")
    report = run_cancellable(lambda cancel: node_report(kb, place, options, cancel=cancel),
                             name="fwadvisor-fleet")
    data = report.model_dump(mode="json")  # the file's JSON, from the model
    if not args.identify:  # the launcher's host names and leader address are hidden wherever they slipped in
        leader = args.leader.rsplit(":", 1)[0].strip("[]") if args.leader else None
        hide = tuple(v for v in (place.node_name, place.leader_addr, leader) if v)
        data = scrub(data, drop_keys=False, hide=hide)
    text = json_text(data)
    if args.stdout:
        emit_text(text)
    else:
        write_file(str(target), text, what=f"node {place.node_index} report", rescue=target.stem)
    inter = (data.get("allreduce") or {}).get("inter") or {}  # as written to the file
    if inter.get("outcome") not in (None, "ok"):  # the report says so too; the node's other results stand
        why = f": {inter['error']}" if inter.get("error") else ""
        warn(f"node {place.node_index}: cross-node all-reduce {inter['outcome']}{why}")
    return 0


def _ready_folder(folder: Path) -> None:
    from advisor.errors import OutputError

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder: {exc.strerror or exc}", file=folder, field="--out") from None
    if not folder.is_dir():
        raise OutputError("not a folder", file=folder, field="--out")


def _bundle_resources(values: list[str]) -> dict[str, float]:
    import math
    import re

    from advisor.errors import UsageError

    out = {}
    for item in values:
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.:-]{0,63})=(\d{1,6}(?:\.\d{1,3})?)", item)
        if not m or m.group(1) in ("CPU", "GPU", "memory") or not math.isfinite(float(m.group(2))):
            raise UsageError(f"must be NAME=VALUE (a custom resource, not CPU or GPU), got {echo(item)}",
                             field="--bundle-resource")
        out[m.group(1)] = float(m.group(2))
    return out


def run_ray(args: argparse.Namespace) -> int:
    """Run the node command on every Ray node; print the summary; exit 1 when a node gave no report."""
    from advisor import limits
    from advisor.cli.output import note, warn, write_file
    from advisor.cli.signals import run_cancellable
    from advisor.fleet.node import node_option_args
    from advisor.fleet.ray_run import RayPlan, run_on_ray
    from advisor.fleet.summary import summarize
    from advisor.knowledge import load_knowledge

    if args.nodes is not None:
        limits.check_number(args.nodes, "--nodes", low=1, high=limits.MAX_NODES)
    limits.check_number(args.node_timeout, "--node-timeout", low=0, high=limits.MAX_BUDGET_S, low_open=True)
    limits.check_number(args.cpus_per_node, "--cpus-per-node", low=0, high=4096, low_open=True)
    kb = load_knowledge(args.kb)
    if args.out:
        _ready_folder(Path(args.out))
    options = _options(args)
    argv = node_option_args(options)
    plan = RayPlan(address=None if args.ray == "local" else args.ray, nodes=args.nodes, node_argv=tuple(argv),
                   timeout_s=args.node_timeout, cpus_per_node=args.cpus_per_node,
                   bundle_resources=_bundle_resources(args.bundle_resource))
    note(f"fwadvisor: fleet run on Ray ({args.ray}): {args.nodes or 'every'} node(s)")
    outcome = run_cancellable(lambda _cancel: run_on_ray(plan), name="fwadvisor-fleet")
    for failure in outcome.failed:
        warn(f"{failure.label}: {failure.kind.value}: {failure.detail}")
    if args.out:
        from advisor.fleet import node_file_name

        for report in outcome.reports:
            text = (report.text or b"").decode("utf-8", "replace")
            write_file(str(Path(args.out) / node_file_name(report.rank or 0)), text,
                       what=f"{report.label} report", rescue=report.label)
    if not outcome.reports:
        note("fwadvisor: no node gave a report")
        return 1
    summary = summarize(kb, outcome.reports, failed=outcome.failed, expected=outcome.expected)
    _emit(args, summary)
    return 1 if outcome.failed else 0


def _expand(paths: list[str]) -> list[str]:
    out: list[str] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(p.glob("node-*.json")) or sorted(p.glob("*.json"))
            out += [str(f) for f in found]
        else:
            out.append(raw)
    return out


def run_summary(args: argparse.Namespace) -> int:
    """Merge node report files (folders give their node-*.json) into the fleet summary."""
    from advisor.errors import ReportError
    from advisor.fleet.summary import read_node_files, summarize
    from advisor.knowledge import load_knowledge

    kb = load_knowledge(args.kb)
    files = _expand(args.paths)
    if not files:
        raise ReportError("no report file in the folder(s) given", field="paths")
    nodes, skipped = read_node_files(files)
    if not nodes:
        reasons = "; ".join(f"{s.nodes[0]}: {s.reason}" for s in skipped)
        raise ReportError(f"no usable node report among the files ({reasons})", field="paths")
    _emit(args, summarize(kb, nodes, skipped=skipped))
    return 0


def _emit(args: argparse.Namespace, summary: Any) -> None:
    from advisor.cli.fleet_text import summary_markdown
    from advisor.cli.output import emit_document
    from advisor.jsonio import model_json

    emit_document(args, model_json(summary), summary_markdown(summary), rescue="fleet-summary")


def run(args: argparse.Namespace) -> int:
    """The registry's entry point; every action sets its own (`node`, `run`, `summary`)."""
    from advisor.errors import UsageError

    raise UsageError("choose an action: node, run or summary", field="fleet")
