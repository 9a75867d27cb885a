"""JAX benchmarks, written the way JAX users write them (pure functions, `jax.jit`, `jax.grad`) (child process).

Run as `python -m probes.bench_jax --preset quick`. Every timed block ends with
`block_until_ready` (JAX dispatches asynchronously). The all-reduce runs `jax.lax.psum` under
`jax.shard_map` over the devices of one kind; on CPU the parent starts this script with
`--xla_force_host_platform_device_count=N` in XLA_FLAGS to get N host devices.
"""

from __future__ import annotations

import os
import platform
from typing import Any

import numpy as np

from probes import _bench as B
from probes._proto import done, emit, timed_import


def _jax() -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    return jax, jnp


def _ready(r: Any) -> Any:
    """Wait for every array in a result pytree (JAX returns before the device is done)."""
    jax, _ = _jax()
    return jax.block_until_ready(r)


def _each(fn: Any, ctx: B.Context) -> tuple[Any, Any]:
    """(call, sync) for B.measure that waits for *every* output of a block, not only the last one.

    Independent computations dispatched asynchronously may run concurrently, so the last result
    being ready does not prove the earlier ones are; keeping them all and waiting on the list does.
    On the CPU each call waits for its own result instead: NumPy, PyTorch and TensorFlow's eager ops
    finish before they return there, and letting several JAX matmuls run at once on the same cores
    made them compete for the threads (1024 fp32 GEMM, 2 cores: 260-300 GFLOP/s and noisy, against
    310-320 call by call).
    """
    if _sync_mode(ctx) == "each call":
        return (lambda: _ready(fn())), None
    pending: list[Any] = []

    def call() -> Any:
        pending.append(fn())
        return pending

    def sync(_r: Any) -> None:
        _ready(pending)
        pending.clear()

    return call, sync


def _sync_mode(ctx: B.Context) -> str:
    """How `_each` waits (and the result's params say so): each call on the CPU, else each block's outputs."""
    return "each call" if ctx.device == "cpu" else "each block, all outputs"


def _put(ctx: B.Context, a: Any) -> Any:
    jax, _ = _jax()
    return jax.device_put(a, ctx.handle)


def bench_gemm(ctx: B.Context) -> None:
    """Square `a @ b` through a jitted jnp.matmul, fp32 and the low precisions the device has."""
    jax, jnp = _jax()
    sizes, low_sizes = ctx.gemm_sizes()
    cases = [("fp32", jnp.float32, n) for n in sizes]
    low = ["bf16"] + (["fp16"] if ctx.device != "cpu" else [])
    for name in low:
        cases += [(name, {"bf16": jnp.bfloat16, "fp16": jnp.float16}[name], n)
                  for n in low_sizes]
    mm = jax.jit(jnp.matmul)
    for dtype_name, dtype, n in cases:
        if ctx.done_with(f"gemm:{dtype_name}-{n}"):  # nor compile it again
            continue
        a, b = (_put(ctx, x).astype(dtype) for x in B.gemm_operands(n))
        _ready(mm(a, b))  # compile outside the timed region
        call, sync = _each(lambda a=a, b=b: mm(a, b), ctx)
        stats = ctx.measure_case(f"gemm:{dtype_name}-{n}", call, sync=sync)  # the preset budget is per case
        if stats is not None:
            ctx.emit_result(B.gemm_result(n, dtype_name, stats, params={"jit": True, "sync": _sync_mode(ctx)}))


def bench_elementwise(ctx: B.Context) -> None:
    """`a * x + y` under jax.jit (XLA fuses it into one pass and allocates the result)."""
    jax, jnp = _jax()
    n = ctx.preset.elementwise_n
    x = _put(ctx, np.ones(n, dtype=np.float32))
    y = _put(ctx, np.ones(n, dtype=np.float32))
    axpy = jax.jit(lambda a, x, y: a * x + y)
    a = jnp.float32(1.5)
    _ready(axpy(a, x, y))
    call, sync = _each(lambda: axpy(a, x, y), ctx)
    stats = B.measure(call, sync=sync, budget_s=ctx.budget_s)
    ctx.emit_result(B.elementwise_result(n, 4, stats, params={"form": "jax.jit(a * x + y)", "passes": 1}))


def bench_dispatch(ctx: B.Context) -> None:
    """A one-element jnp.add, op by op (eager): JAX's per-op dispatch cost."""
    _, jnp = _jax()
    x = _put(ctx, np.ones(1, dtype=np.float32))
    y = _put(ctx, np.ones(1, dtype=np.float32))
    call, sync = _each(lambda: jnp.add(x, y), ctx)
    stats = B.measure(call, sync=sync, budget_s=ctx.budget_s)
    ctx.emit_result(B.result("dispatch", "eager", stats, value=stats.median_s * 1e6, unit="us/op",
                             metric="latency", higher_is_better=False, params={"op": "add", "elements": 1}))


