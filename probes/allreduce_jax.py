"""Cross-process all-reduce through JAX: one process per rank, joined by `jax.distributed.initialize`.

Started by the parent once per process as `python -m probes.allreduce_jax --coordinator LEADER:PORT
--num-processes N --process-id I --sizes ...`; process 0 serves the coordinator. On CPU the processes
exchange through JAX's CPU collectives, chosen by `jax_cpu_collectives_implementation` (set to "gloo" here
before JAX starts its backend: the default in jax 0.10, absent in older releases). The all-reduce is a
`psum` inside `shard_map` over a one-axis mesh of every process's devices; timing and events are
`probes.allreduce_ranks`'.
"""

from __future__ import annotations

import os
import time

from probes import allreduce_ranks as R
from probes._proto import done, emit, exit_now, quiet_stdout


def main() -> None:
    """Join the JAX cluster, time psum per size, say how this process ended."""
    args = R.parse_args()
    R.own_stdout()
    rank, world = args.process_id, args.num_processes
    start = time.perf_counter()
    with quiet_stdout():
        import jax
        import numpy as np
        from jax.experimental import multihost_utils
        from jax.sharding import Mesh, NamedSharding
        from jax.sharding import PartitionSpec as P

        try:
            from jax import shard_map
        except ImportError:  # jax < 0.7 kept it under experimental
            from jax.experimental.shard_map import shard_map  # type: ignore[no-redef]
    emit("import", ok=True, module="jax", seconds=round(time.perf_counter() - start, 4))  # one process per node
    gpu = "gpu" in args.device.split(",") and os.environ.get("JAX_PLATFORMS", "") != "cpu"
    if world > 1:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=world, process_id=rank,
                                   initialization_timeout=int(max(args.join_timeout, 10)))
    devices = jax.devices()
    kind = devices[0].platform
    emit("rank_start", rank=rank, local_rank=0, node=rank, pid=os.getpid(), world_size=len(devices))
    emit("env", framework="jax", version=jax.__version__, backend="gloo" if kind == "cpu" else kind,
         device="cpu" if kind == "cpu" else "gpu" if gpu or kind in ("gpu", "cuda", "rocm") else kind,
         device_name=str(devices[0].device_kind), nnodes=world, world_size=len(devices),
         nproc_per_node=jax.local_device_count())
    mesh = Mesh(np.array(devices), ("x",))
    sharding = NamedSharding(mesh, P("x"))
    psum = jax.jit(shard_map(lambda x: jax.lax.psum(x, "x"), mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    local = jax.local_device_count()
    n_dev = len(devices)

    def array(n: int, value: float):  # noqa: ANN202 - a jax.Array sharded one block of n per device
        data = np.full((local * n,), value, dtype=np.float32)
        return multihost_utils.host_local_array_to_global_array(data, mesh, P("x")) if world > 1 else \
            jax.device_put(data, sharding)

    def allreduce(n: int):  # noqa: ANN202 - a closure over the input array
        x = array(n, 1.0)

        def call() -> None:
            psum(x).block_until_ready()

        return call

    def check(n: int) -> int:
        out = psum(array(n, float(rank + 1)))
        want = sum(p + 1 for p in range(world)) * local
        return int(sum(int((np.asarray(s.data) != want).sum()) for s in out.addressable_shards))

    def slowest(times: list[float]) -> list[float]:
        every = multihost_utils.process_allgather(np.asarray(times, dtype=np.float64))
        return [float(v) for v in np.asarray(every).reshape(-1, len(times)).max(axis=0)]

    try:
        R.run_sizes(args, rank=rank, world=n_dev, allreduce=allreduce, check=check, slowest=slowest,
                    barrier=lambda: multihost_utils.sync_global_devices("allreduce"), reporter=R.reporting_node())
    except Exception as exc:  # noqa: BLE001 - a lost peer surfaces here; it is this rank's result
        emit("rank_error", rank=rank, error=f"{type(exc).__name__}: {exc}"[:500])
        exit_now(1)
    emit("rank_end", rank=rank)
    done(rank=rank, world_size=n_dev)
    # jax.distributed.shutdown() waits for every process at a barrier; a finished run needs no more from it.
    exit_now(0)


if __name__ == "__main__":
    main()
