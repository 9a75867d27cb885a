"""A horizontal bar chart of labelled figures (throughput, % of peak) as a Rich renderable."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual.widgets import Static


@dataclass(frozen=True)
class Bar:
    """One bar: its label, value and unit."""

    label: str
    value: float
    unit: str


class BarChart(Static):
    """Bars scaled to `scale` (e.g. 100 for percentages; the largest value when None), figures beside them."""

    def __init__(self, title: str, *, id: str | None = None, scale: float | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes="barchart")
        self.title = title
        self.scale = scale
        self.bars: list[Bar] = []

    def set_bars(self, bars: list[Bar]) -> None:
        """Replace the bars and redraw."""
        self.bars = bars
        self.update(_Chart(self.title, bars, self.scale))


class _Chart:
    """The renderable: one grid row per bar, the bar filling the width left over."""

    def __init__(self, title: str, bars: list[Bar], scale: float | None = None) -> None:
        self.title = title
        self.bars = bars
        self.scale = scale

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(self.title, style="bold")
        if not self.bars:
            yield Text("no figures yet", style="dim")
            return
        label_w = min(24, max(len(b.label) for b in self.bars))
        fig_w = max(len(f"{b.value:,.1f} {b.unit}") for b in self.bars)
        bar_w = max(4, options.max_width - label_w - fig_w - 2)
        largest = max(b.value for b in self.bars)
        # A fixed scale keeps "% of peak" honest (a bar at 30% fills 30%); a figure above it still fits.
        top = max(self.scale or 0.0, largest) or 1.0
        grid = Table.grid(padding=(0, 1))
        grid.add_column(width=label_w, no_wrap=True, overflow="ellipsis")
        grid.add_column(width=bar_w, no_wrap=True)
        grid.add_column(justify="right", no_wrap=True)
        for b in self.bars:
            cells = b.value / top * bar_w
            whole = int(cells)
            text = "█" * whole + ("▌" if cells - whole >= 0.5 else "")
            grid.add_row(Text(b.label), Text(text, style="bold"), Text(f"{b.value:,.1f} {b.unit}"))
        yield grid
