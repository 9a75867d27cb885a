"""The parts a report page and a team decision page share: scores, sensitivity, benchmarks, notes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from advisor.errors import ReportError
from advisor.profile import WEIGHT_SCALE_MAX
from advisor.report.html import charts
from advisor.report.html.markup import Cell, Child, Safe, el, join, table
from advisor.report.html.page import chart_block, section
from advisor.report.models import RankingEntry
from advisor.report.words import exclusion_words, warning_items
from advisor.report_evidence import BenchShape
from advisor.scoring.advice import Recommendation
from advisor.scoring.constraints import Exclusion
from advisor.scoring.engine import AssessmentWarning
from advisor.scoring.explain import display_parts, evidence_label, parts_text
from advisor.scoring.sensitivity import Sensitivity, advice_change_sentence

Tx = Callable[[Any], str]


def names_of(ranking: Sequence[RankingEntry]) -> dict[str, str]:
    """Display names of the frameworks and criteria, by id."""
    names: dict[str, str] = {}
    for entry in ranking:
        names[entry.framework] = entry.name
        names.update({c.criterion: c.name for c in entry.contributions})
    return names


def num(value: float | None, fmt: str = ".2f") -> Cell:
    """A number in a right-aligned cell; an empty cell when unknown."""
    return Cell(el("td", "" if value is None else format(value, fmt), class_="num"))


def why(rec: Recommendation, ranking: Sequence[RankingEntry], sens: Sensitivity | None,
        tx: Tx) -> list[Child]:
    """The reasons under the answer: the lead, the criteria that make it, and what single weight would change it."""
    points: list[Child] = []
    names = {k: tx(v) for k, v in names_of(ranking).items()}
    if len(ranking) >= 2 and ranking[0].framework == rec.framework:
        first, second = ranking[0], ranking[1]
        points.append(f"Score {first.total:.2f} of 5, {first.total - second.total:.2f} ahead of "
                      f"{names[second.framework]} ({second.total:.2f}).")
        theirs = {c.criterion: c.contribution for c in second.contributions}
        gains = sorted(((c.contribution - theirs.get(c.criterion, 0.0), c) for c in first.contributions),
                       key=lambda g: -g[0])
        best = [f"{names[c.criterion]} (+{d:.2f})" for d, c in gains[:3] if d > 0.005]
        if best:
            points.append("Where it gains most over " + names[second.framework] + ": " + ", ".join(best) + ".")
    if sens is not None:
        mc = sens.monte_carlo
        share = mc.win_share.get(sens.winner)
        if share is not None:
            points.append(f"Wins {100 * share:.0f}% of {mc.draws} draws with every weight moved by up to "
                          f"±{100 * mc.spread:.0f}%.")
        if "advice_change" in sens.model_fields_set:
            points.append(advice_change_sentence(sens.advice_change, names))
    return points


def scores(ranking: Sequence[RankingEntry], tx: Tx) -> Safe:
    """Each framework's score as its stacked criterion contributions, and the same as a table."""
    if not ranking:
        return section("Scores", el("p", "No framework was scored."), id_="scores")
    criteria = [(c.criterion, tx(c.name)) for c in ranking[0].contributions]
    rows = []
    for e in ranking:
        by = {c.criterion: c.contribution for c in e.contributions}
        rows.append((tx(e.name), [by.get(cid, 0.0) for cid, _ in criteria]))
    svg = charts.stacked("scores", "Each framework's score (0-5) as the sum of its weighted criterion scores",
                         rows, [n for _, n in criteria], "score (0-5): weighted criterion contributions", 5.0)
    head = ["#", "Framework", "Score (0-5)", "TOPSIS", "Status"] + [n for _, n in criteria]
    body = []
    for e in ranking:
        parts, total = display_parts([c.contribution for c in e.contributions])
        shown = {c.criterion: p for c, p in zip(e.contributions, parts, strict=True)}
        body.append([str(e.rank), tx(e.name), num(total), num(e.topsis),
                     tx(e.status)] + [num(shown.get(cid)) for cid, _ in criteria])
    detail = [_breakdown(e, tx) for e in ranking]
    return section(
        "Scores",
        chart_block(svg, "Longer is better; each colour is one criterion's weighted contribution.",
                    table(head, body, cls="scores")),
        el("details", el("summary", "Each framework's breakdown: weight, score and evidence per criterion"), detail),
        id_="scores",
    )


def _breakdown(e: RankingEntry, tx: Tx) -> Safe:
    parts, total = display_parts([c.contribution for c in e.contributions])
    rows: list[list[Child]] = []
    for c, shown in zip(e.contributions, parts, strict=True):
        measured = (f"knowledge {c.knowledge_score:g}, {evidence_label(c.evidence_source)} {c.measured_score:.2f}"
                    if c.measured_score is not None else "knowledge")
        if c.parts:
            measured = f"{measured}: {parts_text(c.parts)}"
        rows.append([tx(c.name), f"{100 * c.weight:.0f}%", num(c.score), measured, num(shown), tx(c.evidence)])
    rows.append(["Total", "100%", "", "", num(total), ""])
    return join(el("h3", f"{tx(e.name)}: {total:.2f}"),
                table(["Criterion", "Share of weight", "Score", "From", "Contribution", "Evidence"], rows),
                el("ul", [el("li", tx(n)) for n in e.notes]) if e.notes else None)


