"""Cross-node all-reduce through torch.distributed: the worker torchrun starts once per rank on every node.

Launched by the parent on each node as `python -m torch.distributed.run --nnodes N --nproc-per-node M
--rdzv-backend c10d --rdzv-endpoint LEADER:PORT -m probes.allreduce_nodes_torch --sizes ...` (or with
`--standalone` for the single-node figure). gloo on CPU, NCCL where a GPU is present; the timing loop and
the events are `probes.allreduce_ranks`'. On a node without a GPU the ranks are forked from torchrun's agent,
which has imported torch already (`--start-method=fork --run-path <abs path of this file> ... --forked`).
"""

from __future__ import annotations

import datetime
import os
import time

from probes import allreduce_ranks as R
from probes._proto import done, emit, exit_now, quiet_stdout


def main() -> None:
    """Join the process group, time all_reduce per size, say how this rank ended."""
    args = R.parse_args()
    if args.forked:
        R.as_fresh_process()
    R.own_stdout()
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    node = int(os.environ.get("GROUP_RANK", "0"))
    start = time.perf_counter()
    with quiet_stdout():
        import torch
        import torch.distributed as dist
    reporter = local_rank == 0 and R.reporting_node()
    if local_rank == 0:
        emit("import", ok=True, module="torch", seconds=round(time.perf_counter() - start, 4))
    kinds = [d for d in args.device.split(",") if d]
    # NCCL needs a GPU per rank of a node ("duplicate GPU" otherwise): with fewer, the node measures gloo on CPU,
    # and its env event says so.
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    use_gpu = "gpu" in kinds and torch.cuda.is_available() and local_world <= torch.cuda.device_count()
    if use_gpu:
        torch.cuda.set_device(local_rank % torch.cuda.device_count())
        device, backend = torch.device("cuda", torch.cuda.current_device()), "nccl"
    else:
        device, backend = torch.device("cpu"), "gloo"
    torch.set_num_threads(1)
    dist.init_process_group(backend=backend, timeout=datetime.timedelta(seconds=args.op_timeout))
    emit("rank_start", rank=rank, local_rank=local_rank, node=node, pid=os.getpid(), world_size=world)
    if local_rank == 0:  # every node says what it ran (a node with fewer GPUs than ranks falls back to gloo)
        emit("env", framework="pytorch", version=torch.__version__, backend=backend,
             device="gpu" if use_gpu else "cpu", device_name=str(torch.cuda.get_device_name()) if use_gpu else "cpu",
             nnodes=int(os.environ.get("GROUP_WORLD_SIZE", "1")), world_size=world,
             nproc_per_node=int(os.environ.get("LOCAL_WORLD_SIZE", "1")))

    def sync() -> None:
        if use_gpu:
            torch.cuda.synchronize()

    def allreduce(n: int):  # noqa: ANN202 - a closure over the buffer
        buf = torch.ones(n, dtype=torch.float32, device=device)

        def call() -> None:
            dist.all_reduce(buf)
            sync()
            buf.fill_(1.0)  # keeps the values finite over thousands of calls; cheap beside the transfer

        return call

    def check(n: int) -> int:
        buf = torch.full((n,), float(rank + 1), dtype=torch.float32, device=device)
        dist.all_reduce(buf)
        return int((buf != world * (world + 1) / 2).sum().item())

    def slowest(times: list[float]) -> list[float]:
        t = torch.tensor(times, dtype=torch.float64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return [float(v) for v in t.cpu().tolist()]

    try:
        R.run_sizes(args, rank=rank, world=world, allreduce=allreduce, check=check, slowest=slowest,
                    barrier=dist.barrier, reporter=reporter)
        dist.barrier()
    except Exception as exc:  # noqa: BLE001 - a lost peer surfaces here; it is this rank's result
        emit("rank_error", rank=rank, error=f"{type(exc).__name__}: {exc}"[:500])
        exit_now(1)
    dist.destroy_process_group()
    emit("rank_end", rank=rank)
    if local_rank == 0:  # one "done" per node, so every node's launcher reports a finished run
        done(rank=rank, world_size=world)
    if not args.forked:  # a forked rank returns: its agent waits for the return value, not the exit
        exit_now(0)


if __name__ == "__main__":
    main()
