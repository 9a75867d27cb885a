"""`fwadvisor bench --allreduce`: the cross-node all-reduce alone, intra-node beside inter-node, per message size."""

from __future__ import annotations

import argparse
import re
from typing import Any

from advisor.errors import UsageError
from advisor.sanitize import echo

_SIZE = re.compile(r"(\d{1,10})([KMG]?)(?:i?B)?", re.IGNORECASE)
_SCALE = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def configure(group: Any) -> None:
    """The all-reduce flags, added to bench's torchrun group (`--nnodes` and `--node-rank` are shared)."""
    group.add_argument("--allreduce", action="store_true",
                       help="only the all-reduce, intra-node beside inter-node, per message size (PyTorch: "
                            "torchrun with a c10d rendezvous; JAX: jax.distributed); with --loopback N or "
                            "--nnodes N --node-rank R --leader HOST:PORT")
    group.add_argument("--leader", metavar="HOST:PORT",
                       help="node 0's address: torchrun's c10d store at PORT, JAX's coordinator at PORT+1")
    group.add_argument("--loopback", type=int, metavar="N", help="simulate N nodes on this host over 127.0.0.1")
    group.add_argument("--nproc-per-node", type=int, default=1, help="ranks per node (default 1)")
    group.add_argument("--sizes", help="message sizes, comma-separated, e.g. 4K,64K,1M,16M (default)")
    group.add_argument("--iters", type=int, default=20, help="calls per timed sample (default 20)")
    group.add_argument("--samples", type=int, default=5, help="timed samples per size (default 5)")
    group.add_argument("--no-intra", action="store_true", help="skip the intra-node run")
    group.add_argument("--node-timeout", type=float, default=300.0, metavar="SECONDS",
                       help="a node's run is killed and reported after this (default 300)")


#: The flags that mean something only with --allreduce, and their defaults.
_OWN = {"leader": None, "loopback": None, "nproc_per_node": 1, "sizes": None, "iters": 20, "samples": 5,
        "no_intra": False, "node_timeout": 300.0}


def refuse_stray(args: argparse.Namespace) -> None:
    """A flag of the all-reduce given without --allreduce is a `UsageError` rather than silently ignored."""
    stray = [k for k, default in _OWN.items() if getattr(args, k, default) != default]
    if stray:
        flag = "--" + stray[0].replace("_", "-")
        raise UsageError("only means something with --allreduce", field=flag)