def bench_conv(ctx: B.Context) -> None:
    """Jitted 3x3 conv (same padding) + ReLU forward, NHWC (XLA's preferred CPU layout)."""
    jax, jnp = _jax()
    p = ctx.preset
    rng = np.random.default_rng(0)
    x = _put(ctx, rng.standard_normal((p.conv_batch, p.conv_hw, p.conv_hw, p.conv_channels), dtype=np.float32))
    w = _put(ctx, rng.standard_normal((3, 3, p.conv_channels, p.conv_channels), dtype=np.float32) * 0.05)

    @jax.jit
    def fwd(x: Any, w: Any) -> Any:
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(y)

    _ready(fwd(x, w))
    call, sync = _each(lambda: fwd(x, w), ctx)
    stats = B.measure(call, sync=sync, budget_s=ctx.budget_s)
    ctx.emit_result(B.conv_result(p, stats, params={"layout": "NHWC", "jit": True}))


def _dense(key: Any, d_in: int, d_out: int) -> dict[str, Any]:
    jax, jnp = _jax()
    w = jax.random.normal(key, (d_in, d_out), jnp.float32) / np.sqrt(d_in)
    return {"w": w, "b": jnp.zeros((d_out,), jnp.float32)}


def _mlp_params(ctx: B.Context) -> tuple[list[dict[str, Any]], Any, Any]:
    jax, _ = _jax()
    batch, d_in, hidden, d_out = ctx.preset.mlp
    k = jax.random.split(jax.random.PRNGKey(0), 5)
    params = [_dense(k[0], d_in, hidden), _dense(k[1], hidden, hidden), _dense(k[2], hidden, d_out)]
    x = jax.random.normal(k[3], (batch, d_in))
    y = jax.random.normal(k[4], (batch, d_out))
    return _put(ctx, params), _put(ctx, x), _put(ctx, y)


def _mlp_apply(params: list[dict[str, Any]], x: Any) -> Any:
    jax, _ = _jax()
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def _layer_norm(x: Any, g: Any, b: Any) -> Any:
    _, jnp = _jax()
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5) * g + b


def _block_params(ctx: B.Context) -> dict[str, Any]:
    jax, jnp = _jax()
    _b, _s, d, _h = ctx.preset.transformer
    k = jax.random.split(jax.random.PRNGKey(0), 6)
    p = {name: _dense(key, d, d) for name, key in zip(("q", "k", "v", "o"), k[:4], strict=True)}
    p["ff1"], p["ff2"] = _dense(k[4], d, 4 * d), _dense(k[5], 4 * d, d)
    for ln in ("ln1", "ln2"):
        p[ln] = {"g": jnp.ones((d,), jnp.float32), "b": jnp.zeros((d,), jnp.float32)}
    return _put(ctx, p)


