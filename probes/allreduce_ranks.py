"""What every rank of the cross-node all-reduce does and says, whatever the framework (standard library only).

The framework scripts (`allreduce_nodes_torch`, `allreduce_jax`) time all-reduce per message size the way
nccl-tests does: a few warm-up calls, then samples of `--iters` calls each, the per-call time of a sample
being the block's time divided by `--iters`. Each sample's time is the slowest rank's (so a figure is what
every rank waited for). The figures (algorithm and bus bandwidth) are computed by the parent from these
times: one definition, in `advisor.evidence.bench.collective_model`.

Every rank says `rank_start` (after joining), `rank_end` (after leaving) or `rank_error` (a collective
raised: usually a peer that died), so the parent of each node can name a rank that died or hung: one that
began and said neither. One rank sends the per-size samples: the first local rank of the node
whose launcher the parent marked `FWADVISOR_REPORTING_NODE=1` (the leader), since torchrun's c10d rendezvous
numbers ranks in its own order; every rank holds the same slowest-rank samples, so any one can.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from probes._proto import emit


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options every framework script takes."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", default="4096", help="message sizes in bytes, comma-separated (float32 elements)")
    p.add_argument("--iters", type=int, default=20, help="calls per timed sample")
    p.add_argument("--samples", type=int, default=5, help="timed samples per size")
    p.add_argument("--warmup", type=int, default=2, help="untimed calls per size first")
    p.add_argument("--device", default="cpu,gpu", help="device kinds to use, in order of preference")
    p.add_argument("--op-timeout", type=float, default=60.0, help="seconds a collective may block (a lost peer)")
    p.add_argument("--join-timeout", type=float, default=300.0, help="seconds to wait for every process to join")
    p.add_argument("--forked", action="store_true",
                   help="forked by torchrun's agent (--start-method=fork --run-path): return, do not exit")
    # JAX only (torchrun passes these through its environment instead).
    p.add_argument("--coordinator", default="", help="JAX coordinator HOST:PORT (process 0 serves it)")
    p.add_argument("--num-processes", type=int, default=1)
    p.add_argument("--process-id", type=int, default=0)
    p.add_argument("--local-devices", type=int, default=1, help="JAX host-platform devices in this process")
    a = p.parse_args(argv)
    a.size_list = [max(4, int(s)) // 4 * 4 for s in str(a.sizes).split(",") if s.strip()]
    return a


def as_fresh_process() -> None:
    """A rank forked from torchrun's agent: drop the agent's signal handlers, which turn SIGTERM into an exception
    (a hung rank that its agent ends would then report an error of its own instead of being reported lost)."""
    import signal

    for name in ("SIGTERM", "SIGHUP", "SIGQUIT"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def own_stdout() -> None:
    """Keep file descriptor 1 for the events alone: C++ libraries print there too (gloo's peer-connection lines)."""
    from probes import _proto

    events = os.dup(1)
    os.dup2(2, 1)
    _proto._OUT = os.fdopen(events, "w", buffering=1, encoding="utf-8")


def reporting_node() -> bool:
    """Whether this rank's launcher is the one the parent asked to report the samples (the leader's)."""
    return os.environ.get("FWADVISOR_REPORTING_NODE") == "1"


def fault(rank: int) -> str:
    """A test's fault for this rank (`FWADVISOR_COLLECTIVE_FAULT=hang@1` or `exit@1`); "" for none."""
    spec = os.environ.get("FWADVISOR_COLLECTIVE_FAULT", "")
    kind, _, who = spec.partition("@")
    return kind if who.strip() == str(rank) else ""


def run_sizes(
    args: argparse.Namespace,
    *,
    rank: int,
    world: int,
    allreduce: Callable[[int], Callable[[], Any]],
    check: Callable[[int], int],
    slowest: Callable[[list[float]], list[float]],
    barrier: Callable[[], None],
    reporter: bool,
) -> None:
    """Time every size: `allreduce(n)` gives a synchronised call on n float32 elements; `reporter` emits the samples.

    `check(n)` runs one all-reduce of rank+1 and returns the number of wrong elements (nccl-tests' "#wrong");
    `slowest(times)` is the element-wise maximum of every rank's sample times.
    """
    for nbytes in args.size_list:
        n = nbytes // 4
        wrong = check(n)
        call = allreduce(n)
        for _ in range(max(args.warmup, 0)):
            call()
        if fault(rank) == "hang":
            time.sleep(3600)  # a rank stuck in a driver call: the others block in the next collective
        if fault(rank) == "exit":
            os._exit(3)
        times: list[float] = []
        for _ in range(max(args.samples, 1)):
            barrier()
            t0 = time.perf_counter()
            for _ in range(max(args.iters, 1)):
                call()
            times.append((time.perf_counter() - t0) / max(args.iters, 1))
        times = slowest(times)
        if reporter:
            emit("allreduce_size", bytes=nbytes, elements=n, dtype="float32", world_size=world,
                 iters=args.iters, warmup=args.warmup, times_s=[float(f"{t:.6g}") for t in times], wrong=wrong)
