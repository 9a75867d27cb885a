"""Rich tables of a bench run that read well in 80 columns: few columns, short names, the details left to the JSON."""

from __future__ import annotations

from typing import Any

from rich.bar import Bar
from rich.console import Group
from rich.table import Table
from rich.text import Text

from advisor.evidence.bench import BenchWarning, BenchWarningCode

TITLES = {
    "gemm": "GEMM (square matmul)", "elementwise": "Memory-bound a*x + y", "dispatch": "Dispatch overhead",
    "conv": "3x3 conv forward", "train_mlp": "Training step: MLP", "train_transformer":
    "Training step: transformer block", "infer_latency": "Batch-1 latency (p50; p90/p99 in JSON)",
    "transfer": "Host-device transfer", "allreduce": "All-reduce (bus bandwidth)",
    "agreement": "Numerical agreement (vs NumPy float64)",
}
_SHORT_BENCH = {"train_mlp": "MLP step", "train_transformer": "block step", "infer_latency": "block p50"}


def fmt(v: float | None, digits: int = 3) -> str:
    """A figure in at most a few characters."""
    if v is None:
        return "–"
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def _pct(x: object) -> str:
    return f"{100 * x:.0f}%" if isinstance(x, int | float) else ""


def short(warning: BenchWarning) -> str:
    """A few words of a warning for a table cell, from its code and parameters (the JSON keeps the sentence)."""
    p, code = warning.params, warning.code
    if code is BenchWarningCode.UNSTABLE:
        return f"unstable {_pct(p.get('rel_iqr'))}".strip()
    if code is BenchWarningCode.FEW_SAMPLES:
        return f"{p.get('samples')} samples"
    if code is BenchWarningCode.FEW_CALLS:
        return f"{p.get('calls')} calls"
    if code is BenchWarningCode.WIDE_SPREAD:
        ratio = p.get("ratio")
        return f"median {ratio:.2f}x min" if isinstance(ratio, int | float) else "wide spread"
    if code is BenchWarningCode.SHORT_BLOCKS:
        return "short blocks"
    if code is BenchWarningCode.ROUNDS_DISAGREE:
        return f"rounds {_pct(p.get('spread')) or 'differ'}"
    if code is BenchWarningCode.ABOVE_PEAK:
        return "above est. peak *"
    if code is BenchWarningCode.BELOW_REFERENCE:
        return f"{_pct(p.get('share'))} {p.get('reference')} †"
    if code in (BenchWarningCode.TIMED_ONCE, BenchWarningCode.ONE_ROUND):
        return "timed once" if code is BenchWarningCode.TIMED_ONCE else "one round"
    return warning.message[:24]


def _ci_pct(m: Any) -> str:
    if m.ci is None or not m.value:
        return "–"
    half = (m.ci[1] - m.ci[0]) / 2.0
    return f"±{100 * half / abs(m.value):.0f}%"


def render_measurements(rows: list[Any], title: str, peak: bool = False) -> Any:
    """Framework, variant, value, its 95% interval, % of peak (GEMM, conv) and short notes."""
    units = {m.unit for m in rows}
    one_unit = units.pop() if len(units) == 1 else None  # then the unit goes in the header, saving a column
    devices = {m.device for m in rows}
    one_device = devices.pop() if len(devices) == 1 else None
    table = Table(title=f"{title}, {one_device}" if one_device else title, title_justify="left")
    table.add_column("framework", no_wrap=True)
    if one_device is None:
        table.add_column("device")
    table.add_column("variant", no_wrap=True)
    table.add_column(one_unit or "value", justify="right", no_wrap=True)
    if one_unit is None:
        table.add_column("unit")
    with_ci = any(m.ci is not None for m in rows)
    if with_ci:
        table.add_column("±95%", justify="right", no_wrap=True)
    if peak:
        table.add_column("% peak", justify="right", no_wrap=True)
    table.add_column("notes", overflow="fold", min_width=12)
    for m in rows:
        cells = [m.framework, *([] if one_device else [m.device]), m.variant, fmt(m.value),
                 *([] if one_unit else [m.unit]), *([_ci_pct(m)] if with_ci else [])]
        if peak:
            cells.append("–" if m.pct_of_peak is None else f"{m.pct_of_peak:.0f}%")
        cells.append(Text("; ".join(short(w) for w in m.warnings), style="yellow"))
        table.add_row(*cells)
    captions = []
    above = next((w for m in rows for w in m.warnings if w.code is BenchWarningCode.ABOVE_PEAK), None)
    if above:
        # The whole reason once under the table rather than cut off in every row (the JSON keeps each sentence).
        captions.append(f"* above 100% of the estimated peak: the estimate is too low for this device (it assumes "
                        f"{above.params.get('assumes')}); the real clock (a boost clock, or one a VM hides) can be "
                        "higher")
    if any(w.code is BenchWarningCode.BELOW_REFERENCE for m in rows for w in m.warnings):
        captions.append("† below the named reference's figure on the same device (NumPy's, else the best "
                        "framework's); the JSON's warning says whose part the gap is")
    if captions:
        table.caption = "\n".join(captions)
        table.caption_justify = "left"
    return table