def _block_apply(p: dict[str, Any], x: Any, heads: int) -> Any:
    """Pre-LN transformer encoder block (the same maths as torch's TransformerEncoderLayer, norm_first)."""
    jax, jnp = _jax()
    b, s, d = x.shape
    h = _layer_norm(x, p["ln1"]["g"], p["ln1"]["b"])

    def proj(name: str) -> Any:
        return (h @ p[name]["w"] + p[name]["b"]).reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)

    q, k, v = proj("q"), proj("k"), proj("v")
    att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(d // heads), axis=-1)
    o = (att @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
    x = x + o @ p["o"]["w"] + p["o"]["b"]
    h = _layer_norm(x, p["ln2"]["g"], p["ln2"]["b"])
    return x + jax.nn.relu(h @ p["ff1"]["w"] + p["ff1"]["b"]) @ p["ff2"]["w"] + p["ff2"]["b"]


def _train(ctx: B.Context, benchmark: str, params: Any, apply: Any, x: Any, y: Any, meta: dict) -> None:
    """Eager (op-by-op) and jax.jit training steps: MSE loss, jax.grad, SGD by tree_map."""
    jax, jnp = _jax()
    lr = 1e-3

    def step(params: Any, x: Any, y: Any) -> tuple[Any, Any]:
        loss, grads = jax.value_and_grad(lambda p: jnp.mean((apply(p, x) - y) ** 2))(params)
        return jax.tree.map(lambda w, g: w - lr * g, params, grads), loss

    eager_median = None
    # Op-by-op JAX compiles every primitive on first use: affordable in the standard preset, not in quick.
    variants = ("eager", "compiled") if ctx.preset.full_variants or ctx.device != "cpu" else ("compiled",)
    for variant in variants:
        fn = jax.jit(step) if variant == "compiled" else step
        state = {"p": params}

        def call(fn: Any = fn, state: dict = state) -> Any:
            state["p"], loss = fn(state["p"], x, y)
            return loss

        compile_s = B.time_first_call(call, _ready) if variant == "compiled" else None
        stats = B.measure(call, sync=_ready, budget_s=ctx.budget_s / len(variants))
        extra = {**meta, "optimizer": "SGD (tree_map)"}
        if variant == "compiled" and eager_median:
            extra["speedup_vs_eager"] = eager_median / stats.median_s
        if variant == "eager":
            eager_median = stats.median_s
            extra["note"] = "op-by-op dispatch without jax.jit"
        ctx.emit_result(B.step_result(benchmark, variant, stats, compile_s=compile_s, params=extra))
    if "eager" not in variants:
        ctx.skip(benchmark + ":eager", "op-by-op JAX compiles every primitive first; the standard preset includes it")


def bench_train_mlp(ctx: B.Context) -> None:
    """Training step of a 3-layer MLP."""
    params, x, y = _mlp_params(ctx)
    batch, d_in, hidden, d_out = ctx.preset.mlp
    _train(ctx, "train_mlp", params, _mlp_apply, x, y, {"batch": batch, "sizes": [d_in, hidden, hidden, d_out]})


def bench_train_transformer(ctx: B.Context) -> None:
    """Training step of one pre-LN transformer block."""
    jax, _ = _jax()
    batch, seq, d, heads = ctx.preset.transformer
    k1, k2 = jax.random.split(jax.random.PRNGKey(1))
    x = _put(ctx, jax.random.normal(k1, (batch, seq, d)))
    y = _put(ctx, jax.random.normal(k2, (batch, seq, d)))
    _train(ctx, "train_transformer", _block_params(ctx), lambda p, x: _block_apply(p, x, heads), x, y,
           {"batch": batch, "seq": seq, "d_model": d, "heads": heads})


def bench_infer_latency(ctx: B.Context) -> None:
    """Batch-1 forward of the block, each call timed alone: p50/p90/p99, eager and jitted."""
    jax, _ = _jax()
    _b, seq, d, heads = ctx.preset.transformer
    p = _block_params(ctx)
    x = _put(ctx, jax.random.normal(jax.random.PRNGKey(2), (1, seq, d)))
    meta = {"batch": 1, "seq": seq, "d_model": d, "heads": heads}
    for variant in ("eager", "compiled"):
        fwd = jax.jit(_block_apply, static_argnums=2) if variant == "compiled" else _block_apply
        compile_s = B.time_first_call(lambda fwd=fwd: fwd(p, x, heads), _ready) if variant == "compiled" else None
        times = B.measure_latencies(lambda fwd=fwd: fwd(p, x, heads), sync=_ready, budget_s=ctx.budget_s / 2,
                                    min_calls=ctx.preset.latency_calls)
        ctx.emit_result(B.latency_result(variant, times, meta, compile_s=compile_s))


def bench_transfer(ctx: B.Context) -> None:
    """jax.device_put host-to-device and np.asarray device-to-host (accelerators only)."""
    jax, _ = _jax()
    if ctx.device == "cpu":
        ctx.skip("transfer", "no accelerator: host and device memory are the same")
        return
    nbytes = ctx.preset.transfer_bytes
    host = np.ones(nbytes // 4, dtype=np.float32)
    on_dev = _ready(jax.device_put(host, ctx.handle))
    for variant, fn, sync in (("h2d", lambda: jax.device_put(host, ctx.handle), _ready),
                              ("d2h", lambda: np.asarray(on_dev + 0), None)):
        stats = B.measure(fn, sync=sync, budget_s=ctx.budget_s / 2)
        ctx.emit_result(B.result("transfer", variant, stats, value=B.rate(nbytes, stats.median_s) / 1e9,
                                 unit="GB/s", params={"bytes": nbytes, "note": "d2h includes a tiny device add"
                                                      if variant == "d2h" else "device_put"}))


def bench_allreduce(ctx: B.Context) -> None:
    """jax.lax.psum under jax.shard_map across every device of this kind (bus bandwidth, nccl-tests style)."""
    jax, jnp = _jax()
    devs = ctx.extra["by_kind"].get(ctx.device, [])
    k = len(devs)
    if k < 2:
        ctx.skip("allreduce", f"only {k} {ctx.device} device(s); on CPU the engine runs this with "
                              "--xla_force_host_platform_device_count")
        return
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(devs), ("d",))
    spec = PartitionSpec("d")
    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:  # JAX < 0.6 kept it in experimental
        from jax.experimental.shard_map import shard_map
    sizes = ctx.preset.allreduce_sizes
    for n in sizes:
        x = jax.device_put(jnp.ones((k * n,), jnp.float32), NamedSharding(mesh, spec))
        f = jax.jit(shard_map(lambda s: jax.lax.psum(s, "d"), mesh=mesh, in_specs=spec, out_specs=spec))
        _ready(f(x))
        # One collective in flight at a time: queuing many asynchronously can deadlock XLA's CPU
        # rendezvous when the host devices outnumber the cores (seen here with 2 devices on 2 cores).
        stats = B.measure(lambda f=f, x=x: _ready(f(x)), budget_s=ctx.budget_s / len(sizes))
        nbytes = n * 4
        algbw = B.rate(nbytes, stats.median_s) / 1e9
        busbw = algbw * 2 * (k - 1) / k
        ctx.emit_result(B.result("allreduce", f"psum-{nbytes >> 10}KiB", stats, value=busbw, unit="GB/s",
                                 params={"bytes": nbytes, "devices": k, "algbw_GBps": algbw, "busbw_GBps": busbw,
                                         "api": "jax.shard_map + lax.psum",
                                         "XLA_FLAGS": os.environ.get("XLA_FLAGS", "")}))


def bench_agreement(ctx: B.Context) -> None:
    """The agreement MLP step with jax.value_and_grad in float32 at full matmul precision."""
    jax, jnp = _jax()
    d = {k: _put(ctx, v) for k, v in B.agreement_data().items()}
    params = {k: d[k] for k in B.AGREEMENT_PARAMS}

    def loss_fn(p: dict[str, Any]) -> Any:
        h = jnp.tanh(d["x"] @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] + p["b2"] - d["y"]) ** 2)

    with jax.default_matmul_precision("highest"):
        loss, grads = jax.value_and_grad(loss_fn)(params)
    updated = jax.tree.map(lambda w, g: w - B.AGREEMENT_LR * g, params, grads)
    emit("agreement", device=ctx.device, dtype="float32",
         **B.agreement_payload(float(loss), {k: np.asarray(v) for k, v in grads.items()},
                               {k: np.asarray(v) for k, v in updated.items()}))