def sensitivity(sens: Sensitivity | None, ranking: Sequence[RankingEntry], tx: Tx) -> Safe | None:
    """How far each weight must move (0-5 scale) to change the winner, as arrows and as a table."""
    if sens is None:
        return None
    names = {k: tx(v) for k, v in names_of(ranking).items()}
    moves = [charts.Move(names.get(t.criterion, tx(t.criterion)), t.value_now, max(t.value, 0.0),
                         f"{names.get(t.new_winner, tx(t.new_winner))} wins at {t.value:.2f}")
             for t in sens.thresholds if t.value_now is not None and t.value is not None]
    rows: list[list[Child]] = [
        [names.get(t.criterion, tx(t.criterion)), num(t.value_now), num(t.value),
         num(None if t.value is None or t.value_now is None else t.value - t.value_now),
         names.get(t.new_winner, tx(t.new_winner))]
        for t in sens.thresholds
    ]
    rows += [[names.get(c, tx(c)), "", "never (no weight from 0 up changes it)", "", ""] for c in sens.no_threshold]
    head = ["Criterion", "Weight now (0-5)", "Winner changes at", "Move", "New winner"]
    lead = (f"{names.get(sens.winner, tx(sens.winner))} leads {names.get(sens.runner_up, tx(sens.runner_up))} "
            f"by {sens.gap:.3f}" if sens.runner_up else "One candidate only")
    parts: list[Child] = [el("p", f"Verdict: {sens.verdict}. {lead}.")]
    if moves:
        svg = charts.moves("sensitivity", "How far each weight must move, on the 0-5 scale, to change the winner",
                           moves, WEIGHT_SCALE_MAX)
        parts.append(chart_block(svg, "Each weight alone, the others unchanged: the shorter the arrow, the more "
                                      "fragile the answer.",
                                 table(head, rows)))
    else:
        parts.append(table(head, rows))
    return section("What would change the answer", parts, id_="sensitivity")


def benchmarks(bench: BenchShape | None, tx: Tx) -> Safe:
    """The figures measured here with their 95% intervals and share of peak, as panels and as a table."""
    from advisor.evidence.bench.results import Measurement  # the typed result; reads `ci` the bench wrote

    if bench is None or not bench.results:
        return section("Benchmarks", el("p", "No benchmark was run for this report."), id_="benchmarks")
    figures: list[Measurement] = []
    for r in bench.results:
        try:
            figures.append(Measurement.from_json(r.model_dump()))
        except ReportError:
            continue  # a partial figure from an old report: shown in the JSON, not charted
    groups: dict[tuple[str, str, str, str], list[Measurement]] = {}
    for m in figures:
        groups.setdefault((m.benchmark, m.variant, m.device, m.unit), []).append(m)
    svgs = []
    for n, ((b, v, d, u), ms) in enumerate(groups.items()):
        better = "higher" if ms[0].higher_is_better else "lower"
        items = [charts.Interval(tx(m.framework), m.value, m.ci[0] if m.ci else None, m.ci[1] if m.ci else None,
                                 _note(m)) for m in ms]
        title = tx(f"{b} {v} on {d} ({u}, {better} is better)")
        svgs.append(charts.intervals(f"bench-{n}", f"Benchmark {title}: figures with 95% intervals", title, items))
    rows = [[tx(m.framework), tx(m.benchmark), tx(m.variant), tx(m.device), num(m.value, ".4g"), tx(m.unit),
             "" if m.ci is None else f"{m.ci[0]:.4g} to {m.ci[1]:.4g}",
             num(m.pct_of_peak, ".1f"), str(m.samples), "; ".join(tx(w.message) for w in m.warnings)]
            for m in figures]
    grid = el("div", svgs, class_="grid")
    return section(
        "Benchmarks",
        el("p", f"Preset {tx(bench.preset or 'unknown')}; {len(figures)} figure(s). Error bars: 95% interval "
                "where the benchmark computed one; (!) marks a figure that came with a warning."),
        chart_block(grid, "One chart per benchmark; the note after each bar gives the figure and its share of "
                         "the machine's estimated peak.",
                    table(["Framework", "Benchmark", "Variant", "Device", "Value", "Unit", "95% interval",
                           "% of peak", "Samples", "Warnings"], rows)),
        id_="benchmarks",
    )


def _note(m: Any) -> str:
    text = f"{m.value:.3g} {m.unit}"
    if m.pct_of_peak is not None:
        text += f", {m.pct_of_peak:.0f}% of peak"
    return text + (" (!)" if m.warnings else "")


def notes(exclusions: Sequence[Exclusion], warnings: Sequence[AssessmentWarning], tx: Tx) -> Safe | None:
    """Frameworks left out and the warnings, each with its code."""
    if not exclusions and not warnings:
        return None
    return section(
        "Left out and warnings",
        table(["Framework", "Why left out"], [[tx(x.framework), tx(exclusion_words(x))] for x in exclusions])
        if exclusions else None,
        el("ul", [el("li", el("code", tx(code)), " ", tx(text), class_="warn")
                  for code, text in warning_items(warnings)])
        if warnings else None,
        id_="notes",
    )
