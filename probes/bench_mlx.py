"""MLX benchmarks, written the way MLX users write them (pure functions, `mx.compile`, `mx.value_and_grad`) (child).

Run as `python -m probes.bench_mlx --preset quick`. MLX is lazy: an expression only builds a graph, so every
timed call ends with `mx.eval` of its outputs, inside the timed region, or the figures would time graph building.
Each benchmark runs under `mx.stream(device)`, MLX's way of choosing where operations run.
"""

from __future__ import annotations

import platform
from typing import Any

import numpy as np

from probes import _bench as B
from probes._proto import done, emit, timed_import


def _mx() -> Any:
    import mlx.core as mx

    return mx


def _run(fn: Any) -> Any:
    """Call fn and evaluate everything it returned (MLX computes nothing until asked)."""
    out = fn()
    _mx().eval(out)
    return out


def _arr(a: np.ndarray) -> Any:
    mx = _mx()
    out = mx.array(a)
    mx.eval(out)  # materialise outside the timed region
    return out


def bench_gemm(ctx: B.Context) -> None:
    """Square `a @ b` (mx.matmul), fp32 and the low precisions the device has."""
    mx = _mx()
    sizes, low_sizes = ctx.gemm_sizes()
    cases = [("fp32", mx.float32, n) for n in sizes]
    low = ["bf16"] + (["fp16"] if ctx.device != "cpu" else [])
    for name in low:
        cases += [(name, {"bf16": mx.bfloat16, "fp16": mx.float16}[name], n) for n in low_sizes]
    for dtype_name, dtype, n in cases:
        if ctx.done_with(f"gemm:{dtype_name}-{n}"):
            continue
        a, b = (_arr(x).astype(dtype) for x in B.gemm_operands(n))
        mx.eval(a, b)
        stats = ctx.measure_case(f"gemm:{dtype_name}-{n}", lambda a=a, b=b: _run(lambda: mx.matmul(a, b)))
        if stats is not None:
            ctx.emit_result(B.gemm_result(n, dtype_name, stats, params={"sync": "mx.eval each call"}))


def bench_elementwise(ctx: B.Context) -> None:
    """`a * x + y` as written (eager) and under mx.compile (fused into one kernel)."""
    mx = _mx()
    n = ctx.preset.elementwise_n
    x = _arr(np.ones(n, dtype=np.float32))
    y = _arr(np.ones(n, dtype=np.float32))
    a = mx.array(1.5, dtype=mx.float32)
    axpy = mx.compile(lambda a, x, y: a * x + y)
    _run(lambda: axpy(a, x, y))  # compile outside the timed region
    for variant, form, fn in (("axpy-fp32", "a * x + y", lambda: a * x + y),
                              ("axpy-fp32-compiled", "mx.compile(a * x + y)", lambda: axpy(a, x, y))):
        stats = B.measure(lambda fn=fn: _run(fn), budget_s=ctx.budget_s / 2)
        ctx.emit_result(B.elementwise_result(n, 4, stats, variant, params={"form": form}))


def bench_dispatch(ctx: B.Context) -> None:
    """A one-element mx.add, built and evaluated op by op: MLX's per-op cost (graph node + eval)."""
    mx = _mx()
    x = _arr(np.ones(1, dtype=np.float32))
    y = _arr(np.ones(1, dtype=np.float32))
    stats = B.measure(lambda: _run(lambda: mx.add(x, y)), budget_s=ctx.budget_s)
    ctx.emit_result(B.result("dispatch", "eager", stats, value=stats.median_s * 1e6, unit="us/op",
                             metric="latency", higher_is_better=False,
                             params={"op": "add", "elements": 1, "note": "includes mx.eval of the op"}))


def bench_conv(ctx: B.Context) -> None:
    """Compiled 3x3 conv (same padding) + ReLU forward, NHWC (MLX's only layout)."""
    mx = _mx()
    p = ctx.preset
    rng = np.random.default_rng(0)
    x = _arr(rng.standard_normal((p.conv_batch, p.conv_hw, p.conv_hw, p.conv_channels), dtype=np.float32))
    # MLX's weight layout: (C_out, KH, KW, C_in).
    w = _arr(rng.standard_normal((p.conv_channels, 3, 3, p.conv_channels), dtype=np.float32) * 0.05)
    fwd = mx.compile(lambda x, w: mx.maximum(mx.conv2d(x, w, padding=1), 0.0))
    _run(lambda: fwd(x, w))
    stats = B.measure(lambda: _run(lambda: fwd(x, w)), budget_s=ctx.budget_s)
    ctx.emit_result(B.conv_result(p, stats, params={"layout": "NHWC", "compiled": True}))


def _dense(rng: np.random.Generator, d_in: int, d_out: int) -> dict[str, Any]:
    w = (rng.standard_normal((d_in, d_out)) / np.sqrt(d_in)).astype(np.float32)
    return {"w": _arr(w), "b": _arr(np.zeros(d_out, dtype=np.float32))}


