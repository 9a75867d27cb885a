"""`fwadvisor compare A.json B.json ...`: saved reports side by side, what differs first (`advisor.report.compare`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for types: the core is imported at the call, so the parser stays light at start-up
    from advisor.report import Report

HELP = "show saved reports side by side (machines, runs or profiles), what differs first"

#: The warning at the top of the comparison, per code (`advisor.report.compare.MismatchCode`).
MISMATCH_TEXT = {
    "profile_differs": "scored under different profiles",
    "knowledge_differs": "made with different knowledge versions",
    "packs_differ": "made with different knowledge packs",
    "preset_differs": "benchmarked with different presets",
    "tool_differs": "made by different fwadvisor versions",
    "schema_differs": "written in different report schema versions",
}


def configure(parser: argparse.ArgumentParser) -> None:
    """Two or more report files; `--all` shows what is the same too; `--json` or `--csv` for programs."""
    parser.add_argument("reports", nargs="+", metavar="REPORT.json", help="reports from `fwadvisor report --json`")
    parser.add_argument("--all", action="store_true", help="also show the rows that are the same in every report")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the comparison as JSON (fwadvisor.compare/1)")
    out.add_argument("--csv", action="store_true", help="print every report's ranking and benchmark figures as CSV")
    parser.add_argument("--html", nargs="?", const="-", metavar="FILE",
                        help="write the comparison as one offline HTML page with charts to FILE (no FILE or -: stdout)")


def _groups(groups: Any) -> str:
    return "; ".join(f"{', '.join(g.labels)}: {g.value}" for g in groups)


def _rank_cell(c: Any) -> str:
    if c.state == "ranked":
        return f"#{c.rank} {c.total:.2f}"
    return "excluded" if c.state == "excluded" else "-"


def _change(cells: list[Any]) -> str:
    totals = [c.total for c in cells]
    if len(cells) == 2:
        return f"{totals[1] - totals[0]:+.2f}" if None not in totals else "-"
    got = [t for t in totals if t is not None]
    return f"{max(got) - min(got):.2f}" if len(got) > 1 else "-"


def _figure_name(row: Any) -> str:
    parts = [row.framework, row.benchmark, row.variant or "", row.device or ""]
    return " ".join(p for p in parts if p) + (f" ({row.unit})" if row.unit else "")


def _hidden(count: int, what: str) -> str:
    return f"{count} {what} the same in every report (--all shows them)\n"


def render(comparison: Any, show_all: bool) -> list[Any]:
    """The comparison as Rich renderables: legend, warnings, differing facts, ranking and figure tables."""
    from rich import box
    from rich.table import Table

    from advisor.cli.bench_tables import fmt
    from advisor.cli.output import cell, styled

    labels = comparison.labels
    parts: list[Any] = []
    legend = Table(box=None, show_header=False, pad_edge=False, title=f"{len(labels)} reports",
                   title_justify="left")
    legend.add_column("label", style="bold", no_wrap=True)
    legend.add_column("report", overflow="fold", ratio=1)
    for r in comparison.reports:
        legend.add_row(r.label, cell(f"{r.name}: {r.machine}; profile {r.profile}; knowledge {r.knowledge}"))
    parts.append(legend)
    for m in comparison.mismatches:
        text = MISMATCH_TEXT.get(str(m.code), str(m.code))
        parts.append(styled(("warning", "bold yellow"), f" [{m.code}] the reports were {text}: {_groups(m.groups)}"))
    same = [f.key for f in comparison.facts if not f.differs]
    for f in comparison.facts:
        if f.differs or show_all:
            parts.append(styled((f"{f.key}: ", "bold"), _groups(f.groups)))
    if same and not show_all:
        parts.append(styled(("same in every report: ", "bold"), ", ".join(same)))

    def table(title: str) -> Any:
        return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)

    rows = [r for r in comparison.ranking if r.differs or show_all]
    ranking = table("Ranking: #place and score (0-5), differences first")
    ranking.add_column("framework", overflow="fold")
    for label in labels:
        ranking.add_column(label, justify="right", overflow="fold")
    ranking.add_column("B-A" if len(labels) == 2 else "range", justify="right", overflow="fold")
    for r in rows:
        ranking.add_row(cell(r.name), *(_rank_cell(c) for c in r.cells), _change(r.cells))
    if rows:
        parts.append(ranking)
    hidden = len(comparison.ranking) - len(rows)
    if hidden:
        parts.append(_hidden(hidden, "framework(s) rank"))
    if comparison.figures:
        rows_f = [r for r in comparison.figures if r.differs or show_all]
        figures = table("Benchmark figures, differences first (within 10% counts as the same)")
        figures.add_column("figure (unit)", overflow="fold")
        for label in labels:
            figures.add_column(label, justify="right", overflow="fold")
        figures.add_column("max/min", justify="right", overflow="fold")
        for r in rows_f:
            ratio = r.ratio
            figures.add_row(cell(_figure_name(r)), *("-" if v is None else fmt(v) for v in r.values),
                            "-" if ratio is None else f"{ratio:.2f}")
        if rows_f:
            parts.append(figures)
        hidden = len(comparison.figures) - len(rows_f)
        if hidden:
            parts.append(_hidden(hidden, "figure(s) are"))
    return parts


def load(paths: list[str]) -> list[tuple[str, Report]]:
    """Each file read, checked against the report schema and typed; the first bad one is one `ReportError`."""
    from advisor.errors import UsageError
    from advisor.report import load_report

    if len(paths) < 2:
        raise UsageError("compare needs at least two report files", field="reports")
    return [(p, load_report(p)) for p in paths]


def run(args: argparse.Namespace) -> int:
    """Load the reports and print the comparison (Rich tables, JSON or CSV)."""
    from advisor.cli.commands.report import html_out
    from advisor.cli.output import console, emit_text, write_file
    from advisor.report.compare import compare_reports

    html_out(args)  # refused before any file is read
    reports = load(args.reports)
    comparison = compare_reports(reports)
    if args.html:
        from advisor.report.html.compare_page import compare_html

        page = compare_html(comparison)  # scrubbed: the page is shared
        if args.html == "-":
            emit_text(page)
            return 0
        write_file(args.html, page, what="HTML comparison", rescue="comparison")
    if args.csv:
        from advisor.report.csv_out import reports_rows, to_csv

        names = {r.file: r.name for r in comparison.reports}
        emit_text(to_csv(reports_rows([(names[f], r) for f, r in reports])))
        return 0
    if args.json:
        from advisor.jsonio import json_text, model_json

        emit_text(json_text(model_json(comparison)))
        return 0
    out = console()
    for part in render(comparison, args.all):
        out.print(part)
    return 0
