"""PyTorch benchmarks, written the way PyTorch users write them, on every device torch sees (child process).

Run as `python -m probes.bench_torch --preset quick [--only gemm,conv] [--device cpu]`. Timing
and statistics come from probes/_bench.py; device work is synchronised with
`torch.cuda.synchronize` (or the device's own synchronize) at the end of each timed block.
"""

from __future__ import annotations

import os
import platform
import time
from typing import Any

from probes import _bench as B
from probes._proto import done, emit, timed_import


def _torch() -> Any:
    import torch

    return torch


def _sync_fn(ctx: B.Context) -> Any:
    """The synchronisation that makes a timed block end when the device is done, not when the call returns."""
    torch = _torch()
    dev = ctx.handle
    if dev.type == "cuda":
        return lambda _r: torch.cuda.synchronize(dev)
    if dev.type == "mps":
        return lambda _r: torch.mps.synchronize()
    if dev.type == "xpu":
        return lambda _r: torch.xpu.synchronize(dev)
    return None  # CPU ops are synchronous


def bench_gemm(ctx: B.Context) -> None:
    """Square `a @ b` at each size, fp32 and the low-precision types the device supports."""
    torch = _torch()
    dev, sync = ctx.handle, _sync_fn(ctx)
    sizes, low_sizes = ctx.gemm_sizes()
    cases: list[tuple[str, Any, int]] = [("fp32", torch.float32, n) for n in sizes]
    low = ["bf16"] + (["fp16"] if dev.type != "cpu" else [])  # fp16 GEMM on CPU is emulated and slow
    if dev.type == "cuda" and not torch.cuda.is_bf16_supported():
        low.remove("bf16")
    for name in low:
        cases += [(name, {"bf16": torch.bfloat16, "fp16": torch.float16}[name], n)
                  for n in low_sizes]
    for dtype_name, dtype, n in cases:
        if ctx.done_with(f"gemm:{dtype_name}-{n}"):
            continue
        # torch.tensor copies: the shared operands are read-only, and a product must not alias them.
        a, b = (torch.tensor(x, device=dev, dtype=dtype) for x in B.gemm_operands(n))
        stats = ctx.measure_case(f"gemm:{dtype_name}-{n}", lambda a=a, b=b: torch.matmul(a, b), sync=sync)
        if stats is not None:  # the preset budget is per case
            ctx.emit_result(B.gemm_result(n, dtype_name, stats))
        del a, b


def bench_elementwise(ctx: B.Context) -> None:
    """`a * x + y` in eager mode (two kernels and a temporary, as written)."""
    torch = _torch()
    n = ctx.preset.elementwise_n
    x = torch.ones(n, device=ctx.handle)
    y = torch.ones(n, device=ctx.handle)
    a = 1.5
    sync = _sync_fn(ctx)
    stats = B.measure(lambda: a * x + y, sync=sync, budget_s=ctx.budget_s / 2)
    ctx.emit_result(B.elementwise_result(n, 4, stats, params={"form": "a * x + y"}))
    out = torch.empty_like(x)
    stats = B.measure(lambda: torch.add(y, x, alpha=a, out=out), sync=sync, budget_s=ctx.budget_s / 2)
    ctx.emit_result(B.elementwise_result(n, 4, stats, "axpy-fp32-out",
                                         params={"form": "torch.add(y, x, alpha=a, out=out)", "passes": 1}))


def bench_dispatch(ctx: B.Context) -> None:
    """A one-element add in eager mode: the framework's per-op overhead."""
    torch = _torch()
    x = torch.ones(1, device=ctx.handle)
    y = torch.ones(1, device=ctx.handle)
    stats = B.measure(lambda: torch.add(x, y), sync=_sync_fn(ctx), budget_s=ctx.budget_s)
    ctx.emit_result(B.result("dispatch", "eager", stats, value=stats.median_s * 1e6, unit="us/op",
                             metric="latency", higher_is_better=False, params={"op": "add", "elements": 1}))


def bench_conv(ctx: B.Context) -> None:
    """Forward of a ResNet-style 3x3 conv (same padding) + BN-free ReLU, NCHW, inference mode."""
    torch = _torch()
    p = ctx.preset
    conv = torch.nn.Conv2d(p.conv_channels, p.conv_channels, 3, padding=1, bias=False).to(ctx.handle).eval()
    x = torch.randn(p.conv_batch, p.conv_channels, p.conv_hw, p.conv_hw, device=ctx.handle)

    def fwd() -> Any:
        with torch.inference_mode():
            return torch.relu(conv(x))

    stats = B.measure(fwd, sync=_sync_fn(ctx), budget_s=ctx.budget_s)
    ctx.emit_result(B.conv_result(p, stats, params={"layout": "NCHW"}))


