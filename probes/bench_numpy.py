"""Plain NumPy baseline for the benchmark suite: GEMM, `a*x + y`, a tiny op, and the float64 agreement reference.

Run as `python -m probes.bench_numpy --preset quick`; speaks probes/_proto.py's JSON lines and
measures with probes/_bench.py like every framework's script, so its figures share the method.
"""

from __future__ import annotations

import os
import platform

import numpy as np

from probes import _bench as B
from probes._proto import done, emit


def bench_gemm(ctx: B.Context) -> None:
    """Square fp32 matrix products through NumPy's BLAS."""
    for n in ctx.preset.gemm_sizes:
        a, b = B.gemm_operands(n)
        stats = ctx.measure_case(f"gemm:fp32-{n}", lambda a=a, b=b: a @ b)  # the preset budget is per case
        if stats is not None:
            ctx.emit_result(B.gemm_result(n, "fp32", stats))


def bench_elementwise(ctx: B.Context) -> None:
    """`a*x + y` written the plain NumPy way (two passes and a temporary, as users write it)."""
    n = ctx.preset.elementwise_n
    x = np.ones(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    a = np.float32(1.5)
    stats = B.measure(lambda: a * x + y, budget_s=ctx.budget_s / 2)
    ctx.emit_result(B.elementwise_result(n, 4, stats, params={"form": "a * x + y"}))
    out = np.empty_like(x)

    def into_out() -> np.ndarray:
        # NumPy has no fused axpy: two passes over `out`, still counted as 3 arrays like every variant.
        np.multiply(x, a, out=out)
        return np.add(out, y, out=out)

    stats = B.measure(into_out, budget_s=ctx.budget_s / 2)
    ctx.emit_result(B.elementwise_result(n, 4, stats, "axpy-fp32-out",
                                         params={"form": "multiply(out=); add(out=)", "passes": 2}))


def bench_dispatch(ctx: B.Context) -> None:
    """A one-element add: the per-call overhead of NumPy's ufunc machinery."""
    x = np.ones(1, dtype=np.float32)
    y = np.ones(1, dtype=np.float32)
    stats = B.measure(lambda: np.add(x, y), budget_s=ctx.budget_s)
    ctx.emit_result(B.result("dispatch", "eager", stats, value=stats.median_s * 1e6, unit="us/op",
                             metric="latency", higher_is_better=False, params={"op": "add", "elements": 1}))


def reference_step(data: dict[str, np.ndarray], dtype: type = np.float64) -> dict[str, object]:
    """The agreement MLP step by hand (forward, backward, SGD) in `dtype`: the reference every framework meets."""
    x, y = data["x"].astype(dtype), data["y"].astype(dtype)
    p = {k: data[k].astype(dtype) for k in B.AGREEMENT_PARAMS}
    pre = x @ p["w1"] + p["b1"]
    h = np.tanh(pre)
    out = h @ p["w2"] + p["b2"]
    diff = out - y
    loss = float(np.mean(diff**2))
    d_out = 2.0 * diff / diff.size
    grads = {"w2": h.T @ d_out, "b2": d_out.sum(axis=0)}
    d_pre = (d_out @ p["w2"].T) * (1.0 - h**2)
    grads["w1"] = x.T @ d_pre
    grads["b1"] = d_pre.sum(axis=0)
    updated = {k: p[k] - B.AGREEMENT_LR * grads[k] for k in B.AGREEMENT_PARAMS}
    return B.agreement_payload(loss, grads, updated)


def bench_agreement(ctx: B.Context) -> None:
    """Emit the float64 reference of the agreement step (the parent compares each framework with it)."""
    emit("agreement", device=ctx.device, dtype="float64", **reference_step(B.agreement_data()))


def main() -> None:
    """Parse the common flags, describe the environment, run the suite."""
    args = B.parse_args()
    threads = args.threads or B.usable_cores()
    emit("import", ok=True, module="numpy", seconds=0.0)
    blas = "unknown"
    try:
        cfg = np.show_config(mode="dicts")  # NumPy >= 1.25
        blas = str(cfg.get("Build Dependencies", {}).get("blas", {}).get("name", "unknown"))
    except Exception:  # noqa: BLE001, S110 - older NumPy: the BLAS name is only informative
        pass
    # NumPy has no thread API: OpenBLAS reads OPENBLAS_NUM_THREADS, then OMP_NUM_THREADS (which the
    # parent sets to the suite's thread count unless the user chose one), else uses every core.
    env_threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
    emit("env", framework="numpy", version=np.__version__, python=platform.python_version(),
         threads={"intra_op": int(env_threads) if env_threads and env_threads.isdigit() else threads,
                  "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
                  "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")},
         build={"blas": blas},
         devices=[{"kind": "cpu", "name": platform.processor() or platform.machine()}])
    benches = {"gemm": bench_gemm, "elementwise": bench_elementwise, "dispatch": bench_dispatch,
               "agreement": bench_agreement}
    B.run_suite(benches, [("cpu", "cpu", None)], args, threads=threads)
    done()


if __name__ == "__main__":
    main()
