"""Reports as tidy CSV: one row per figure (a rank, a score, a benchmark value), each with its unit.

The header is the same for every table (docs/csv.md), so the CSV of many reports, or of a report and a
fleet, can be concatenated and filtered in a spreadsheet or with `csv.DictReader`. Text from outside (file
names, framework ids, variants, units) that a spreadsheet would run as a formula is prefixed with `'`
(see `cell`); numbers are written by this module and left as numbers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, fields

from advisor.report.models import Report
from advisor.report_evidence import ResultShape
from advisor.sanitize import one_line

#: A cell starting with one of these is a formula (or a DDE command) to Excel, LibreOffice and Google Sheets
#: (OWASP, "CSV Injection"); tab and carriage return, which start one after trimming, never reach a cell raw.
FORMULA_START = ("=", "+", "-", "@")

#: The unit of each ranking figure (the benchmark figures carry their own).
RANK_UNITS = {"rank": "position", "score": "points (0-5)", "topsis": "closeness (0-1)"}


@dataclass(frozen=True)
class CsvRow:
    """One figure. Field order is the CSV header's order."""

    report: str
    table: str  # "ranking" | "benchmark"
    framework: str
    device: str
    benchmark: str
    variant: str
    metric: str
    value: float | int | None
    unit: str
    ci95_low: float | None
    ci95_high: float | None
    pct_of_peak: float | None
    status: str  # ranking: the framework's status code; benchmark: its warning codes, space-separated


HEADER: tuple[str, ...] = tuple(f.name for f in fields(CsvRow))


def cell(value: object) -> str:
    """One CSV cell: a number as written by Python, text from outside never read as a formula.

    A leading `'` is what the spreadsheets themselves use to mark "text, not a formula", and it survives a
    save; quoting alone does not help, because the CSV quotes are gone once the file is parsed. The cost is
    a visible `'` in such cells; a program reading the CSV can drop it where it sees `'` before = + - @.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = one_line(str(value))  # a tab, newline or ESC from input is shown as \xNN, as everywhere else
    return "'" + text if text.startswith(FORMULA_START) else text


def ranking_rows(report: Report, source: str = "") -> list[CsvRow]:
    """Rank, score (0-5) and TOPSIS closeness of every ranked framework."""
    out = []
    for e in report.ranking:
        for metric, value in (("rank", e.rank), ("score", e.total), ("topsis", e.topsis)):
            out.append(CsvRow(source, "ranking", e.framework, "", "", "", metric, value, RANK_UNITS[metric],
                              None, None, None, e.status_code or ""))
    return out


def _figure(source: str, x: ResultShape) -> CsvRow:
    low, high = (x.ci[0], x.ci[1]) if x.ci else (None, None)
    codes = " ".join(w.code for w in x.warning_codes or [])
    return CsvRow(source, "benchmark", x.framework, x.device or "", x.benchmark, x.variant or "", x.metric or "",
                  x.value, x.unit or "", low, high, x.pct_of_peak, codes)


def benchmark_rows(report: Report, source: str = "") -> list[CsvRow]:
    """Every benchmark figure of the report, with its unit, 95% interval and share of the estimated peak."""
    results = report.benchmarks.results if report.benchmarks else None
    return [_figure(source, x) for x in results or []]


def report_rows(report: Report, source: str = "") -> list[CsvRow]:
    """The ranking's figures, then the benchmark figures."""
    return ranking_rows(report, source) + benchmark_rows(report, source)


def reports_rows(reports: Sequence[tuple[str, Report]]) -> list[CsvRow]:
    """Several reports' rows, each named by its `source` (compare passes the file's short name)."""
    return [row for source, report in reports for row in report_rows(report, source)]


def to_csv(rows: Iterable[CsvRow]) -> str:
    """The rows under the one header, written by the `csv` module (RFC 4180 quoting, `\\n` line ends).

    `\\n` rather than RFC 4180's `\\r\\n`: the text goes through the terminal-safe writer, which shows a bare
    carriage return as `\\x0d`, and every CSV reader (Python's, spreadsheets, pandas) takes either.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows([cell(v) for v in astuple(row)] for row in rows)
    return buffer.getvalue()
