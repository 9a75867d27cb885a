"""The sensitivity of a report's advice in words, the same for the CLI, the Markdown and the TUI."""

from __future__ import annotations

from typing import Any

from advisor.scoring.sensitivity import AdviceChange, advice_change_sentence


def report_names(report: dict[str, Any]) -> dict[str, str]:
    """Display names of the report's frameworks and criteria, by id."""
    names: dict[str, str] = {}
    for entry in report.get("ranking") or []:
        names[entry["framework"]] = entry["name"]
        names.update({c["criterion"]: c["name"] for c in entry.get("contributions") or []})
    return names


def advice_change_line(report: dict[str, Any]) -> str | None:
    """Which single weight (0-5 scale) changes the advice, and to what; None for a report made before it was kept."""
    sens = report.get("sensitivity")
    if not sens or "advice_change" not in sens:
        return None
    change = sens["advice_change"]
    return advice_change_sentence(AdviceChange(**change) if change else None, report_names(report))
