"""All-reduce bandwidth through torch.distributed: the worker that torchrun starts once per rank.

Launched by the parent as `python -m torch.distributed.run --standalone --nproc-per-node=N -m
probes.allreduce_torch --preset quick` (or with torchrun's rendezvous options for several nodes).
gloo on CPU, NCCL on GPU. Every rank runs the same calls; rank 0 decides when to stop sampling
(broadcast, outside the timed region) and is the only rank that prints results; the first
rank of every node prints the closing "done" so each node's launcher sees a finished run.
"""

from __future__ import annotations

import os
import time
from typing import Any

from probes import _bench as B
from probes._proto import done, emit, quiet_stdout


def main() -> None:
    """Join the process group, time all_reduce at each preset size, report algorithm and bus bandwidth."""
    args = B.parse_args()
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    say = emit if rank == 0 else (lambda *_a, **_k: None)
    start = time.perf_counter()
    with quiet_stdout():
        import torch
        import torch.distributed as dist
    say("import", ok=True, module="torch", seconds=round(time.perf_counter() - start, 4))
    kinds = [d for d in args.device.split(",") if d] or ["cpu", "gpu"]
    use_gpu = "gpu" in kinds and torch.cuda.is_available()
    if use_gpu:
        torch.cuda.set_device(local_rank % torch.cuda.device_count())
        device, backend, kind = torch.device("cuda", torch.cuda.current_device()), "nccl", "gpu"
    else:
        device, backend, kind = torch.device("cpu"), "gloo", "cpu"
    torch.set_num_threads(1)
    dist.init_process_group(backend=backend)
    preset = B.PRESETS[args.preset]
    budget = args.budget if args.budget is not None else preset.budget_s
    name = "allreduce"
    if f"{name}@{kind}" in {s for s in args.skip.split(",") if s}:
        dist.destroy_process_group()
        if local_rank == 0:
            done(rank=rank, world_size=world)
        return
    say("bench_start", benchmark=name, device=kind)
    if world < 2:
        say("skip", benchmark=name, device=kind, reason="only one process: nothing to reduce across")
    flag = torch.zeros(1, dtype=torch.int32)  # rank 0's "stop sampling" decision, broadcast over gloo/NCCL

    def sync() -> None:
        if use_gpu:
            torch.cuda.synchronize()

    for n in preset.allreduce_sizes if world >= 2 else ():
        buf = torch.ones(n, dtype=torch.float32, device=device)
        for _ in range(2):  # warm-up: connection set-up and buffers
            dist.all_reduce(buf)
        sync()
        dist.barrier()
        # Block size: enough calls that a block lasts >= 10 ms on rank 0, agreed by all ranks.
        t0 = time.perf_counter()
        dist.all_reduce(buf)
        sync()
        one = time.perf_counter() - t0
        number = torch.tensor([max(1, int(B.MIN_BLOCK_S / max(one, 1e-7)) + 1)], dtype=torch.int64)
        dist.broadcast(number.to(device) if use_gpu else number, src=0)
        number_i = int(number.item())
        times: list[float] = []
        spent = 0.0
        while True:
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(number_i):
                dist.all_reduce(buf)
            sync()
            dt = time.perf_counter() - t0
            times.append(dt / number_i)
            spent += dt
            stop = 0
            if rank == 0:
                stats = B.summarize(times, number=number_i)
                enough = len(times) >= B.MIN_SAMPLES and stats.rel_iqr <= B.TARGET_REL_IQR
                stop = int(enough or (spent >= budget / len(preset.allreduce_sizes) and len(times) >= 2)
                           or len(times) >= 200)
            flag.fill_(stop)
            f = flag.to(device) if use_gpu else flag
            dist.broadcast(f, src=0)
            if int(f.item()):
                break
        if rank == 0:
            stats = B.summarize(times, number=number_i)
            nbytes = n * 4
            algbw = B.rate(nbytes, stats.median_s) / 1e9
            # Bus bandwidth as nccl-tests defines it for all-reduce: algbw * 2(n-1)/n.
            busbw = algbw * 2 * (world - 1) / world
            fields: dict[str, Any] = B.result(
                name, f"{backend}-{nbytes >> 10}KiB", stats, value=busbw, unit="GB/s",
                params={"bytes": nbytes, "world_size": world, "backend": backend, "algbw_GBps": algbw,
                        "busbw_GBps": busbw, "nnodes": int(os.environ.get("GROUP_WORLD_SIZE", "1")),
                        "launcher": "torch.distributed.run", "torch": torch.__version__,
                        "threads_per_rank": torch.get_num_threads()},
            )
            emit("result", device=kind, device_name=str(device), **fields)
        del buf
    say("bench_end", benchmark=name, device=kind)
    dist.barrier()
    dist.destroy_process_group()
    if local_rank == 0:  # one "done" per node, so every node's launcher reports a finished run
        done(rank=rank, world_size=world)


if __name__ == "__main__":
    main()