def _mlp(ctx: B.Context) -> tuple[Any, Any, Any]:
    torch = _torch()
    batch, d_in, hidden, d_out = ctx.preset.mlp
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(d_in, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, d_out),
    ).to(ctx.handle)
    x = torch.randn(batch, d_in, device=ctx.handle)
    y = torch.randn(batch, d_out, device=ctx.handle)
    return model, x, y


def _block(ctx: B.Context) -> Any:
    """The small transformer block: pre-LN encoder layer, ReLU MLP of 4x width, no dropout."""
    torch = _torch()
    _batch, _seq, d, heads = ctx.preset.transformer
    torch.manual_seed(0)
    return torch.nn.TransformerEncoderLayer(
        d, heads, dim_feedforward=4 * d, dropout=0.0, activation="relu", batch_first=True, norm_first=True,
    ).to(ctx.handle)


def _compile_cache() -> dict[str, Any]:
    """Inductor's cache counters: a warm cache makes the 'first call' much cheaper, so say which it was."""
    try:
        from torch._dynamo.utils import counters

        ind = counters["inductor"]
        return {"fxgraph_cache_hit": int(ind.get("fxgraph_cache_hit", 0)),
                "fxgraph_cache_miss": int(ind.get("fxgraph_cache_miss", 0))}
    except Exception:  # noqa: BLE001 - private counters: informative only
        return {}


def _train(ctx: B.Context, benchmark: str, model: Any, x: Any, y: Any, compile_ok: bool, params: dict) -> None:
    """Eager and `torch.compile`d training step (forward, MSE loss, backward, SGD update)."""
    torch = _torch()
    sync = _sync_fn(ctx)
    variants = ["eager", "compiled"] if compile_ok else ["eager"]
    eager_median = None
    for variant in variants:
        net = torch.compile(model) if variant == "compiled" else model
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)

        def step(net: Any = net, opt: Any = opt) -> Any:
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            return loss

        compile_s = None
        before = _compile_cache()
        if variant == "compiled":
            compile_s = B.time_first_call(step, sync)
        stats = B.measure(step, sync=sync, budget_s=ctx.budget_s / len(variants))
        extra: dict[str, Any] = {**params, "optimizer": "SGD"}
        if variant == "compiled":
            after = _compile_cache()
            extra["inductor_cache"] = {k: after.get(k, 0) - before.get(k, 0) for k in after}
            if eager_median:
                extra["speedup_vs_eager"] = eager_median / stats.median_s
        else:
            eager_median = stats.median_s
        ctx.emit_result(B.step_result(benchmark, variant, stats, compile_s=compile_s, params=extra))
    if not compile_ok:
        ctx.skip(benchmark + ":compiled", "torch.compile of this model takes tens of seconds on CPU; "
                 "run the standard preset to include it")


def bench_train_mlp(ctx: B.Context) -> None:
    """Training step of a 3-layer MLP."""
    model, x, y = _mlp(ctx)
    batch, d_in, hidden, d_out = ctx.preset.mlp
    # torch.compile of even this MLP takes ~10-20 s on a CPU; the quick preset leaves it to standard.
    compile_ok = ctx.preset.full_variants or ctx.handle.type != "cpu"
    _train(ctx, "train_mlp", model, x, y, compile_ok, {"batch": batch, "sizes": [d_in, hidden, hidden, d_out]})


def bench_train_transformer(ctx: B.Context) -> None:
    """Training step of one transformer block (compiled only where compiling is affordable)."""
    torch = _torch()
    batch, seq, d, heads = ctx.preset.transformer
    block = _block(ctx)
    x = torch.randn(batch, seq, d, device=ctx.handle)
    y = torch.randn(batch, seq, d, device=ctx.handle)
    compile_ok = ctx.preset.compile_heavy or ctx.handle.type != "cpu"
    _train(ctx, "train_transformer", block, x, y, compile_ok,
           {"batch": batch, "seq": seq, "d_model": d, "heads": heads})


def bench_infer_latency(ctx: B.Context) -> None:
    """Batch-1 forward of the transformer block, each call timed alone: p50/p90/p99, eager and compiled."""
    torch = _torch()
    _batch, seq, d, heads = ctx.preset.transformer
    block = _block(ctx).eval()
    x = torch.randn(1, seq, d, device=ctx.handle)
    sync = _sync_fn(ctx)
    compile_ok = ctx.preset.compile_heavy or ctx.handle.type != "cpu"
    params = {"batch": 1, "seq": seq, "d_model": d, "heads": heads}
    for variant in ["eager", "compiled"] if compile_ok else ["eager"]:
        net = torch.compile(block) if variant == "compiled" else block

        def fwd(net: Any = net) -> Any:
            with torch.inference_mode():
                return net(x)

        compile_s = B.time_first_call(fwd, sync) if variant == "compiled" else None
        times = B.measure_latencies(fwd, sync=sync, budget_s=ctx.budget_s / 2, min_calls=ctx.preset.latency_calls)
        ctx.emit_result(B.latency_result(variant, times, params, compile_s=compile_s))
    if not compile_ok:
        ctx.skip("infer_latency:compiled", "torch.compile of this model takes tens of seconds on CPU; "
                 "run the standard preset to include it")