def parse_sizes(text: str) -> tuple[int, ...]:
    """'4K,64K,1M' -> bytes; anything else is a `UsageError` naming --sizes."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        m = _SIZE.fullmatch(part)
        if not m:
            raise UsageError(f"must be sizes like 4K,64K,1M, got {echo(part)}", field="--sizes")
        out.append(int(m.group(1)) * _SCALE[m.group(2).upper()])
    return tuple(out)


def plan_of(args: argparse.Namespace) -> Any:
    """The `Plan` every node runs, from the flags."""
    from advisor.evidence.bench.collective import DEFAULT_SIZES, FRAMEWORKS, Plan

    frameworks = [v.strip() for item in args.framework for v in item.split(",") if v.strip()] or ["pytorch"]
    if len(frameworks) != 1 or frameworks[0] not in FRAMEWORKS:
        raise UsageError(f"--allreduce takes one of {', '.join(FRAMEWORKS)}", field="--framework")
    for flag, value in (("--iters", args.iters), ("--samples", args.samples), ("--nproc-per-node",
                                                                               args.nproc_per_node)):
        if not 1 <= value <= 1_000_000:
            raise UsageError(f"must be 1 to 1000000, got {value}", field=flag)
    if not 0 < args.node_timeout <= 86400:
        raise UsageError(f"must be more than 0 and at most 86400, got {args.node_timeout:g}", field="--node-timeout")
    return Plan(framework=frameworks[0], sizes=parse_sizes(args.sizes) if args.sizes else DEFAULT_SIZES,
                iters=args.iters, samples=args.samples, devices=tuple(args.device or ("cpu", "gpu")),
                timeout_s=args.node_timeout, op_timeout_s=min(60.0, args.node_timeout / 2))


def run(args: argparse.Namespace) -> int:
    """Run this node's share (or every simulated node), print the table or the JSON; 1 when a rank failed."""
    from advisor.cli.output import console, emit_text, write_file
    from advisor.cli.signals import run_cancellable
    from advisor.evidence.bench.collective import Leader, run_allreduce, run_loopback
    from advisor.evidence.bench.collective_model import RunOutcome
    from advisor.jsonio import json_text, model_json
    from advisor.privacy import scrub

    plan = plan_of(args)
    hide: tuple[str, ...] = ()
    if args.loopback is not None:
        if not 1 <= args.loopback <= 64:
            raise UsageError(f"must be 1 to 64, got {args.loopback}", field="--loopback")

        def work(cancel: Any) -> Any:
            return run_loopback(args.loopback, plan=plan, nproc_per_node=args.nproc_per_node,
                                intra=not args.no_intra, cancel=cancel)
    else:
        if not args.leader:
            raise UsageError("give --leader HOST:PORT (node 0's address) or --loopback N", field="--leader")
        leader = Leader.parse(args.leader)
        hide = (leader.host.strip("[]"),)
        nnodes = int(args.nnodes) if args.nnodes and args.nnodes.isdigit() else None
        if nnodes is None:
            raise UsageError("--allreduce needs a fixed node count N", field="--nnodes")

        def work(cancel: Any) -> Any:
            return run_allreduce(nnodes, args.node_rank or 0, leader, plan=plan, nproc_per_node=args.nproc_per_node,
                                 intra=not args.no_intra, cancel=cancel)

    # As in `bench`: the signal handlers end every child in the main thread; the cancel event stops the rest.
    report = run_cancellable(work, name="fwadvisor-allreduce")
    # As bench's JSON: no home folder, user or host name, and the leader's name hidden (ranks' errors quote it).
    text = json_text(scrub(model_json(report), drop_keys=False, hide=hide))
    if args.save:
        write_file(args.save, text, what="all-reduce JSON", rescue="allreduce")
    if args.json:
        emit_text(text)
    else:
        console().print(render(report))
    runs = [r for r in (report.intra, report.inter) if r is not None]
    return 1 if any(r.outcome not in (RunOutcome.OK, RunOutcome.SKIPPED) for r in runs) else 0


def render(report: Any) -> Any:
    """A table per size (time and bus bandwidth, intra beside inter) and a line per run that did not finish."""
    from rich.console import Group
    from rich.table import Table

    from advisor.cli.bench_tables import fmt
    from advisor.cli.output import styled  # errors come from children: printed as written, never as markup

    def run_title(run: Any) -> str:
        if run is None:
            return "not run"
        return f"{run.nnodes} node(s) x {run.nproc_per_node}, {run.backend or run.framework}, {run.outcome.value}"

    table = Table(title=f"All-reduce, {report.framework}: intra-node ({run_title(report.intra)}) beside "
                        f"inter-node ({run_title(report.inter)})")
    for name in ("size", "intra us", "intra busbw GB/s", "inter us", "inter busbw GB/s", "inter/intra"):
        table.add_column(name, justify="right")
    flagged = False

    def mark(run: Any, nbytes: int, value: Any) -> str:
        nonlocal flagged
        row = run.row(nbytes) if run is not None else None
        flagged = flagged or bool(row and row.warnings)
        return fmt(value) + (" !" if row and row.warnings else "")

    for row in report.side_by_side:
        n = row.bytes
        table.add_row(_size(n), mark(report.intra, n, row.intra_time_us), fmt(row.intra_busbw_GBps),
                      mark(report.inter, n, row.inter_time_us), fmt(row.inter_busbw_GBps),
                      fmt(row.inter_over_intra_busbw))
    lines: list[Any] = [table]
    if flagged:
        lines.append(styled(("! the samples spread widely, too few were taken or a result was wrong (see the "
                             "JSON's warnings)", "yellow")))
    load = report.environment.get("loadavg_start")
    if load:
        lines.append(styled((f"load average at the start: {load[0]:g} on {report.environment.get('cores')} cores",
                             "dim")))
    for run in (report.intra, report.inter):
        if run is None:
            continue
        if run.error:
            lines.append(styled((f"{run.scope.value}: {run.outcome.value}: {run.error}", "red")))
        for rank in run.failed_ranks:
            where = "" if rank.node is None else f" on node {rank.node}"
            lines.append(styled((f"  rank {rank.rank}{where}: {rank.state.value}"
                                 + (f": {rank.error}" if rank.error else ""), "red")))
    return Group(*lines)


def _size(nbytes: int) -> str:
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale}{unit}"
    return str(nbytes)
