"""TensorFlow benchmarks in TF 2's own idiom (eager ops, GradientTape, `tf.function(jit_compile=True)`) (child).

Run as `python -m probes.bench_tensorflow --preset quick`. Timed blocks end by fetching a result
to the host (`.numpy()` of one element) or, on GPUs, with `tf.test.experimental.sync_devices`,
so queued device work is counted. Models use low-level TF (variables, GradientTape, a plain
SGD update) rather than Keras, so the child does not pay Keras' import and the maths matches
the other frameworks line for line.
"""

from __future__ import annotations

import platform
from typing import Any

import numpy as np

from probes import _bench as B
from probes._proto import done, emit, timed_import


def _tf() -> Any:
    import tensorflow as tf

    return tf


def _first_tensor(r: Any) -> Any:
    while isinstance(r, (list, tuple)):
        r = r[0]
    if isinstance(r, dict):
        return _first_tensor(next(iter(r.values())))
    return r


def _sync_fn(ctx: B.Context) -> Any:
    """Wait for the device: sync_devices on accelerators, else fetch one element of the result to the host."""
    tf = _tf()
    sync_devices = getattr(getattr(tf.test, "experimental", None), "sync_devices", None)
    if ctx.device != "cpu" and sync_devices is not None:
        return lambda _r: sync_devices()

    def fetch(r: Any) -> Any:
        t = _first_tensor(r)
        return tf.reshape(t, [-1])[:1].numpy() if t is not None else None

    return fetch


def bench_gemm(ctx: B.Context) -> None:
    """Square tf.matmul at each size, fp32 and the low precisions the device has."""
    tf = _tf()
    sizes, low_sizes = ctx.gemm_sizes()
    cases = [("fp32", tf.float32, n) for n in sizes]
    low = ["bf16"] + (["fp16"] if ctx.device != "cpu" else [])
    for name in low:
        cases += [(name, {"bf16": tf.bfloat16, "fp16": tf.float16}[name], n)
                  for n in low_sizes]
    sync = _sync_fn(ctx)
    with tf.device(ctx.handle):
        for dtype_name, dtype, n in cases:
            if ctx.done_with(f"gemm:{dtype_name}-{n}"):
                continue
            a, b = (tf.cast(tf.constant(x), dtype) for x in B.gemm_operands(n))
            stats = ctx.measure_case(f"gemm:{dtype_name}-{n}", lambda a=a, b=b: tf.matmul(a, b), sync=sync)
            if stats is not None:  # the preset budget is per case
                ctx.emit_result(B.gemm_result(n, dtype_name, stats))


def bench_elementwise(ctx: B.Context) -> None:
    """`a * x + y` as eager ops (two kernels and a temporary)."""
    tf = _tf()
    n = ctx.preset.elementwise_n
    with tf.device(ctx.handle):
        x = tf.ones([n], tf.float32)
        y = tf.ones([n], tf.float32)
        a = tf.constant(1.5, tf.float32)
        stats = B.measure(lambda: a * x + y, sync=_sync_fn(ctx), budget_s=ctx.budget_s)
    ctx.emit_result(B.elementwise_result(n, 4, stats, params={"form": "a * x + y"}))


def bench_dispatch(ctx: B.Context) -> None:
    """A one-element tf.add in eager mode: TF's per-op overhead."""
    tf = _tf()
    with tf.device(ctx.handle):
        x = tf.ones([1])
        y = tf.ones([1])
        stats = B.measure(lambda: tf.add(x, y), sync=_sync_fn(ctx), budget_s=ctx.budget_s)
    ctx.emit_result(B.result("dispatch", "eager", stats, value=stats.median_s * 1e6, unit="us/op",
                             metric="latency", higher_is_better=False, params={"op": "add", "elements": 1}))


def bench_conv(ctx: B.Context) -> None:
    """tf.nn.conv2d 3x3 (SAME) + ReLU forward, NHWC, eager."""
    tf = _tf()
    p = ctx.preset
    rng = np.random.default_rng(0)
    with tf.device(ctx.handle):
        x = tf.constant(rng.standard_normal((p.conv_batch, p.conv_hw, p.conv_hw, p.conv_channels), dtype=np.float32))
        w = tf.constant(rng.standard_normal((3, 3, p.conv_channels, p.conv_channels), dtype=np.float32) * 0.05)
        stats = B.measure(lambda: tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")), sync=_sync_fn(ctx),
                          budget_s=ctx.budget_s)
    ctx.emit_result(B.conv_result(p, stats, params={"layout": "NHWC"}))


def _dense(rng: np.random.Generator, d_in: int, d_out: int) -> list[Any]:
    tf = _tf()
    w = (rng.standard_normal((d_in, d_out)) / np.sqrt(d_in)).astype(np.float32)
    return [tf.Variable(w), tf.Variable(np.zeros(d_out, np.float32))]


