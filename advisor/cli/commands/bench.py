"""`fwadvisor bench`: run the micro-benchmark suite through each installed framework and show the figures."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from advisor.cli.commands import bench_allreduce

HELP = "measure GEMM, memory, dispatch, conv, training, latency and all-reduce through each framework"

#: Outcomes that mean a measurement went wrong (exit status 1); "skipped" and "missing" are not errors.
_BAD_OUTCOMES = ("crashed", "timed_out", "error", "out_of_memory", "bad_output", "import_error", "mismatch")


def configure(parser: argparse.ArgumentParser) -> None:
    """Presets, selection, budget, output and the torchrun pass-through options."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", dest="preset", action="store_const", const="quick",
                      help="GEMM (4 short rounds), a*x+y, dispatch, conv (2 rounds), MLP step, agreement "
                           "(default). Measured for NumPy + PyTorch + JAX + TensorFlow: 25-29 s on a 2-core Xeon VM "
                           "(AVX-512) at load 1-1.6, 45-52 s on a 2-core EPYC VM at load 1-1.3 (82 s at load 8); "
                           "GPU only, PyTorch + JAX on an H200: 117 s")
    size.add_argument("--standard", dest="preset", action="store_const", const="standard",
                      help="everything quick leaves out (transformer block, batch-1 latency, all-reduce, "
                           "torch.compile of every model), more sizes, 3 rounds. Measured: 99 s on the Xeon VM at "
                           "load 1.2-1.9, 7.9 min on the EPYC VM at load 10-12")
    size.add_argument("--thorough", dest="preset", action="store_const", const="thorough",
                      help="the largest sizes and budgets, 5 rounds (not measured on those VMs; several times "
                           "standard)")
    size.add_argument("--preset", dest="preset", choices=("test", "quick", "standard", "thorough", "fleet"),
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
    bench_allreduce.configure(dist)


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


def rendezvous_names(args: argparse.Namespace) -> tuple[str, ...]:
    """Host names and the job id from the rendezvous flags: the bench JSON is always scrubbed of them."""
    endpoint = args.rdzv_endpoint or ""
    host = endpoint.rsplit(":", 1)[0] if endpoint.count(":") == 1 or endpoint.startswith("[") else endpoint
    return tuple(v for v in (host.strip("[]"), args.master_addr, args.rdzv_id) if v)


def run(args: argparse.Namespace) -> int:
    """Run the suite with live progress on stderr, then print tables and bars (or JSON)."""
    from advisor.cli import signals
    from advisor.cli.output import console, emit_text, write_file
    from advisor.errors import OutputError
    from advisor.evidence.bench import run_bench
    from advisor.jsonio import json_text, model_json
    from advisor.privacy import scrub

    if args.allreduce:
        return bench_allreduce.run(args)
    bench_allreduce.refuse_stray(args)
    # Numbers (--budget, --threads, --nproc, ...) and the --save path were checked in advisor.cli.checks.
    err = console(stderr=True)
    progress = signals.quiet_once_stopping(None if args.quiet else _progress_printer(err))

    # The run happens in a worker thread (advisor/cli/signals.py: the handlers end every child, the cancel
    # event stops the worker from trying the frameworks that remain).
    def work(cancel: Any) -> Any:
        return run_bench(
            preset=args.preset, frameworks=_split(args.framework) or None, only=_split(args.only) or None,
            devices=args.device or None, budget_s=args.budget, on_event=progress, cancel=cancel,
            nproc=args.nproc, rendezvous=rendezvous_args(args), threads=args.threads,
            baseline=not args.no_baseline,
        )

    report = signals.run_cancellable(work, name="fwadvisor-bench")
    data = scrub(model_json(report), drop_keys=False, hide=rendezvous_names(args))
    text = json_text(data)
    # The file is written first (rendering can fail: a closed pipe, a terminal gone), and a --save that fails
    # is rescued to the user data folder and reported after the figures have been shown.
    save_error: OutputError | None = None
    if args.save:
        try:
            write_file(args.save, text, what="bench JSON", rescue="bench")
        except OutputError as exc:
            save_error = exc
    if args.json:
        emit_text(text)
    else:
        console().print(render_report(report))
    if save_error is not None:
        raise save_error
    bad = [f for f in report.failures if f.outcome in _BAD_OUTCOMES]
    return 1 if bad or not report.results else 0


def render_report(report: Any) -> Any:
    """Every table of a bench run (see advisor/cli/bench_tables.py; Rich loads only when a table is drawn)."""
    from advisor.cli.bench_tables import render_report as render

    return render(report)


def render_measurements(rows: list[Any], title: str, peak: bool = False) -> Any:
    """One benchmark's table (see advisor/cli/bench_tables.py)."""
    from advisor.cli.bench_tables import render_measurements as render

    return render(rows, title, peak)


def _progress_printer(console: Any) -> Any:
    """An on_event callback that prints one line per figure or failure on stderr."""

    from advisor.cli.bench_tables import fmt
    from advisor.cli.output import styled  # children's messages are data: "[/..." in one prints as written

    def on_event(ev: Any) -> None:
        if ev.kind == "framework_start":
            console.print(styled((ev.framework, "bold"), f" {ev.message}…"))
        elif ev.kind == "bench_start":
            console.print(styled("  ", (f"{ev.framework} {ev.device or ''} {ev.benchmark} {ev.message}", "dim")))
        elif ev.kind == "result" and ev.measurement is not None:
            m = ev.measurement
            console.print(styled(f"    {m.device} {m.benchmark} {m.variant}: {fmt(m.value)} {m.unit}",
                                 (" !", "yellow") if m.warnings else ""))
        elif ev.kind == "failure" and ev.failure is not None:
            f = ev.failure
            style = "dim" if f.outcome in ("skipped", "missing") else "red"
            console.print(styled("    ", (f"{f.benchmark} {f.device or ''}: {f.outcome}: {f.error}", style)))
        elif ev.kind == "note":
            console.print(styled("  ", (f"{ev.framework}: {ev.message}", "yellow")))

    return on_event


if __name__ == "__main__":  # pragma: no cover - convenience for `python -m advisor.cli.commands.bench`
    sys.exit(1)