def render_compiled(report: Any) -> Any:
    """Eager against compiled for the training steps and inference latency: speed-up and compile cost."""
    table = Table(title="Eager vs compiled, ms (torch.compile, jax.jit, tf.function+XLA)", title_justify="left")
    devices = {m.device for m in report.results if m.benchmark in _SHORT_BENCH}
    cols = ["framework", *(["device"] if len(devices) > 1 else []), "workload", "eager", "compiled", "speed-up",
            "compile s"]
    for name in cols:
        table.add_column(name, justify="left" if name in ("framework", "device", "workload") else "right",
                         no_wrap=True)
    keys: dict[tuple[str, str, str], dict[str, Any]] = {}
    for m in report.results:
        if m.benchmark in _SHORT_BENCH:
            keys.setdefault((m.framework, m.device, m.benchmark), {})[m.variant] = m
    for (fw, dev, bench), v in keys.items():
        eager, comp = v.get("eager"), v.get("compiled")
        speed = eager.value / comp.value if eager and comp and comp.value > 0 else None
        table.add_row(fw, *([dev] if len(devices) > 1 else []), _SHORT_BENCH[bench],
                      fmt(eager.value) if eager else "skipped", fmt(comp.value) if comp else "skipped",
                      f"{speed:.2f}x" if speed else "–", fmt(comp.compile_s) if comp else "–")
    return table


def render_bars(report: Any) -> Any:
    """Bars: each framework's best fp32 GEMM against the estimated peak, and its best elementwise GB/s."""
    table = Table(title="Best fp32 GEMM (GFLOP/s) and a*x+y (GB/s), CPU", title_justify="left", show_header=True)
    table.add_column("framework", no_wrap=True)
    table.add_column("GEMM", justify="right", no_wrap=True)
    table.add_column("", width=20, no_wrap=True)
    table.add_column("a*x+y", justify="right", no_wrap=True)
    table.add_column("", width=10, no_wrap=True)
    peak = (report.environment.get("peak") or {}).get("fp32_gflops")
    gemm = {fw: report.best("gemm", fw, "cpu", "fp32") for fw in report.frameworks}
    ew = {fw: report.best("elementwise", fw, "cpu") for fw in report.frameworks}
    top_g = max([peak or 0.0, *[m.value for m in gemm.values() if m]], default=1.0) or 1.0
    top_e = max([m.value for m in ew.values() if m], default=1.0) or 1.0
    for fw in report.frameworks:
        g, e = gemm[fw], ew[fw]
        if g is None and e is None:
            continue
        label = "–" if g is None else fmt(g.value) + (f" ({g.pct_of_peak:.0f}%)" if g.pct_of_peak else "")
        table.add_row(fw, label, Bar(top_g, 0, g.value if g else 0, color="green"),
                      "–" if e is None else fmt(e.value), Bar(top_e, 0, e.value if e else 0, color="cyan"))
    if peak:
        table.add_row("est. peak", fmt(peak), Bar(top_g, 0, peak, color="grey50"), "", "")
    return table


def _head(report: Any) -> Text:
    env = report.environment
    peak = env.get("peak") or {}
    state = env.get("machine_state") or {}
    load = [(env.get(k) or [None])[0] for k in ("loadavg_start", "loadavg_end")]
    text = Text.assemble(
        ("fwadvisor bench ", "bold"), f"preset {report.preset}, {report.wall_s:.0f} s, {env.get('threads')} threads, ",
        f"load {fmt(load[0])} → {fmt(load[1])}\n",
        f"estimated CPU peak: {fmt(peak.get('fp32_gflops'))} GFLOP/s fp32 (how: environment.peak in the JSON)"
        if peak else "estimated CPU peak: unknown (no estimate from the hardware probe)",
    )
    gpu = env.get("gpu_peak") if isinstance(env.get("gpu_peak"), dict) else {}
    if isinstance(gpu.get("fp32_gflops"), int | float):
        text.append(f"\nestimated GPU peak ({gpu.get('name') or 'CUDA device 0'}): {fmt(gpu['fp32_gflops'])} GFLOP/s "
                    "fp32 without tensor cores (how: environment.gpu_peak)")
    if state.get("busy"):
        text.append(f"\nmachine too busy to trust: {'; '.join(state.get('reasons') or [])} during "
                    f"{state.get('busy_figures')} of {state.get('figures')} figures; a report will not use them",
                    style="bold yellow")
    return text


def render_report(report: Any) -> Any:
    """Every table of a BenchReport, grouped by benchmark, then the comparison, bars and failures."""
    parts: list[Any] = [_head(report)]
    for bench, title in TITLES.items():
        rows = report.select(bench)
        if rows:
            parts.append(render_measurements(rows, title, peak=bench in ("gemm", "conv")))
    if any(m.benchmark in _SHORT_BENCH for m in report.results):
        parts.append(render_compiled(report))
    if any(m.device == "cpu" and m.benchmark in ("gemm", "elementwise") for m in report.results):
        parts.append(render_bars(report))  # the CPU's bars: a GPU-only run would show the CPU's peak alone
    if report.failures:
        table = Table(title="Not measured", title_justify="left")
        for name in ("framework", "benchmark", "outcome", "reason"):
            table.add_column(name, overflow="fold", no_wrap=name == "framework")
        for f in report.failures:
            style = "dim" if f.outcome in ("skipped", "missing") else "red"
            where = f.benchmark if not f.device or f.device == "cpu" else f"{f.benchmark}@{f.device}"
            table.add_row(f.framework, where, Text(f.outcome, style=style), f.error)
        parts.append(table)
    return Group(*parts)
