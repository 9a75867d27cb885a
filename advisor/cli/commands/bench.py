"""`fwadvisor bench`: run the micro-benchmark suite through each installed framework and show the figures."""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "measure GEMM, memory, dispatch, conv, training, latency and all-reduce through each framework"

#: Outcomes that mean a measurement went wrong (exit status 1); "skipped" and "missing" are not errors.
_BAD_OUTCOMES = ("crashed", "timed_out", "error", "out_of_memory", "bad_output", "import_error", "mismatch")


def configure(parser: argparse.ArgumentParser) -> None:
    """Presets, selection, budget, output and the torchrun pass-through options."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", dest="preset", action="store_const", const="quick",
                      help="a few seconds of measuring per framework (default)")
    size.add_argument("--standard", dest="preset", action="store_const", const="standard",
                      help="more sizes and longer budgets (a few minutes), torch.compile of every model")
    size.add_argument("--thorough", dest="preset", action="store_const", const="thorough",
                      help="the largest sizes and budgets")
    size.add_argument("--preset", dest="preset", choices=("test", "quick", "standard", "thorough"),
                      help="name the preset (test = tiny sizes, for checks)")
    parser.set_defaults(preset="quick")
    parser.add_argument("--only", action="append", default=[], metavar="BENCH",
                        help="run only this benchmark (repeatable or comma-separated): gemm, elementwise, dispatch, "
                             "conv, train_mlp, train_transformer, infer_latency, transfer, allreduce, agreement")
    parser.add_argument("--framework", action="append", default=[], metavar="ID",
                        help="benchmark only this framework (repeatable; default: every adapter)")
    parser.add_argument("--device", action="append", default=[], choices=("cpu", "gpu", "tpu"),
                        help="measure only on this device kind (repeatable; default: every device found)")
    parser.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                        help="measuring time for the whole run, split over frameworks and benchmarks "
                             "(imports and compiles come on top)")
    parser.add_argument("--threads", type=int, default=None, help="threads per framework (default: usable cores)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the plain NumPy baseline child")
    parser.add_argument("--json", action="store_true", help="print the bench JSON on stdout (progress on stderr)")
    parser.add_argument("--save", metavar="FILE", help="also write the bench JSON to FILE")
    parser.add_argument("--quiet", action="store_true", help="no live progress on stderr")
    dist = parser.add_argument_group("all-reduce (torchrun pass-through; loopback by default)")
    dist.add_argument("--nproc", type=int, default=2, help="processes (torchrun) and JAX host devices (default 2)")
    dist.add_argument("--nnodes", help="torchrun --nnodes (e.g. 2 or 1:4)")
    dist.add_argument("--node-rank", type=int, help="torchrun --node-rank")
    dist.add_argument("--rdzv-endpoint", help="torchrun --rdzv-endpoint HOST:PORT")
    dist.add_argument("--rdzv-backend", help="torchrun --rdzv-backend (default c10d when an endpoint is given)")
    dist.add_argument("--rdzv-id", help="torchrun --rdzv-id (the same on every node)")
    dist.add_argument("--master-addr", help="torchrun --master-addr (static rendezvous)")
    dist.add_argument("--master-port", type=int, help="torchrun --master-port (static rendezvous)")


def _split(values: list[str]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def rendezvous_args(args: argparse.Namespace) -> list[str]:
    """torchrun options from the pass-through flags ([] = single node, `--standalone`)."""
    out: list[str] = []
    if args.nnodes:
        out.append(f"--nnodes={args.nnodes}")
    if args.node_rank is not None:
        out.append(f"--node-rank={args.node_rank}")
    if args.rdzv_endpoint:
        out += [f"--rdzv-endpoint={args.rdzv_endpoint}", f"--rdzv-backend={args.rdzv_backend or 'c10d'}"]
    elif args.rdzv_backend:
        out.append(f"--rdzv-backend={args.rdzv_backend}")
    if args.rdzv_id:
        out.append(f"--rdzv-id={args.rdzv_id}")
    if args.master_addr:
        out.append(f"--master-addr={args.master_addr}")
    if args.master_port is not None:
        out.append(f"--master-port={args.master_port}")
    if out and not args.nnodes:
        out.insert(0, "--nnodes=1")
    return out


def run(args: argparse.Namespace) -> int:
    """Run the suite with live progress on stderr, then print tables and bars (or JSON)."""
    import threading

    from advisor.cli.output import console, emit_text, write_file
    from advisor.evidence.bench import run_bench
    from advisor.jsonio import json_text
    from advisor.privacy import scrub

    # Numbers (--budget, --threads, --nproc, ...) and the --save path were checked in advisor.cli.checks.
    err = console(stderr=True)
    cancel = threading.Event()
    progress = None if args.quiet else _progress_printer(err)
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["report"] = run_bench(
                preset=args.preset, frameworks=_split(args.framework) or None, only=_split(args.only) or None,
                devices=args.device or None, budget_s=args.budget, on_event=progress, cancel=cancel,
                nproc=args.nproc, rendezvous=rendezvous_args(args), threads=args.threads,
                baseline=not args.no_baseline,
            )
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread below
            outcome["error"] = exc

    # The run happens in a worker thread so that Ctrl-C (delivered to the main thread) can set the
    # cancel event: the children run in their own sessions and would not see the interrupt.
    worker = threading.Thread(target=work, name="fwadvisor-bench", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        cancel.set()
        worker.join(30)
        raise
    if "error" in outcome:
        raise outcome["error"]
    report = outcome["report"]
    data = scrub(report.to_json(), drop_keys=False)
    text = json_text(data)
    # The measurements go out first: a --save that fails afterwards (full disk, a folder) loses nothing.
    if args.json:
        emit_text(text)
    else:
        console().print(render_report(report))
    if args.save:
        write_file(args.save, text, what="bench JSON", rescue="bench")
    bad = [f for f in report.failures if f.outcome in _BAD_OUTCOMES]
    return 1 if bad or not report.results else 0


def _progress_printer(console: Any) -> Any:
    """An on_event callback that prints one line per figure or failure on stderr."""

    def on_event(ev: Any) -> None:
        if ev.kind == "framework_start":
            console.print(f"[bold]{ev.framework}[/] {ev.message}…")
        elif ev.kind == "bench_start":
            console.print(f"  [dim]{ev.framework} {ev.device or ''} {ev.benchmark} {ev.message}[/]", highlight=False)
        elif ev.kind == "result" and ev.measurement is not None:
            m = ev.measurement
            console.print(f"    {m.device} {m.benchmark} {m.variant}: {_fmt(m.value)} {m.unit}"
                          + (" [yellow]![/]" if m.warnings else ""), highlight=False)
        elif ev.kind == "failure" and ev.failure is not None:
            f = ev.failure
            style = "dim" if f.outcome in ("skipped", "missing") else "red"
            console.print(f"    [{style}]{f.benchmark} {f.device or ''}: {f.outcome}: {f.error}[/]", highlight=False)
        elif ev.kind == "note":
            console.print(f"  [yellow]{ev.framework}: {ev.message}[/]", highlight=False)

    return on_event


def _fmt(v: float | None, digits: int = 3) -> str:
    if v is None:
        return "–"
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def _short(warning: str) -> str:
    """A few words of a warning for a table cell (the JSON keeps the whole sentence)."""
    words = warning.replace(":", "").split()
    if warning.startswith("unstable"):
        return "unstable " + next((w for w in words if w.endswith("%")), "")
    if warning.startswith("only") and "sample" in warning:
        return f"{words[1]} samples"
    if warning.startswith("only") and "calls" in warning:
        return f"{words[1]} calls"
    if warning.startswith("median is"):
        return f"median {words[2]} min"
    if warning.startswith("blocks of"):
        return "short blocks"
    from advisor.evidence.bench import ABOVE_PEAK

    if ABOVE_PEAK in warning:
        return "above est. peak *"
    return warning[:30]


def render_measurements(rows: list[Any], title: str, peak: bool = False) -> Any:
    """A Rich table of Measurements: value, spread, samples, % of peak, compile time, warnings."""
    from rich.table import Table

    units = {m.unit for m in rows}
    one_unit = units.pop() if len(units) == 1 else None  # then the unit goes in the header, saving a column
    devices = {m.device for m in rows}
    one_device = devices.pop() if len(devices) == 1 else None
    table = Table(title=f"{title}, {one_device}" if one_device else title, title_justify="left")
    table.add_column("framework", no_wrap=True)
    if one_device is None:
        table.add_column("device")
    table.add_column("variant")
    table.add_column(one_unit or "value", justify="right")
    if one_unit is None:
        table.add_column("unit")
    table.add_column("±IQR", justify="right")
    table.add_column("n", justify="right")
    if peak:
        table.add_column("% peak", justify="right")
    if any(m.compile_s is not None for m in rows):
        table.add_column("compile s", justify="right")
    table.add_column("notes", overflow="fold", min_width=12)
    for m in rows:
        rel = m.rel_iqr
        cells = [m.framework, *([] if one_device else [m.device]), m.variant, _fmt(m.value),
                 *([] if one_unit else [m.unit]), "–" if rel is None else f"{rel:.0%}", str(m.samples)]
        if peak:
            cells.append("–" if m.pct_of_peak is None else f"{m.pct_of_peak:.0f}%")
        if any(r.compile_s is not None for r in rows):
            cells.append(_fmt(m.compile_s))
        cells.append("[yellow]" + "; ".join(_short(w) for w in m.warnings) + "[/]" if m.warnings else "")
        table.add_row(*cells)
    from advisor.evidence.bench import ABOVE_PEAK

    above = next((w for m in rows for w in m.warnings if ABOVE_PEAK in w), None)
    if above:
        # The whole reason once under the table rather than cut off in every row (the JSON keeps each sentence).
        reason = above.split(": ", 1)[-1]
        table.caption = (
            f"* above 100% of the estimated peak: {reason}; the real clock (a boost clock, or one a VM hides) "
            "can be higher"
        )
        table.caption_justify = "left"
    return table


_SHORT_BENCH = {"train_mlp": "MLP step", "train_transformer": "block step", "infer_latency": "block b=1 p50"}


def render_compiled(report: Any) -> Any:
    """Eager against compiled for the training steps and inference latency: speed-up and compile cost."""
    from rich.table import Table

    table = Table(title="Eager vs compiled (torch.compile / jax.jit / tf.function(jit_compile=True)), ms",
                  title_justify="left")
    for name in ("framework", "device", "workload", "eager", "compiled", "speed-up", "compile s", "break-even"):
        table.add_column(name, justify="left" if name in ("framework", "device", "workload") else "right",
                         no_wrap=name == "framework")
    keys: dict[tuple[str, str, str], dict[str, Any]] = {}
    for m in report.results:
        if m.benchmark in _SHORT_BENCH:
            keys.setdefault((m.framework, m.device, m.benchmark), {})[m.variant] = m
    for (fw, dev, bench), v in keys.items():
        eager, comp = v.get("eager"), v.get("compiled")
        speed = eager.value / comp.value if eager and comp and comp.value > 0 else None
        payoff = "–"
        if eager and comp and comp.compile_s is not None and eager.value > comp.value:
            saved_s = (eager.value - comp.value) / 1e3  # both in ms
            payoff = f"{comp.compile_s / saved_s:,.0f} calls"
        elif eager and comp:
            payoff = "no gain"
        table.add_row(fw, dev, _SHORT_BENCH[bench], _fmt(eager.value) if eager else "skipped",
                      _fmt(comp.value) if comp else "skipped", f"{speed:.2f}x" if speed else "–",
                      _fmt(comp.compile_s) if comp else "–", payoff)
    return table


def render_bars(report: Any) -> Any:
    """Bars: each framework's best fp32 GEMM against the estimated peak, and its best elementwise GB/s."""
    from rich.bar import Bar
    from rich.table import Table

    table = Table(title="Best fp32 GEMM (GFLOP/s) and a*x+y (GB/s), CPU", title_justify="left", show_header=True)
    table.add_column("framework", no_wrap=True)
    table.add_column("GEMM fp32", justify="right", no_wrap=True)
    table.add_column("", width=24, no_wrap=True)
    table.add_column("a*x+y", justify="right")
    table.add_column("", width=12, no_wrap=True)
    peak = (report.environment.get("peak") or {}).get("fp32_gflops")
    gemm = {fw: report.best("gemm", fw, "cpu", "fp32") for fw in report.frameworks}
    ew = {fw: report.best("elementwise", fw, "cpu") for fw in report.frameworks}
    top_g = max([peak or 0.0, *[m.value for m in gemm.values() if m]], default=1.0) or 1.0
    top_e = max([m.value for m in ew.values() if m], default=1.0) or 1.0
    for fw in report.frameworks:
        g, e = gemm[fw], ew[fw]
        if g is None and e is None:
            continue
        label = "–" if g is None else _fmt(g.value) + (f" ({g.pct_of_peak:.0f}%)" if g.pct_of_peak else "")
        table.add_row(fw, label, Bar(top_g, 0, g.value if g else 0, color="green"),
                      "–" if e is None else _fmt(e.value), Bar(top_e, 0, e.value if e else 0, color="cyan"))
    if peak:
        table.add_row("est. peak", _fmt(peak), Bar(top_g, 0, peak, color="grey50"), "", "")
    return table


