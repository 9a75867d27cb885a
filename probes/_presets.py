"""The benchmark presets: problem sizes and time budgets, the same for every framework (stdlib only)."""

from __future__ import annotations

from dataclasses import dataclass

#: Every benchmark a child may run, in the order they run.
BENCHMARKS = (
    "gemm", "elementwise", "dispatch", "conv", "train_mlp", "train_transformer", "infer_latency", "transfer",
    "allreduce", "agreement",
)


@dataclass(frozen=True)
class Preset:
    """Problem sizes and time budgets of one preset (the same for every framework)."""

    name: str
    budget_s: float  # measurement budget of one case (one size, one variant)
    gemm_sizes: tuple[int, ...]
    gemm_low_precision_sizes: tuple[int, ...]
    elementwise_n: int
    conv_batch: int
    conv_hw: int
    conv_channels: int
    mlp: tuple[int, int, int, int]  # batch, in, hidden, out
    transformer: tuple[int, int, int, int]  # batch, seq, d_model, heads
    latency_calls: int
    allreduce_sizes: tuple[int, ...]  # float32 elements
    compile_heavy: bool  # also compile the transformer where compiling is slow (torch.compile on CPU)
    transfer_bytes: int = 64 << 20
    # The variants that cost more set-up than measuring on a CPU: torch.compile of the small MLP (10-20 s) and JAX's
    # op-by-op training step (every primitive compiled on first use). The quick preset leaves them to standard.
    full_variants: bool = True
    # GEMM sizes on an accelerator: a 1024 product takes ~4 us of an H200's tensor cores, less than one call's
    # dispatch (PyTorch ~7 us, JAX ~40 us per op there), so it measured each framework's Python overhead (PyTorch
    # 125-183 TFLOP/s and JAX 47-56 in bf16, run to run) rather than the GPU; from 4096 up the math dominates.
    accel_gemm_sizes: tuple[int, ...] = (4096,)
    accel_gemm_low_precision_sizes: tuple[int, ...] = (8192,)


PRESETS: dict[str, Preset] = {
    "test": Preset(
        name="test", budget_s=0.05, gemm_sizes=(64,), gemm_low_precision_sizes=(64,), elementwise_n=1 << 16,
        conv_batch=1, conv_hw=8, conv_channels=4, mlp=(8, 16, 32, 4), transformer=(2, 8, 16, 2),
        latency_calls=20, allreduce_sizes=(1 << 10,), compile_heavy=False, transfer_bytes=1 << 20,
        accel_gemm_sizes=(256,), accel_gemm_low_precision_sizes=(256,),
    ),
    "quick": Preset(
        name="quick", budget_s=0.35, gemm_sizes=(256, 1024), gemm_low_precision_sizes=(1024,),
        elementwise_n=1 << 23, conv_batch=4, conv_hw=56, conv_channels=64, mlp=(64, 256, 512, 10),
        transformer=(8, 64, 128, 4), latency_calls=100, allreduce_sizes=(1 << 20,), compile_heavy=False,
        full_variants=False,
    ),
    # What a fleet comparison needs, at the least set-up: fp32 GEMM at one size (compute), one elementwise pass
    # (memory bandwidth), dispatch (per-call overhead) and agreement; the same on every node so that nodes of a
    # type line up. Low precision runs only where the probe found the units (the parent says so per turn).
    "fleet": Preset(
        name="fleet", budget_s=0.3, gemm_sizes=(1024,), gemm_low_precision_sizes=(1024,),
        elementwise_n=1 << 22, conv_batch=4, conv_hw=56, conv_channels=64, mlp=(64, 256, 512, 10),
        transformer=(8, 64, 128, 4), latency_calls=100, allreduce_sizes=(1 << 16, 1 << 20), compile_heavy=False,
        full_variants=False,
    ),
    "standard": Preset(
        name="standard", budget_s=1.0, gemm_sizes=(256, 512, 1024, 2048), gemm_low_precision_sizes=(1024, 2048),
        elementwise_n=1 << 24, conv_batch=16, conv_hw=56, conv_channels=64, mlp=(128, 512, 1024, 10),
        transformer=(16, 128, 256, 8), latency_calls=300, allreduce_sizes=(1 << 16, 1 << 20, 1 << 24),
        compile_heavy=True, accel_gemm_sizes=(1024, 4096, 8192), accel_gemm_low_precision_sizes=(4096, 8192),
    ),
    "thorough": Preset(
        name="thorough", budget_s=3.0, gemm_sizes=(256, 512, 1024, 2048, 4096),
        gemm_low_precision_sizes=(1024, 2048, 4096), elementwise_n=1 << 26, conv_batch=32, conv_hw=56,
        conv_channels=64, mlp=(256, 1024, 2048, 10), transformer=(32, 128, 512, 8), latency_calls=1000,
        allreduce_sizes=(1 << 12, 1 << 16, 1 << 20, 1 << 24, 1 << 26), compile_heavy=True,
        transfer_bytes=256 << 20, accel_gemm_sizes=(1024, 4096, 8192, 16384),
        accel_gemm_low_precision_sizes=(4096, 8192, 16384),
    ),
}