def bench_transfer(ctx: B.Context) -> None:
    """Host-to-device and device-to-host copies of a pinned buffer (accelerators only)."""
    torch = _torch()
    dev = ctx.handle
    if dev.type == "cpu":
        ctx.skip("transfer", "no accelerator: host and device memory are the same")
        return
    nbytes = ctx.preset.transfer_bytes
    host = torch.empty(nbytes // 4, dtype=torch.float32, pin_memory=dev.type == "cuda")
    on_dev = torch.empty(nbytes // 4, dtype=torch.float32, device=dev)
    sync = _sync_fn(ctx)
    for variant, fn in (("h2d", lambda: on_dev.copy_(host, non_blocking=True)),
                        ("d2h", lambda: host.copy_(on_dev, non_blocking=True))):
        stats = B.measure(fn, sync=sync, budget_s=ctx.budget_s / 2)
        ctx.emit_result(B.result("transfer", variant, stats, value=B.rate(nbytes, stats.median_s) / 1e9,
                                 unit="GB/s", params={"bytes": nbytes, "pinned": dev.type == "cuda"}))


def bench_allreduce(ctx: B.Context) -> None:
    """Collectives run under torchrun (probes/allreduce_torch.py), launched by the parent, not in this child."""
    ctx.skip("allreduce", "measured by probes.allreduce_torch under torchrun")


def bench_agreement(ctx: B.Context) -> None:
    """The agreement MLP step with autograd, in float32, from the shared seed data."""
    torch = _torch()
    dev = ctx.handle
    data = {k: torch.from_numpy(v).to(dev) for k, v in B.agreement_data().items()}
    params = {k: data[k].clone().requires_grad_(True) for k in B.AGREEMENT_PARAMS}
    h = torch.tanh(data["x"] @ params["w1"] + params["b1"])
    out = h @ params["w2"] + params["b2"]
    loss = torch.mean((out - data["y"]) ** 2)
    loss.backward()
    opt = torch.optim.SGD(params.values(), lr=B.AGREEMENT_LR)
    grads = {k: p.grad.detach().cpu().numpy() for k, p in params.items()}
    opt.step()
    updated = {k: p.detach().cpu().numpy() for k, p in params.items()}
    emit("agreement", device=ctx.device, dtype="float32", **B.agreement_payload(loss.item(), grads, updated))


def devices(torch: Any) -> list[tuple[str, str, Any]]:
    """(kind, name, torch.device) for the CPU and every accelerator this build can use."""
    out: list[tuple[str, str, Any]] = [("cpu", platform.processor() or platform.machine(), torch.device("cpu"))]
    if torch.cuda.is_available():
        # One GPU is measured (the first): the suite characterises a device type, not every card.
        out.append(("gpu", torch.cuda.get_device_name(0), torch.device("cuda", 0)))
    elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        out.append(("mps", "Apple GPU", torch.device("mps")))
    elif hasattr(torch, "xpu") and torch.xpu.is_available():
        out.append(("xpu", torch.xpu.get_device_name(0), torch.device("xpu", 0)))
    return out


def main() -> None:
    """Import torch, fix and report the thread counts, run the suite."""
    args = B.parse_args()
    imported = timed_import("torch")
    if imported is None:
        done(ok=False)
        return
    torch, _ = imported
    threads = args.threads or B.usable_cores()
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)  # one op at a time: benchmarks measure intra-op parallelism
    except RuntimeError:
        pass  # already set (inter-op pool started)
    devs = devices(torch)
    # fp32 means fp32 in every benchmark of every framework: PyTorch's cuDNN convolutions use TF32 by default on
    # Ampere and newer (its matmuls do not), JAX and TensorFlow use it for both; each script turns it off.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    emit("env", framework="pytorch", version=torch.__version__, python=platform.python_version(),
         threads={"intra_op": torch.get_num_threads(), "inter_op": torch.get_num_interop_threads(),
                  "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")},
         build={"cuda": torch.version.cuda, "mkldnn": torch.backends.mkldnn.is_available(),
                "cpu_capability": torch.backends.cpu.get_cpu_capability(), "fp32_matmul_and_conv": "fp32 (TF32 off)"},
         devices=[{"kind": k, "name": n} for k, n, _ in devs], started=time.time())
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