_KIND = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu", "rocm": "gpu", "tpu": "tpu"}


def main() -> None:
    """Import JAX, report threads and devices, run the suite on the first device of each kind."""
    args = B.parse_args()
    imported = timed_import("jax")
    if imported is None:
        done(ok=False)
        return
    jax, _ = imported
    jax.config.update("jax_default_matmul_precision", "highest")  # fp32 means fp32 (no TF32 on GPUs)
    by_kind: dict[str, list[Any]] = {}
    for backend in ("cpu", "gpu", "tpu"):
        try:
            found = jax.devices(backend)
        except RuntimeError:
            continue
        for dev in found:
            by_kind.setdefault(_KIND.get(dev.platform, dev.platform), []).append(dev)
    devs = [(kind, getattr(ds[0], "device_kind", kind), ds[0]) for kind, ds in by_kind.items()]
    threads = args.threads or B.usable_cores()
    emit("env", framework="jax", version=jax.__version__, python=platform.python_version(),
         threads={"intra_op": B.usable_cores(), "note": "XLA's CPU runtime uses every usable core; "
                  "it has no public per-process thread setting", "XLA_FLAGS": os.environ.get("XLA_FLAGS", "")},
         build={"jaxlib": getattr(__import__("jaxlib"), "__version__", None), "backend": jax.default_backend(),
                "fp32_matmul_and_conv": "fp32 (default_matmul_precision highest)"},
         devices=[{"kind": k, "name": n, "count": len(by_kind[k])} for k, n, _ in devs])
    benches = {
        "gemm": bench_gemm, "elementwise": bench_elementwise, "dispatch": bench_dispatch, "conv": bench_conv,
        "train_mlp": bench_train_mlp, "train_transformer": bench_train_transformer,
        "infer_latency": bench_infer_latency, "transfer": bench_transfer, "allreduce": bench_allreduce,
        "agreement": bench_agreement,
    }
    B.run_suite(benches, devs, args, threads=threads, extra={"by_kind": by_kind})
    done()


if __name__ == "__main__":
    main()