def render_report(report: Any) -> Any:
    """Every table of a BenchReport, grouped by benchmark, then the comparison, bars and failures."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    env = report.environment
    peak = env.get("peak") or {}
    head = Text.assemble(
        ("fwadvisor bench ", "bold"), f"preset {report.preset}, {report.wall_s:.1f} s, ",
        f"{env.get('threads')} threads, load {env.get('loadavg_start')} → {env.get('loadavg_end')}\n",
        f"estimated CPU peak: {_fmt(peak.get('fp32_gflops'))} GFLOP/s fp32 ({peak.get('formula', 'unknown')})"
        if peak else "estimated CPU peak: unknown (no estimate from the hardware probe)",
    )
    parts: list[Any] = [head]
    titles = {
        "gemm": "GEMM (square matmul)", "elementwise": "Memory-bound a*x + y", "dispatch": "Dispatch overhead",
        "conv": "3x3 conv forward", "train_mlp": "Training step: MLP", "train_transformer":
        "Training step: transformer block", "infer_latency": "Batch-1 inference latency (p50; p90/p99 in JSON)",
        "transfer": "Host↔device transfer", "allreduce": "All-reduce (bus bandwidth)",
        "agreement": "Numerical agreement (MLP step vs NumPy float64)",
    }
    for bench, title in titles.items():
        rows = report.select(bench)
        if rows:
            parts.append(render_measurements(rows, title, peak=bench in ("gemm", "conv")))
    if any(m.benchmark in ("train_mlp", "train_transformer", "infer_latency") for m in report.results):
        parts.append(render_compiled(report))
    if report.select("gemm") or report.select("elementwise"):
        parts.append(render_bars(report))
    if report.failures:
        table = Table(title="Not measured", title_justify="left")
        for name in ("framework", "benchmark", "device", "outcome", "reason"):
            table.add_column(name, overflow="fold")
        for f in report.failures:
            style = "dim" if f.outcome in ("skipped", "missing") else "red"
            table.add_row(f.framework, f.benchmark, f.device or "–", f"[{style}]{f.outcome}[/]", f.error)
        parts.append(table)
    return Group(*parts)


if __name__ == "__main__":  # pragma: no cover - convenience for `python -m advisor.cli.commands.bench`
    sys.exit(1)
