"""Saved reports side by side (`compare --html`): what differs first, the rankings and the figures per report."""

from __future__ import annotations

import math

from advisor.report.compare import Comparison, MismatchCode
from advisor.report.html import charts
from advisor.report.html.markup import Child, Safe, el, table, texter
from advisor.report.html.page import answer_box, chart_block, document, section
from advisor.report.html.parts import Tx, num

#: How a person reads each mismatch code at the top of the page.
MISMATCH = {
    MismatchCode.PROFILE: "scored under different profiles",
    MismatchCode.KNOWLEDGE: "made with different knowledge versions",
    MismatchCode.PACKS: "made with different knowledge packs",
    MismatchCode.PRESET: "benchmarked with different presets",
    MismatchCode.TOOL: "made by different fwadvisor versions",
    MismatchCode.SCHEMA: "written in different report schema versions",
}


def compare_html(comparison: Comparison, *, identify: bool = False) -> str:
    """The page for a comparison; every string from the reports is scrubbed (unless `identify`) and escaped."""
    tx = texter(identify)
    reports = comparison.reports
    points: list[Child] = [
        f"The reports were {MISMATCH.get(m.code, str(m.code))}: "
        + "; ".join(f"{', '.join(g.labels)}: {tx(g.value)}" for g in m.groups)
        for m in comparison.mismatches
    ]
    names = {row.framework: tx(row.name) for row in comparison.ranking}
    winners = {r.winner for r in reports}
    points += [f"{r.label} ({tx(r.name)}): {names.get(r.winner, tx(r.winner)) if r.winner else 'no framework'} "
               f"({r.verdict})" for r in reports]
    first = reports[0].winner
    headline = (f"All {len(reports)} reports choose {names.get(first, tx(first))}" if len(winners) == 1 and first
                else f"{len(reports)} reports, {len(winners)} different answers")
    answer = answer_box("Comparison", headline, "differ" if comparison.mismatches else None,
                        "What differs comes first; the rows that are the same follow.", points)
    legend = section("Reports", table(
        ["", "File", "Machine", "Profile", "Knowledge", "Preset", "Answer"],
        [[r.label, tx(r.name), tx(r.machine), tx(r.profile), tx(r.knowledge), tx(r.preset or "none"),
          tx(r.winner or "none")] for r in reports]), id_="reports")
    facts = section("Facts", table(["", "Values (reports)", "Differs"], [
        [tx(f.key), "; ".join(f"{', '.join(g.labels)}: {tx(g.value)}" for g in f.groups), "yes" if f.differs else ""]
        for f in comparison.facts]), id_="facts")
    return document("fwadvisor comparison", f"{len(reports)} reports", answer, legend, _ranking(comparison, tx),
                    _figures(comparison, tx), facts, footer="fwadvisor compare")


def _ranking(comparison: Comparison, tx: Tx) -> Safe:
    labels = comparison.labels
    rows = [tx(r.name) for r in comparison.ranking]
    series: list[tuple[str, list[float]]] = [
        (label, [math.nan if (t := r.cells[i].total) is None else t for r in comparison.ranking])
        for i, label in enumerate(labels)
    ]
    svg = charts.dots("compare-ranking", "Each framework's score (0-5) in each report", rows, series,
                      "score (0-5) in each report (no dot: excluded or absent)")
    body: list[list[Child]] = [
        [tx(r.name), *(num(c.total) if c.state == "ranked" else c.state for c in r.cells), "yes" if r.differs else ""]
        for r in comparison.ranking
    ]
    return section("Scores per report", chart_block(
        svg, "Dots apart on a row: the reports score that framework differently.",
        table(["Framework", *labels, "Differs"], body)), id_="ranking")


def _figures(comparison: Comparison, tx: Tx) -> Safe | None:
    if not comparison.figures:
        return None
    labels = comparison.labels
    svgs: list[Safe] = []
    for i, f in enumerate(comparison.figures):
        if len(svgs) == 24:
            break
        title = tx(" ".join(p for p in (f.framework, f.benchmark, f.variant or "", f.device or "", f"({f.unit})"
                                        if f.unit else "") if p))
        items = [charts.Interval(label, v, note=f"{v:.3g}") for label, v in zip(labels, f.values, strict=True)
                 if v is not None]
        if len(items) >= 2:  # a figure only one report has is in the table, not charted
            svgs.append(charts.intervals(f"compare-fig-{i}", f"{title} in each report", title, items))
    body: list[list[Child]] = [
        [tx(f.framework), tx(f.benchmark), tx(f.variant or ""), tx(f.device or ""), tx(f.unit or "")]
        + [num(v, ".4g") for v in f.values] + ["yes" if f.differs else ""]
        for f in comparison.figures
    ]
    rows = table(["Framework", "Benchmark", "Variant", "Device", "Unit", *labels, "Differs"], body)
    if not svgs:
        return section("Benchmark figures per report", el("p", "No figure was measured in two reports."), rows,
                       id_="figures")
    return section("Benchmark figures per report", chart_block(
        el("div", svgs, class_="grid"),
        "One chart per figure measured in two reports or more, differing ones first (at most 24; the table has "
        "them all).", rows), id_="figures")
