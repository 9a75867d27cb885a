"""The Evidence step's results table and failure list, drawn from the bench's own models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.markup import escape

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchFailure, Measurement

RESULT_COLUMNS = ("framework", "benchmark", "dev", "value", "%peak", "IQR%")
#: Benchmark ids as the table shows them, so that "benchmark variant" fits 80 columns whole (the JSON keeps the ids).
SHORT_NAMES = {"elementwise": "elem", "train_mlp": "mlp", "train_transformer": "transformer",
               "infer_latency": "latency", "agreement": "agree", "allreduce": "allred"}
#: Variants shortened the same way (the highlighted row's detail line gives the full name).
SHORT_VARIANTS = {"mlp-step-vs-reference": "vs-float64"}
LEGEND = "IQR% = spread of the timings; ! = flagged by the core. Highlight a row for its full name and notes."


def short_name(result: Measurement) -> str:
    """ "benchmark variant" in the table's short form, never cut."""
    bench, variant = result.benchmark, result.variant
    return f"{SHORT_NAMES.get(bench, bench)} {SHORT_VARIANTS.get(variant, variant)}".strip()


def fmt(value: float | None, digits: int = 1) -> str:
    """A figure with thousands separators; a dash where there is none."""
    return "—" if value is None else f"{value:,.{digits}f}"


def result_row(r: Measurement) -> tuple[Text, ...]:
    """One figure as a row of `RESULT_COLUMNS`; `!` marks a figure the core flagged."""
    spread = ""
    if r.median_s and r.iqr_s is not None and r.median_s > 0:
        spread = f"{r.iqr_s / r.median_s * 100:.0f}"
    if r.warnings:
        spread += "!"  # the core flagged this figure (wide spread, too few samples): see the report
    return (Text(r.framework), Text(short_name(r)), Text(r.device), Text(f"{fmt(r.value)} {r.unit}", justify="right"),
            Text(fmt(r.pct_of_peak), justify="right"), Text(spread, justify="right"))


def failure_lines(failures: Sequence[BenchFailure]) -> str:
    """The failures as markup, every string from a child escaped (an error may hold brackets)."""
    lines = [
        f"[b]{escape(f.framework)}[/b] "
        + escape(f"{f.benchmark} {f.device or ''}: {f.outcome or 'failed'} — {f.error or 'no detail'}")
        for f in failures
    ]
    return "\n".join(lines) or "none"
