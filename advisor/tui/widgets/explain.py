"""The report's explanations as text: the breakdown of one framework's score, sensitivity, warnings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from advisor.report.words import warning_items
from advisor.scoring.explain import evidence_label, parts_text

if TYPE_CHECKING:  # only for types: the core is imported through advisor.tui.core
    from advisor.report.models import RankingEntry, Report
    from advisor.scoring.engine import AssessmentWarning

#: Decimals of the breakdown's contributions and total, the same for both so that they add up on screen.
DIGITS = 2


def sensitivity_sentence(report: Report, criteria_names: dict[str, str], change: str | None) -> str:
    """How stable the winner is, then `change`: the core's sentence on the weight (0-5) that changes the advice.

    `criteria_names` maps criterion (and framework) ids to names.
    """
    sens = report.sensitivity
    if sens is None:
        return "Sensitivity: not available in this report."
    parts = []
    winner = criteria_names.get(sens.winner, sens.winner)  # the names also hold the frameworks' display names
    if sens.verdict == "tie":
        tied = ", ".join(criteria_names.get(t, t) for t in sens.tied_with)
        parts.append(f"{winner} and {tied} are a statistical tie.")
    else:
        share = sens.monte_carlo.win_share.get(sens.winner)
        share_s = f" (wins {share:.0%} of ±20% weight perturbations)" if share is not None else ""
        parts.append(f"{winner} wins; the ranking is {sens.verdict}{share_s}.")
    if change and sens.verdict != "single":
        parts.append(change)
    return " ".join(parts)


def warning_lines(warnings: Sequence[AssessmentWarning]) -> list[str]:
    """The report's warnings as sentences, as every other shell words them (`advisor.report.words`)."""
    return [text for _code, text in warning_items(warnings)]


#: The ranking's status column per status code.
SHORT_STATUS = {
    "measured": "measured here",
    "discarded": "discarded: busy",
    "installed": "installed, not benchmarked",
    "not_installed": "knowledge only",
    "not_probed": "knowledge only",
}


def short_status(entry: RankingEntry) -> str:
    """The ranking's status column, short enough for 80 columns (the Breakdown tab has the full text)."""
    if entry.status_code is not None and entry.status_code in SHORT_STATUS:
        return SHORT_STATUS[entry.status_code]
    # A report written before status codes: its words are shown as written, up to the detail in brackets;
    # nothing is decided on them.
    return entry.status.split(" (")[0]


def breakdown(entry: RankingEntry) -> Group:
    """Contribution = weight × score per criterion, a total that visibly adds up, then each rationale."""
    table = Table(box=None, padding=(0, 1), expand=True, show_edge=False)
    table.add_column("criterion", ratio=2, overflow="fold")
    table.add_column("share", justify="right")  # of all the weights; the weights themselves are on 0-5
    table.add_column("× score", justify="right")
    table.add_column("= points", justify="right")
    shown = 0.0
    for c in entry.contributions:
        points = round(c.contribution, DIGITS)
        shown += points
        table.add_row(
            Text(c.name or c.criterion),  # a pack's criterion name is text, not markup
            f"{100 * c.weight:.1f}%",
            f"{c.score:.2f}",
            f"{points:.{DIGITS}f}",
        )
    total = round(entry.total, DIGITS)
    rest = round(total - shown, DIGITS)
    if rest:
        # Each row is rounded on its own; the remainder is shown rather than hidden.
        table.add_row(Text("rounding", style="dim"), "", "", Text(f"{rest:+.{DIGITS}f}", style="dim"))
    table.add_row(Text("total", style="bold"), "", "", Text(f"{total:.{DIGITS}f}", style="bold"))
    details = Text()
    for c in entry.contributions:
        details.append(f"\n{c.name or c.criterion}", style="bold")
        details.append(f" — knowledge {c.knowledge_score}")
        if c.measured_score is not None:
            label = evidence_label(c.evidence_source)
            details.append(f", {label} {c.measured_score:.2f} (share {c.evidence_weight:.0%})")
        if c.parts:
            details.append(f" = {parts_text(c.parts)}")
        details.append(f"\n  {c.rationale}")
        if c.evidence:
            details.append(f"\n  evidence: {c.evidence}", style="italic")
        for fig in c.figures:
            details.append(f"\n  {evidence_label(c.evidence_source)}: {_figure(fig)}")
        for src in c.sources:
            details.append(f"\n  source: {src}", style="dim")
    head = Text(f"{entry.name}: {total:.{DIGITS}f} of 5 ({entry.status})", style="bold")
    notes = Text("\n".join(entry.notes), style="italic")
    return Group(head, notes, table, details)


def _figure(fig: Any) -> str:
    if not isinstance(fig, dict):
        return str(fig)
    value = fig.get("value")
    label = " ".join(str(fig.get(k)) for k in ("benchmark", "variant", "device") if fig.get(k))
    val = f"{value:,.2f}" if isinstance(value, int | float) else str(value)
    extra = f" (ratio {fig['ratio']:.2f})" if isinstance(fig.get("ratio"), int | float) else ""
    return f"{label}: {val} {fig.get('unit', '')}{extra}".strip()
