"""Whose part it is when a framework's GEMM is far below NumPy's on the same machine: the tool's or the framework's.

The tool runs every framework's GEMM with the same sizes, threads, warm-up and rounds as NumPy's, so a
large gap has few possible causes, checked in order: the machine was busy while it was measured, the
framework ran with fewer threads than it was given, the figure is too noisy to say; otherwise the
gap is the framework's own (its kernel, its dispatch, its layout).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from advisor.evidence.bench.presets import NUMPY
from advisor.evidence.bench.results import Measurement
from advisor.evidence.bench.stats import busy_reason

#: A GEMM below this share of NumPy's same-size figure is explained in its warnings.
BELOW_NUMPY_SHARE = 0.8
#: Marks that warning (the CLI shortens it and explains it once under the table).
BELOW_NUMPY = " of NumPy's"


def _half_width(m: Measurement) -> float:
    return (m.ci[1] - m.ci[0]) / 2.0 / m.value if m.ci and m.value else 0.0


def cause(m: Measurement, ref: Measurement, threads: int, cores: int) -> str:
    """One short phrase saying whose the gap is, and why (the first cause that applies)."""
    busy = busy_reason(m.machine, cores) or busy_reason(ref.machine, cores)
    if busy:
        return f"machine: it was busy ({busy})"
    got = m.environment.get("threads")
    if isinstance(got, int) and 0 < got < threads:
        return f"tool: it ran with {got} of {threads} threads"
    if _half_width(m) > 0.10 or _half_width(ref) > 0.10:
        return "noise: the intervals are too wide to say"
    return "framework: same sizes, threads, warm-up and rounds as NumPy"


def explain_gemm(results: Sequence[Measurement], threads: int, cores: int) -> list[Measurement]:
    """The results, with a warning on each fp32 GEMM far below NumPy's at the same size saying whose part it is."""
    ref = {m.variant: m for m in results if m.framework == NUMPY and m.benchmark == "gemm" and m.device == "cpu"}
    out = []
    for m in results:
        base = ref.get(m.variant)
        if (m.framework != NUMPY and m.benchmark == "gemm" and m.device == "cpu" and base is not None
                and base.value > 0 and m.value < BELOW_NUMPY_SHARE * base.value):
            share = m.value / base.value
            m = replace(m, warnings=(*m.warnings, f"{share:.0%}{BELOW_NUMPY}: {cause(m, base, threads, cores)}"))
        out.append(m)
    return out
