"""The report's explanations as text: the breakdown of one framework's score, sensitivity, warnings."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from advisor.scoring.explain import evidence_label, parts_text
from advisor.tui.widgets.ranking import entry_name, entry_score

#: Decimals of the breakdown's contributions and total, the same for both so that they add up on screen.
DIGITS = 2


def sensitivity_sentence(report: dict[str, Any], criteria_names: dict[str, str], change: str | None) -> str:
    """How stable the winner is, then `change`: the core's sentence on the weight (0-5) that changes the advice.

    `criteria_names` maps criterion (and framework) ids to names.
    """
    sens = report.get("sensitivity")
    if not isinstance(sens, dict) or not sens:
        return "Sensitivity: not available in this report."
    parts = []
    verdict = sens.get("verdict")
    winner_id = sens.get("winner")
    winner = criteria_names.get(str(winner_id), winner_id)  # the names also hold the frameworks' display names
    if verdict == "tie":
        tied = ", ".join(criteria_names.get(t, t) for t in sens.get("tied_with") or [])
        parts.append(f"{winner} and {tied} are a statistical tie.")
    elif verdict:
        share = (sens.get("monte_carlo") or {}).get("win_share", {}).get(winner_id)
        share_s = f" (wins {share:.0%} of ±20% weight perturbations)" if isinstance(share, int | float) else ""
        parts.append(f"{winner} wins; the ranking is {verdict}{share_s}.")
    if change and verdict != "single":
        parts.append(change)
    return " ".join(parts) or "Sensitivity: not available in this report."


def warning_text(warning: Any) -> str:
    """A report warning as a sentence: its message, prefixed by the framework it is about."""
    if not isinstance(warning, dict):
        return str(warning)
    message = str(warning.get("message") or warning.get("code") or "")
    framework = warning.get("framework")
    if isinstance(framework, str) and not message.startswith(f"{framework}:"):
        message = f"{framework}: {message}"
    return message


#: The ranking's status column per status code.
SHORT_STATUS = {
    "measured": "measured here",
    "discarded": "discarded: busy",
    "installed": "installed, not benchmarked",
    "not_installed": "knowledge only",
    "not_probed": "knowledge only",
}


def short_status(entry: dict[str, Any]) -> str:
    """The ranking's status column, short enough for 80 columns (the Breakdown tab has the full text)."""
    code = entry.get("status_code")
    if code in SHORT_STATUS:
        return SHORT_STATUS[code]
    # A report written before status codes: its words are shown as written, up to the detail in brackets;
    # nothing is decided on them.
    return str(entry.get("status", "")).split(" (")[0]


def breakdown(entry: dict[str, Any]) -> Group:
    """Contribution = weight × score per criterion, a total that visibly adds up, then each rationale."""
    contributions = entry.get("contributions") or []
    table = Table(box=None, padding=(0, 1), expand=True, show_edge=False)
    table.add_column("criterion", ratio=2, overflow="fold")
    table.add_column("share", justify="right")  # of all the weights; the weights themselves are on 0-5
    table.add_column("× score", justify="right")
    table.add_column("= points", justify="right")
    shown = 0.0
    for c in contributions:
        points = round(float(c.get("contribution", 0)), DIGITS)
        shown += points
        table.add_row(
            Text(str(c.get("name") or c.get("criterion"))),  # a pack's criterion name is text, not markup
            f"{100 * float(c.get('weight', 0)):.1f}%",
            f"{float(c.get('score', 0)):.2f}",
            f"{points:.{DIGITS}f}",
        )
    score = entry_score(entry)
    if score is not None:
        total = round(score, DIGITS)
        rest = round(total - shown, DIGITS)
        if rest:
            # Each row is rounded on its own; the remainder is shown rather than hidden.
            table.add_row(Text("rounding", style="dim"), "", "", Text(f"{rest:+.{DIGITS}f}", style="dim"))
        table.add_row(Text("total", style="bold"), "", "", Text(f"{total:.{DIGITS}f}", style="bold"))
    details = Text()
    for c in contributions:
        details.append(f"\n{c.get('name') or c.get('criterion')}", style="bold")
        details.append(f" — knowledge {c.get('knowledge_score', '?')}")
        if c.get("measured_score") is not None:
            label = evidence_label(c.get("evidence_source"))
            details.append(f", {label} {c['measured_score']:.2f} (share {c.get('evidence_weight', 0):.0%})")
        if c.get("parts"):
            details.append(f" = {parts_text(c['parts'])}")
        details.append(f"\n  {c.get('rationale', '')}")
        if c.get("evidence"):
            details.append(f"\n  evidence: {c['evidence']}", style="italic")
        for fig in c.get("figures") or []:
            details.append(f"\n  {evidence_label(c.get('evidence_source'))}: {_figure(fig)}")
        if c.get("basis") == "judgement":
            details.append(
                "\n  judgement: the knowledge base's own reasoning (above), not a quoted source", style="italic"
            )
        for src in c.get("sources") or []:
            details.append(f"\n  source: {_source(src)}", style="dim")
    head = Text(
        f"{entry.get('name') or entry_name(entry)}: "
        f"{'?' if score is None else f'{score:.{DIGITS}f}'} of 5 ({entry.get('status', '')})",
        style="bold",
    )
    notes = Text("\n".join(entry.get("notes") or []), style="italic")
    return Group(head, notes, table, details)


def _source(src: Any) -> str:
    # A report may carry a source as its URL alone or as {url, quote, date}: the quote is shown beside it.
    if not isinstance(src, dict):
        return str(src)
    text = str(src.get("url", ""))
    if src.get("quote"):
        text += f' "{src["quote"]}"'
    if src.get("date"):
        text += f" ({src['date']})"
    return text


def _figure(fig: Any) -> str:
    if not isinstance(fig, dict):
        return str(fig)
    value = fig.get("value")
    label = " ".join(str(fig.get(k)) for k in ("benchmark", "variant", "device") if fig.get(k))
    val = f"{value:,.2f}" if isinstance(value, int | float) else str(value)
    extra = f" (ratio {fig['ratio']:.2f})" if isinstance(fig.get("ratio"), int | float) else ""
    return f"{label}: {val} {fig.get('unit', '')}{extra}".strip()
