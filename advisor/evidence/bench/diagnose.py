"""Whose part it is when a framework's GEMM is far below a reference on the same device: the tool's or the framework's.

The reference is NumPy's same-size figure on the CPU; where NumPy has none (bf16, or a GPU) it is the
best other framework's figure for the same variant on the same device. The tool runs every framework's
GEMM with the same sizes, threads, warm-up and rounds, so a large gap has few possible causes, checked in
order: the machine was busy while it was measured, the framework ran with fewer threads than it was given,
the figure is too noisy to say; otherwise the gap is the framework's own (its kernel, its dispatch, its
layout: on a 2-core Xeon with AMX, JAX's bf16-1024 GEMM ran at a fifth of PyTorch's, below JAX's own fp32,
while PyTorch's bf16 ran at four times its fp32).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from advisor.evidence.bench.presets import NUMPY
from advisor.evidence.bench.results import BenchWarning, BenchWarningCode, Measurement
from advisor.evidence.bench.stats import busy_reason

#: A GEMM below this share of its reference's figure is explained in its warnings.
BELOW_SHARE = 0.8
def _half_width(m: Measurement) -> float:
    return (m.ci[1] - m.ci[0]) / 2.0 / m.value if m.ci and m.value else 0.0


def cause(m: Measurement, ref: Measurement, threads: int, cores: int) -> str:
    """One short phrase saying whose the gap is, and why (the first cause that applies)."""
    busy = busy_reason(m.machine, cores) or busy_reason(ref.machine, cores)
    if busy:
        return f"machine: it was busy ({busy})"
    got = m.environment.get("threads")
    if m.device == "cpu" and isinstance(got, int) and 0 < got < threads:
        return f"tool: it ran with {got} of {threads} threads"
    if _half_width(m) > 0.10 or _half_width(ref) > 0.10:
        return "noise: the intervals are too wide to say"
    return f"framework: same sizes, threads, warm-up and rounds as {_label(ref)}"


def _label(m: Measurement) -> str:
    return "NumPy" if m.framework == NUMPY else m.framework


def _reference(m: Measurement, results: Sequence[Measurement]) -> Measurement | None:
    same = [r for r in results if r.benchmark == "gemm" and r.device == m.device and r.variant == m.variant
            and r.framework != m.framework and r.value > 0]
    numpy = [r for r in same if r.framework == NUMPY]
    if numpy:
        return numpy[0]
    return max(same, key=lambda r: r.value, default=None)


def explain_gemm(results: Sequence[Measurement], threads: int, cores: int) -> list[Measurement]:
    """The results, with a warning on each GEMM far below its reference saying whose part it is."""
    out = []
    for m in results:
        ref = _reference(m, results) if m.framework != NUMPY and m.benchmark == "gemm" else None
        if ref is not None and m.value < BELOW_SHARE * ref.value:
            share = m.value / ref.value
            why, label = cause(m, ref, threads, cores), _label(ref)
            below = BenchWarning(
                BenchWarningCode.BELOW_REFERENCE,
                f"{share:.0%} of {label}'s: {why}",
                {"share": share, "reference": label, "cause": why},
            )
            m = replace(m, warnings=(*m.warnings, below))
        out.append(m)
    return out