def _mlp_params(ctx: B.Context) -> tuple[list[dict[str, Any]], Any, Any]:
    batch, d_in, hidden, d_out = ctx.preset.mlp
    rng = np.random.default_rng(0)
    params = [_dense(rng, d_in, hidden), _dense(rng, hidden, hidden), _dense(rng, hidden, d_out)]
    x = _arr(rng.standard_normal((batch, d_in), dtype=np.float32))
    y = _arr(rng.standard_normal((batch, d_out), dtype=np.float32))
    return params, x, y


def _mlp_apply(params: list[dict[str, Any]], x: Any) -> Any:
    mx = _mx()
    for layer in params[:-1]:
        x = mx.maximum(x @ layer["w"] + layer["b"], 0.0)
    return x @ params[-1]["w"] + params[-1]["b"]


def _layer_norm(x: Any, g: Any, b: Any) -> Any:
    mx = _mx()
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / mx.sqrt(var + 1e-5) * g + b


def _block_params(ctx: B.Context) -> dict[str, Any]:
    _b, _s, d, _h = ctx.preset.transformer
    rng = np.random.default_rng(0)
    p: dict[str, Any] = {name: _dense(rng, d, d) for name in ("q", "k", "v", "o")}
    p["ff1"], p["ff2"] = _dense(rng, d, 4 * d), _dense(rng, 4 * d, d)
    for ln in ("ln1", "ln2"):
        p[ln] = {"g": _arr(np.ones(d, dtype=np.float32)), "b": _arr(np.zeros(d, dtype=np.float32))}
    return p


