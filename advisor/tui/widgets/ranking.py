"""Rows of a ranking, read from the report JSON the core produced (presentation only)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text


def ranking_entries(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's ranking list (empty when there is none)."""
    ranking = report.get("ranking")
    return [r for r in ranking if isinstance(r, dict)] if isinstance(ranking, list) else []


def entry_score(entry: dict[str, Any]) -> float | None:
    """The total score of one ranking entry, under whichever key the report uses."""
    for key in ("score", "total", "weighted_sum"):
        value = entry.get(key)
        if isinstance(value, int | float):
            return float(value)
    return None


def entry_name(entry: dict[str, Any]) -> str:
    """The framework id of a ranking entry."""
    return str(entry.get("framework") or entry.get("id") or "?")


def ranking_table(report: dict[str, Any], limit: int | None = None) -> Table:
    """A compact rank / framework / score table."""
    table = Table(box=None, padding=(0, 1), expand=True, show_edge=False)
    table.add_column("#", justify="right", width=2)
    table.add_column("framework", ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("score", justify="right")
    for i, entry in enumerate(ranking_entries(report)[:limit], 1):
        score = entry_score(entry)
        name = Text(str(entry.get("name") or entry_name(entry)))  # a pack's name is text, not markup
        table.add_row(str(i), name, "?" if score is None else f"{score:.3f}")
    return table
