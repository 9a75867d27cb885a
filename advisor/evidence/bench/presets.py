"""The suite's names, presets, devices, timeouts and limits (sizes live in probes/_presets.py)."""

from __future__ import annotations

from typing import Final

SCHEMA: Final = "fwadvisor.bench/1"
#: Benchmarks in run order (the same list as probes/_presets.py's BENCHMARKS).
BENCHMARKS = (
    "gemm", "elementwise", "dispatch", "conv", "train_mlp", "train_transformer", "infer_latency", "transfer",
    "allreduce", "agreement",
)
#: Sizes live in probes/_presets.py; "test" is the tiny preset the test-suite uses.
PRESETS = ("test", "quick", "standard", "thorough", "fleet")
DEVICES = ("cpu", "gpu", "tpu")
#: What a preset runs when no `--only` is given. Quick leaves out what costs compiles and launches rather than
#: measuring (the transformer block, batch-1 latency with its compiles, torchrun's all-reduce), so that it
#: answers in well under a minute; standard and thorough run everything.
PRESET_BENCHMARKS: dict[str, tuple[str, ...]] = {
    "quick": ("gemm", "elementwise", "dispatch", "conv", "train_mlp", "agreement"),
    # What compares nodes of one fleet (compute, memory bandwidth, per-call overhead, numerical agreement); the
    # conv and training steps cost compiles, not signal, and the all-reduce is the fleet's own (advisor.fleet).
    "fleet": ("gemm", "elementwise", "dispatch", "agreement"),
}
#: Seconds a single benchmark may run before the watchdog calls it hung (cold torch.compile included).
BENCH_TIMEOUT_S = {"test": 90.0, "quick": 150.0, "fleet": 150.0, "standard": 400.0, "thorough": 1200.0}
#: Seconds a child may take to import its framework and report its environment.
IMPORT_TIMEOUT_S = 180.0
#: A child that keeps crashing is restarted at most this many times per framework.
MAX_RESTARTS = 6
#: Relative tolerance of the agreement check: float32 work against a float64 reference.
AGREEMENT_TOL = 1e-4
NUMPY = "numpy"
#: Benchmarks the NumPy baseline runs (it has no autograd, compiler or devices).
NUMPY_BENCHMARKS = ("gemm", "elementwise", "dispatch", "agreement")
#: Variables that tune the collectives' transports; forwarded to the torchrun child when set.
_COLLECTIVE_ENV_PREFIXES = ("NCCL_", "GLOO_", "TORCH_DISTRIBUTED", "MASTER_")
