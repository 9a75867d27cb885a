"""A compact ranking table, read from the typed report the core produced (presentation only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # only for types: the core is imported through advisor.tui.core
    from advisor.report import Report


def ranking_table(report: Report, limit: int | None = None) -> Table:
    """A compact rank / framework / score table."""
    table = Table(box=None, padding=(0, 1), expand=True, show_edge=False)
    table.add_column("#", justify="right", width=2)
    table.add_column("framework", ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("score", justify="right")
    for i, entry in enumerate(report.ranking[:limit], 1):
        table.add_row(str(i), Text(entry.name), f"{entry.total:.3f}")  # a pack's name is text, not markup
    return table
