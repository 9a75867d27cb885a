"""`fwadvisor report`: probe -> bench -> score, as a Rich summary, JSON or Markdown."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for types: the core is imported at the call, so the parser stays light at start-up
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport
    from advisor.report import Report

HELP = "probe, benchmark and score the frameworks for a profile; print or save the report"


def configure(parser: argparse.ArgumentParser) -> None:
    """Flags: evidence (--preset, --no-bench, --from-json), profile (--profile, --scenario), output."""
    parser.add_argument("--profile", metavar="FILE", help="profile YAML (default: the default scenario)")
    parser.add_argument("--scenario", metavar="ID", help="scenario preset (overrides the profile's)")
    # The same names as advisor.evidence.bench.PRESETS (not imported: the CLI parser stays light at start-up).
    parser.add_argument("--preset", default="quick", choices=("test", "quick", "standard", "thorough", "fleet"),
                        help="benchmark preset (default: quick); refused before the probe runs when unknown")
    parser.add_argument("--no-bench", action="store_true", help="skip the benchmarks (the probe still runs)")
    parser.add_argument("--fresh", action="store_true", help="probe the frameworks again (do not use the probe cache)")
    parser.add_argument(
        "--from-json", metavar="REPORT", help="re-score the evidence of a saved report; measure nothing"
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the full report as JSON on stdout")
    out.add_argument("--markdown", action="store_true", help="print the report as Markdown on stdout")
    out.add_argument("--csv", action="store_true", help="print the ranking and benchmark figures as CSV (docs/csv.md)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="also write the report (Markdown if FILE ends in .md, CSV if .csv)")
    parser.add_argument("--html", nargs="?", const="-", metavar="FILE",
                        help="write the report as one offline HTML page with charts to FILE (no FILE or -: stdout)")
    parser.add_argument("--identify", action="store_true", help="include the host name in the report")
    parser.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo sensitivity analysis")


def _progress(event: Any) -> None:
    # Probe and bench events differ by kind; show the message, else who is doing what (never whole payloads).
    from advisor.cli.signals import received

    if received() is not None:
        return  # stopping: the last line on stderr says what was stopped
    text = getattr(event, "message", None)
    if not text:
        parts = [getattr(event, k, None) for k in ("kind", "framework", "name", "benchmark", "device")]
        text = " ".join(str(p) for p in parts if p)
    if text:
        print(f"  {text}", file=sys.stderr, flush=True)


def gather(
    args: argparse.Namespace, kb: Any, resolved: Any, old: Report | None = None
) -> tuple[ProbeReport | None, BenchReport | None, str | None]:
    """The evidence: from a saved report (`old`), or by running the probe and (unless --no-bench) the benchmarks."""
    if old is not None:
        from advisor.evidence.saved_report import read_evidence

        host = old.machine.hostname if args.identify else None
        # The sections as the file wrote them (exclude_unset: no nulls added for fields it lacks).
        saved_probe, saved_bench = (None if s is None else s.model_dump(mode="json", exclude_unset=True)
                                    for s in (old.probe, old.benchmarks))
        typed_probe, typed_bench = read_evidence(saved_probe, saved_bench, file=args.from_json,
                                                 identify=args.identify)
        return typed_probe, typed_bench, host
    from advisor.evidence.gather import probe_and_bench  # deferred: the probe pulls in psutil, cpuinfo, NVML
    from advisor.scoring.constraints import apply_constraints

    print("fwadvisor: probing hardware and frameworks...", file=sys.stderr, flush=True)

    def bench_start(frameworks: list[str]) -> None:
        print(f"fwadvisor: benchmarking ({args.preset}): {', '.join(frameworks)}...", file=sys.stderr, flush=True)

    found = probe_and_bench(kb=kb, preset=None if args.no_bench else args.preset, identify=args.identify,
                            fresh=args.fresh, candidates=apply_constraints(kb, resolved).candidates,
                            on_event=_progress, on_bench_start=bench_start)
    if not args.no_bench and found.bench is None:
        print("fwadvisor: no candidate framework is installed here: nothing to benchmark", file=sys.stderr)
    return found.probe, found.bench, None


def run(args: argparse.Namespace) -> int:
    """Build the report and print/write it."""
    from pathlib import Path

    from advisor.cli.output import emit_text, write_file
    from advisor.knowledge import load_knowledge
    from advisor.profile import Profile, load_profile, parse_profile, resolve_profile
    from advisor.report import build_report, load_report, to_json_text, to_markdown
    from advisor.scoring import assess

    html_out(args)  # a --html that cannot be written is refused before anything runs
    kb = load_knowledge(args.kb)
    old: Report | None = None
    if args.profile:
        profile, source = load_profile(args.profile), args.profile
        resolved = resolve_profile(profile, kb, scenario=args.scenario)  # a bad profile is reported first
        old = load_report(args.from_json) if args.from_json else None
    else:
        profile, source = Profile(), ""
        if args.from_json:
            # Without --profile a saved report is re-scored under the profile it was made with (stored in it).
            old = load_report(args.from_json)
            profile = parse_profile(old.profile.as_written, f"{args.from_json}: profile.as_written")
            source = old.profile.source or args.from_json
        resolved = resolve_profile(profile, kb, scenario=args.scenario)
    probe, bench, host = gather(args, kb, resolved, old)
    assessment = assess(kb, resolved, probe=probe, bench=bench, seed=args.seed)
    source = source or (f"scenario {resolved.scenario}" if resolved.scenario else "default")
    # build_report scrubs the home folder, user and host from every string (the source path too) unless --identify
    report = build_report(
        assessment, kb, probe=probe, bench=bench, profile_source=source, identify=args.identify, hostname=host
    )
    # stdout first, then the file: a file that cannot be written no longer takes the measured evidence with it.
    page = None
    if args.html:
        from advisor.report.html import report_html

        page = report_html(report, identify=args.identify)
    if args.json:
        emit_text(to_json_text(report))
    elif args.markdown:
        emit_text(to_markdown(report))
    elif args.csv:
        emit_text(_csv(report, args))
    elif args.html == "-":
        emit_text(page or "")
    else:
        summary(report)
    if args.output:
        suffix = Path(args.output).suffix.lower()
        md = args.markdown or suffix in (".md", ".markdown")
        as_csv = not md and (args.csv or suffix == ".csv")
        text = to_markdown(report) if md else _csv(report, args) if as_csv else to_json_text(report)
        write_file(args.output, text, what="report", rescue="report",
                   on_stdout=bool(args.json and not md and not as_csv or args.markdown and md or args.csv and as_csv))
    if page is not None and args.html != "-":
        write_file(args.html, page, what="HTML report", rescue="report")
    return 0


def _csv(report: Report, args: argparse.Namespace) -> str:
    """The ranking's and the benchmarks' figures as tidy CSV (docs/csv.md); `report` names the saved file, if any."""
    from advisor.report.csv_out import report_rows, to_csv

    return to_csv(report_rows(report, args.from_json or ""))


def html_out(args: argparse.Namespace) -> None:
    """Refuse `--html` to stdout beside another stdout format (`--json`, `--markdown`, `--csv`), and an unwritable
    `--html FILE`, before anything runs; and `--html` without matplotlib, which draws its charts."""
    from advisor.atomic import check_writable
    from advisor.errors import UsageError

    others = [f"--{f}" for f in ("json", "markdown", "csv") if getattr(args, f, False)]
    if args.html == "-" and others:
        raise UsageError(f"prints to stdout, as {others[0]} does: give --html a FILE", field="--html")
    if args.html and args.html != "-":
        check_writable(args.html, "--html")
    if args.html:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:  # the `html` extra: charts are drawn with it
            raise UsageError("draws its charts with matplotlib: pip install 'fwadvisor[html]'", field="--html")


def summary(report: Report) -> None:
    """The Rich summary on stdout: recommendation, ranking with top reasons, stability, exclusions, warnings."""
    from rich.panel import Panel
    from rich.table import Table

    from advisor.cli.output import cell, styled
    from advisor.cli.output import console as make_console
    from advisor.report.sensitivity_text import advice_change_line
    from advisor.report.words import exclusion_words, warning_items

    console = make_console()
    rec = report.recommendation
    # Text from packs and profiles is escaped (cell): no Rich markup or terminal control sequence acts from it.
    body = cell(rec.summary) + "\n\n" + "\n".join(f"• {cell(s)}" for s in rec.next_steps)
    console.print(Panel(body, title="Recommendation", title_align="left"))
    table = Table(title="Ranking (weighted sum, 0-5; TOPSIS cross-check)", title_justify="left")
    for col, just in (
        ("#", "right"),
        ("framework", "left"),
        ("score", "right"),
        ("TOPSIS", "right"),
        ("strongest criteria", "left"),
        ("evidence", "left"),
    ):
        table.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for e in report.ranking:
        top = sorted(e.contributions, key=lambda c: -c.contribution)[:2]
        # Decided on the status code, never on its words (a report from before codes shows "installed"/"knowledge").
        evidence = "measured" if e.status_code == "measured" else ("installed" if e.installed else "knowledge only")
        table.add_row(
            str(e.rank),
            cell(e.name),
            f"{e.total:.2f}",
            f"{e.topsis:.2f}",
            ", ".join(c.criterion.replace("_", " ") for c in top),
            evidence,
        )
    console.print(table)
    sens = report.sensitivity
    if sens:
        mc = sens.monte_carlo
        line = f"; {sens.winner} wins {100 * mc.win_share[sens.winner]:.0f}%"
        line += f" of {mc.draws} draws with weights ±{100 * mc.spread:.0f}%"
        change = advice_change_line(report)
        if change:
            line += f". {change}"
        console.print(styled("Stability: ", (sens.verdict, "bold"), line))
    for x in report.exclusions:
        if x.kind == "constraint":
            console.print(styled(("excluded", "yellow"), f" {cell(x.framework)}: {cell(exclusion_words(x))}"))
    for code, text in warning_items(report.warnings):
        console.print(styled(("warning", "yellow"), f" {cell('[' + code + ']')} {cell(text)}"))
