"""The benchmark engine: runs each framework's bench script in its own child and gathers immutable results.

A package by role: `presets` (names, limits), `results` (the immutable data), `figures` (child events into
figures), `runner` (child launch, watchdog, restarts, torchrun), `agreement`, `engine` (`run_bench`).

Every framework runs `python -m <adapter.bench_module>` (see `advisor/frameworks/`) in a child
process with the same preset, thread count and per-benchmark budget; a plain NumPy child
(`probes.bench_numpy`) gives the baseline and the float64 reference of the agreement check.
Results stream back as JSON lines and become `Measurement`s. A child that crashes, hangs or is
killed for memory loses only the benchmark it was running: a watchdog kills a benchmark that
overruns, and the engine restarts the child for the benchmarks that remain. Collectives run on
the frameworks' own launchers: `torch.distributed.run` (torchrun) for PyTorch, a JAX child with
several host-platform devices for JAX.
"""

from __future__ import annotations

from advisor.evidence.bench.engine import run_bench
from advisor.evidence.bench.presets import (
    AGREEMENT_TOL,
    BENCH_TIMEOUT_S,
    BENCHMARKS,
    DEVICES,
    IMPORT_TIMEOUT_S,
    MAX_RESTARTS,
    NUMPY,
    NUMPY_BENCHMARKS,
    PRESET_BENCHMARKS,
    PRESETS,
    SCHEMA,
)
from advisor.evidence.bench.results import (
    BenchEvent,
    BenchFailure,
    BenchReport,
    BenchWarning,
    BenchWarningCode,
    Measurement,
)

__all__ = [
    "AGREEMENT_TOL", "BENCHMARKS", "BENCH_TIMEOUT_S", "DEVICES", "IMPORT_TIMEOUT_S",
    "MAX_RESTARTS",
    "NUMPY", "NUMPY_BENCHMARKS", "PRESETS", "PRESET_BENCHMARKS", "SCHEMA", "BenchEvent", "BenchFailure",
    "BenchReport", "BenchWarning", "BenchWarningCode", "Measurement",
    "run_bench",
]
