"""The sensitivity of a report's advice in words, the same for the CLI, the Markdown and the TUI."""

from __future__ import annotations

from advisor.report.models import Report
from advisor.scoring.sensitivity import advice_change_sentence


def report_names(report: Report) -> dict[str, str]:
    """Display names of the report's frameworks and criteria, by id."""
    names: dict[str, str] = {}
    for entry in report.ranking:
        names[entry.framework] = entry.name
        names.update({c.criterion: c.name for c in entry.contributions})
    return names


def advice_change_line(report: Report) -> str | None:
    """Which single weight (0-5 scale) changes the advice, and to what; None for a report made before it was kept."""
    sens = report.sensitivity
    # A report of schema 1.0 has no `advice_change` at all; null in a newer one means no single weight changes it.
    if sens is None or "advice_change" not in sens.model_fields_set:
        return None
    return advice_change_sentence(sens.advice_change, report_names(report))