def _block_apply(p: dict[str, Any], x: Any, heads: int) -> Any:
    """Pre-LN transformer encoder block (the same maths as bench_jax's and torch's TransformerEncoderLayer)."""
    mx = _mx()
    b, s, d = x.shape
    h = _layer_norm(x, p["ln1"]["g"], p["ln1"]["b"])

    def proj(name: str) -> Any:
        return (h @ p[name]["w"] + p[name]["b"]).reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)

    q, k, v = proj("q"), proj("k"), proj("v")
    att = mx.softmax(q @ k.transpose(0, 1, 3, 2) / float(np.sqrt(d // heads)), axis=-1)
    o = (att @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
    x = x + o @ p["o"]["w"] + p["o"]["b"]
    h = _layer_norm(x, p["ln2"]["g"], p["ln2"]["b"])
    return x + mx.maximum(h @ p["ff1"]["w"] + p["ff1"]["b"], 0.0) @ p["ff2"]["w"] + p["ff2"]["b"]


def _train(ctx: B.Context, benchmark: str, params: Any, apply: Any, x: Any, y: Any, meta: dict) -> None:
    """Eager and mx.compile training steps: MSE loss, mx.value_and_grad, SGD by tree_map."""
    mx = _mx()
    from mlx.utils import tree_map

    lr = 1e-3

    def step(params: Any, x: Any, y: Any) -> tuple[Any, Any]:
        loss, grads = mx.value_and_grad(lambda p: mx.mean((apply(p, x) - y) ** 2))(params)
        return tree_map(lambda w, g: w - lr * g, params, grads), loss

    eager_median = None
    for variant in ("eager", "compiled"):
        fn = mx.compile(step) if variant == "compiled" else step
        state = {"p": params}

        def call(fn: Any = fn, state: dict = state) -> Any:
            state["p"], loss = fn(state["p"], x, y)
            mx.eval(state["p"], loss)  # the updated weights too: the next step must not rebuild this one's graph
            return loss

        compile_s = B.time_first_call(call, None) if variant == "compiled" else None
        stats = B.measure(call, budget_s=ctx.budget_s / 2)
        extra = {**meta, "optimizer": "SGD (tree_map)"}
        if variant == "compiled" and eager_median:
            extra["speedup_vs_eager"] = eager_median / stats.median_s
        if variant == "eager":
            eager_median = stats.median_s
            extra["note"] = "graph built and evaluated each step, without mx.compile"
        ctx.emit_result(B.step_result(benchmark, variant, stats, compile_s=compile_s, params=extra))


def bench_train_mlp(ctx: B.Context) -> None:
    """Training step of a 3-layer MLP."""
    params, x, y = _mlp_params(ctx)
    batch, d_in, hidden, d_out = ctx.preset.mlp
    _train(ctx, "train_mlp", params, _mlp_apply, x, y, {"batch": batch, "sizes": [d_in, hidden, hidden, d_out]})


def bench_train_transformer(ctx: B.Context) -> None:
    """Training step of one pre-LN transformer block."""
    batch, seq, d, heads = ctx.preset.transformer
    rng = np.random.default_rng(1)
    x = _arr(rng.standard_normal((batch, seq, d), dtype=np.float32))
    y = _arr(rng.standard_normal((batch, seq, d), dtype=np.float32))
    _train(ctx, "train_transformer", _block_params(ctx), lambda p, x: _block_apply(p, x, heads), x, y,
           {"batch": batch, "seq": seq, "d_model": d, "heads": heads})


def bench_infer_latency(ctx: B.Context) -> None:
    """Batch-1 forward of the block, each call timed alone: p50/p90/p99, eager and compiled."""
    mx = _mx()
    _b, seq, d, heads = ctx.preset.transformer
    p = _block_params(ctx)
    x = _arr(np.random.default_rng(2).standard_normal((1, seq, d), dtype=np.float32))
    meta = {"batch": 1, "seq": seq, "d_model": d, "heads": heads}
    def forward(p: dict[str, Any], x: Any) -> Any:
        return _block_apply(p, x, heads)

    for variant in ("eager", "compiled"):
        fwd = mx.compile(forward) if variant == "compiled" else forward

        def call(fwd: Any = fwd) -> Any:
            return _run(lambda: fwd(p, x))

        compile_s = B.time_first_call(call, None) if variant == "compiled" else None
        times = B.measure_latencies(call, budget_s=ctx.budget_s / 2, min_calls=ctx.preset.latency_calls)
        ctx.emit_result(B.latency_result(variant, times, meta, compile_s=compile_s))


def bench_transfer(ctx: B.Context) -> None:
    """Not measured: an MLX array has no device (unified memory); only the stream an op runs on does."""
    reason = ("no accelerator: host and device memory are the same" if ctx.device == "cpu" else
              "MLX arrays live in unified memory with no device of their own: it has no host-device copy to time")
    ctx.skip("transfer", reason)


def bench_allreduce(ctx: B.Context) -> None:
    """Not measured: MLX's collectives (mx.distributed) run across processes started by mlx.launch."""
    ctx.skip("allreduce", "MLX's all-reduce (mx.distributed.all_sum) spans processes started by mlx.launch, "
                          "not the devices of one process; this suite does not launch them")


def bench_agreement(ctx: B.Context) -> None:
    """The agreement MLP step with mx.value_and_grad in float32, from the shared seed data."""
    mx = _mx()
    d = {k: _arr(v) for k, v in B.agreement_data().items()}
    params = {k: d[k] for k in B.AGREEMENT_PARAMS}

    def loss_fn(p: dict[str, Any]) -> Any:
        h = mx.tanh(d["x"] @ p["w1"] + p["b1"])
        return mx.mean((h @ p["w2"] + p["b2"] - d["y"]) ** 2)

    loss, grads = mx.value_and_grad(loss_fn)(params)
    updated = {k: params[k] - B.AGREEMENT_LR * grads[k] for k in B.AGREEMENT_PARAMS}
    mx.eval(loss, grads, updated)
    emit("agreement", device=ctx.device, dtype="float32",
         **B.agreement_payload(loss.item(), {k: np.array(v) for k, v in grads.items()},
                               {k: np.array(v) for k, v in updated.items()}))


def _on_device(fn: B.BenchFn) -> B.BenchFn:
    """Run a benchmark with its context's MLX device as the default (where MLX places new operations)."""

    def run(ctx: B.Context) -> None:
        with _mx().stream(ctx.handle):
            fn(ctx)

    run.__doc__ = fn.__doc__
    return run


def main() -> None:
    """Import MLX, report its devices, run the suite on the first device of each kind."""
    args = B.parse_args()
    if timed_import("mlx.core") is None:
        done(ok=False)
        return
    mx = _mx()
    from probes.fw_mlx import devices as mlx_devices
    from probes.fw_mlx import gpu_backend

    found = mlx_devices(mx)
    first: dict[str, tuple[str, str, Any]] = {}
    for kind, name, dev, _label in found:
        first.setdefault(kind, (kind, name, dev))
    devs = list(first.values())
    threads = args.threads or B.usable_cores()
    emit("env", framework="mlx", version=mx.__version__, python=platform.python_version(),
         threads={"intra_op": B.usable_cores(), "note": "MLX sizes its CPU thread pools itself; "
                  "it has no public thread setting"},
         build={"default_device": str(mx.default_device()), "gpu_backend": gpu_backend(mx),
                "fp32_matmul_and_conv": "fp32"},
         devices=[{"kind": k, "name": n, "count": sum(1 for f in found if f[0] == k)} for k, n, _ in devs])
    benches = {
        "gemm": bench_gemm, "elementwise": bench_elementwise, "dispatch": bench_dispatch, "conv": bench_conv,
        "train_mlp": bench_train_mlp, "train_transformer": bench_train_transformer,
        "infer_latency": bench_infer_latency, "transfer": bench_transfer, "allreduce": bench_allreduce,
        "agreement": bench_agreement,
    }
    B.run_suite({k: _on_device(f) for k, f in benches.items()}, devs, args, threads=threads)
    done()


if __name__ == "__main__":
    main()