def _mlp_apply(v: list[Any], x: Any) -> Any:
    tf = _tf()
    for i in range(0, len(v) - 2, 2):
        x = tf.nn.relu(x @ v[i] + v[i + 1])
    return x @ v[-2] + v[-1]


def _layer_norm(x: Any, g: Any, b: Any) -> Any:
    tf = _tf()
    mu, var = tf.nn.moments(x, axes=[-1], keepdims=True)
    return (x - mu) / tf.sqrt(var + 1e-5) * g + b


def _block_vars(ctx: B.Context) -> list[Any]:
    tf = _tf()
    _b, _s, d, _h = ctx.preset.transformer
    rng = np.random.default_rng(0)
    v: list[Any] = []
    for _ in range(4):  # q, k, v, o
        v += _dense(rng, d, d)
    v += _dense(rng, d, 4 * d) + _dense(rng, 4 * d, d)
    for _ in range(2):  # ln1, ln2
        v += [tf.Variable(np.ones(d, np.float32)), tf.Variable(np.zeros(d, np.float32))]
    return v


def _block_apply(v: list[Any], x: Any, heads: int) -> Any:
    """Pre-LN transformer encoder block, the same maths as the PyTorch and JAX scripts."""
    tf = _tf()
    wq, bq, wk, bk, wv, bv, wo, bo, w1, b1, w2, b2, g1, c1, g2, c2 = v
    b, s, d = x.shape
    h = _layer_norm(x, g1, c1)

    def proj(w: Any, bias: Any) -> Any:
        return tf.transpose(tf.reshape(h @ w + bias, [b, s, heads, d // heads]), [0, 2, 1, 3])

    q, k, val = proj(wq, bq), proj(wk, bk), proj(wv, bv)
    att = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) / np.sqrt(d // heads).astype(np.float32), axis=-1)
    o = tf.reshape(tf.transpose(att @ val, [0, 2, 1, 3]), [b, s, d])
    x = x + o @ wo + bo
    h = _layer_norm(x, g2, c2)
    return x + tf.nn.relu(h @ w1 + b1) @ w2 + b2


def _train(ctx: B.Context, benchmark: str, variables: list[Any], apply: Any, x: Any, y: Any, meta: dict) -> None:
    """Eager and tf.function(jit_compile=True) steps: GradientTape, MSE, SGD by assign_sub."""
    tf = _tf()
    lr = 1e-3
    sync = _sync_fn(ctx)

    def step() -> Any:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((apply(variables, x) - y) ** 2)
        for var, g in zip(variables, tape.gradient(loss, variables), strict=True):
            var.assign_sub(lr * g)
        return loss

    eager_median = None
    for variant in ("eager", "compiled"):
        fn = tf.function(step, jit_compile=True) if variant == "compiled" else step
        compile_s = B.time_first_call(fn, sync) if variant == "compiled" else None
        stats = B.measure(fn, sync=sync, budget_s=ctx.budget_s / 2)
        extra = {**meta, "optimizer": "SGD (assign_sub)"}
        if variant == "compiled":
            extra["compiler"] = "XLA (tf.function jit_compile=True)"
            if eager_median:
                extra["speedup_vs_eager"] = eager_median / stats.median_s
        else:
            eager_median = stats.median_s
        ctx.emit_result(B.step_result(benchmark, variant, stats, compile_s=compile_s, params=extra))


def bench_train_mlp(ctx: B.Context) -> None:
    """Training step of a 3-layer MLP."""
    tf = _tf()
    batch, d_in, hidden, d_out = ctx.preset.mlp
    rng = np.random.default_rng(0)
    with tf.device(ctx.handle):
        v = _dense(rng, d_in, hidden) + _dense(rng, hidden, hidden) + _dense(rng, hidden, d_out)
        x = tf.constant(rng.standard_normal((batch, d_in), dtype=np.float32))
        y = tf.constant(rng.standard_normal((batch, d_out), dtype=np.float32))
        _train(ctx, "train_mlp", v, _mlp_apply, x, y, {"batch": batch, "sizes": [d_in, hidden, hidden, d_out]})


def bench_train_transformer(ctx: B.Context) -> None:
    """Training step of one pre-LN transformer block."""
    tf = _tf()
    batch, seq, d, heads = ctx.preset.transformer
    rng = np.random.default_rng(1)
    with tf.device(ctx.handle):
        v = _block_vars(ctx)
        x = tf.constant(rng.standard_normal((batch, seq, d), dtype=np.float32))
        y = tf.constant(rng.standard_normal((batch, seq, d), dtype=np.float32))
        _train(ctx, "train_transformer", v, lambda v, x: _block_apply(v, x, heads), x, y,
               {"batch": batch, "seq": seq, "d_model": d, "heads": heads})


def bench_infer_latency(ctx: B.Context) -> None:
    """Batch-1 forward of the block, each call timed alone: p50/p90/p99, eager and XLA-compiled."""
    tf = _tf()
    _b, seq, d, heads = ctx.preset.transformer
    sync = _sync_fn(ctx)
    meta = {"batch": 1, "seq": seq, "d_model": d, "heads": heads}
    with tf.device(ctx.handle):
        v = _block_vars(ctx)
        x = tf.constant(np.random.default_rng(2).standard_normal((1, seq, d), dtype=np.float32))
        for variant in ("eager", "compiled"):
            fwd = (tf.function(lambda x: _block_apply(v, x, heads), jit_compile=True) if variant == "compiled"
                   else (lambda x: _block_apply(v, x, heads)))
            compile_s = B.time_first_call(lambda fwd=fwd: fwd(x), sync) if variant == "compiled" else None
            times = B.measure_latencies(lambda fwd=fwd: fwd(x), sync=sync, budget_s=ctx.budget_s / 2,
                                        min_calls=ctx.preset.latency_calls)
            ctx.emit_result(B.latency_result(variant, times, meta, compile_s=compile_s))


def bench_transfer(ctx: B.Context) -> None:
    """Host-to-device (tf.identity of a host tensor under tf.device) and device-to-host (.numpy())."""
    tf = _tf()
    if ctx.device == "cpu":
        ctx.skip("transfer", "no accelerator: host and device memory are the same")
        return
    nbytes = ctx.preset.transfer_bytes
    with tf.device("/CPU:0"):
        host = tf.constant(np.ones(nbytes // 4, np.float32))
    with tf.device(ctx.handle):
        on_dev = tf.identity(host)
        sync = _sync_fn(ctx)
        for variant, fn, s in (("h2d", lambda: tf.identity(host), sync), ("d2h", lambda: on_dev.numpy(), None)):
            stats = B.measure(fn, sync=s, budget_s=ctx.budget_s / 2)
            ctx.emit_result(B.result("transfer", variant, stats, value=B.rate(nbytes, stats.median_s) / 1e9,
                                     unit="GB/s", params={"bytes": nbytes}))


def bench_allreduce(ctx: B.Context) -> None:
    """Not measured: TensorFlow's collectives (tf.distribute strategies) are outside this suite so far."""
    ctx.skip("allreduce", "TensorFlow collectives (tf.distribute) are not measured by this suite")


def bench_agreement(ctx: B.Context) -> None:
    """The agreement MLP step with GradientTape in float32 (TF32 off)."""
    tf = _tf()
    data = B.agreement_data()
    with tf.device(ctx.handle):
        v = {k: tf.Variable(data[k]) for k in B.AGREEMENT_PARAMS}
        x, y = tf.constant(data["x"]), tf.constant(data["y"])
        with tf.GradientTape() as tape:
            h = tf.tanh(x @ v["w1"] + v["b1"])
            loss = tf.reduce_mean((h @ v["w2"] + v["b2"] - y) ** 2)
        grads = dict(zip(v, tape.gradient(loss, list(v.values())), strict=True))
        for k in v:
            v[k].assign_sub(B.AGREEMENT_LR * grads[k])
    emit("agreement", device=ctx.device, dtype="float32",
         **B.agreement_payload(float(loss.numpy()), {k: g.numpy() for k, g in grads.items()},
                               {k: var.numpy() for k, var in v.items()}))


def main() -> None:
    """Import TensorFlow, fix and report its thread pools, run the suite on each device type."""
    args = B.parse_args()
    imported = timed_import("tensorflow")
    if imported is None:
        done(ok=False)
        return
    tf, _ = imported
    threads = args.threads or B.usable_cores()
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)  # one op at a time, as in the other scripts
    except RuntimeError:
        pass  # the runtime started in this child's probe (probes.probe_bench), which set these same pools
    tf.config.experimental.enable_tensor_float_32_execution(False)  # fp32 means fp32 (TF32 is on by default)
    devs: list[tuple[str, str, Any]] = [("cpu", platform.processor() or platform.machine(), "/CPU:0")]
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        devs.append(("gpu", gpus[0].name, "/GPU:0"))
    tpus = tf.config.list_logical_devices("TPU")
    if tpus:
        devs.append(("tpu", tpus[0].name, tpus[0].name))
    build = dict(tf.sysconfig.get_build_info())
    emit("env", framework="tensorflow", version=tf.__version__, python=platform.python_version(),
         threads={"intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
                  "inter_op": tf.config.threading.get_inter_op_parallelism_threads()},
         build={**{k: build.get(k) for k in ("is_cuda_build", "cuda_version", "cudnn_version")},
                "fp32_matmul_and_conv": "fp32 (TF32 off)"},
         devices=[{"kind": k, "name": n} for k, n, _ in devs])
    benches = {
        "gemm": bench_gemm, "elementwise": bench_elementwise, "dispatch": bench_dispatch, "conv": bench_conv,
        "train_mlp": bench_train_mlp, "train_transformer": bench_train_transformer,
        "infer_latency": bench_infer_latency, "transfer": bench_transfer, "allreduce": bench_allreduce,
        "agreement": bench_agreement,
    }
    B.run_suite(benches, devs, args, threads=threads)
    done()


if __name__ == "__main__":
    main()
