"""Charts as inline SVG, drawn by matplotlib in this process: no script, no font file, no network at view time."""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec

from advisor.report.html.markup import Safe

# Colour-blind-safe (Okabe-Ito), then tab10's remaining hues for long criterion lists.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
           "#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd", "#aec7e8")
_WIDTH_IN = 8.0
_PROLOGUE = re.compile(r"\A.*?(?=<svg)", re.S)
P = ParamSpec("P")


@dataclass(frozen=True)
class Interval:
    """One figure with its optional 95% interval and share of peak."""

    label: str
    value: float
    low: float | None = None
    high: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Move:
    """One weight on the 0-5 scale: where it is and where it would change the answer."""

    label: str
    now: float
    to: float
    note: str


def _chart(draw: Callable[P, Safe]) -> Callable[P, Safe]:
    """Run a chart function under the settings above (read when each text is made, so around all of it)."""

    @functools.wraps(draw)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Safe:
        import matplotlib

        # fonttype none: text stays text (searchable, the browser's own sans-serif); parse_math off: a `$` in a name
        # from outside is a dollar sign, not TeX (which can fail to parse). hashsalt is set per chart in `_svg`.
        with matplotlib.rc_context(
            {"svg.fonttype": "none", "font.family": "sans-serif", "text.parse_math": False, "text.usetex": False}
        ):
            return draw(*args, **kwargs)

    return wrapper


def _short(text: str, limit: int = 42) -> str:
    """A label cut to fit beside its bar (the table after the chart has it whole)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _figure(height_in: float, width: float = _WIDTH_IN) -> Any:
    # Deferred: matplotlib costs ~0.3 s to import and only --html draws charts. Figure() needs no pyplot and no
    # GUI backend, so nothing global (the backend, an open-figure registry) is touched.
    from matplotlib.figure import Figure

    return Figure(figsize=(width, max(1.2, height_in)), layout="constrained")


def _svg(fig: Any, name: str, alt: str) -> Safe:
    import matplotlib

    buf = io.StringIO()
    # hashsalt: the clip-path ids of two charts in one page never collide, and the same input gives the same bytes.
    with matplotlib.rc_context({"svg.hashsalt": name}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    body = _PROLOGUE.sub("", buf.getvalue(), count=1)
    # The svg carries the chart's text alternative for screen readers; the table after it says the same.
    body = body.replace("<svg ", f'<svg role="img" aria-label="{_attr(alt)}" class="chart" data-chart="{name}" ', 1)
    return Safe(body)


def _attr(text: str) -> str:
    import html

    return html.escape(text, quote=True)


@_chart
def stacked(name: str, alt: str, rows: Sequence[tuple[str, Sequence[float]]], segments: Sequence[str],
            xlabel: str, xmax: float) -> Safe:
    """Horizontal bars, one per row, each split into `segments` (e.g. criterion contributions to a 0-5 score)."""
    fig = _figure(0.32 * len(rows) + 1.0 + 0.2 * ((len(segments) + 1) // 2))
    ax = fig.add_subplot()
    labels = [_short(r[0]) for r in rows][::-1]
    left = [0.0] * len(rows)
    for i, seg in enumerate(segments):
        widths = [r[1][i] for r in rows][::-1]
        ax.barh(range(len(rows)), widths, left=left, color=PALETTE[i % len(PALETTE)], label=_short(seg), height=0.6)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_yticks(range(len(rows)), labels)
    for y, total in enumerate(left):
        ax.text(total + xmax * 0.01, y, f"{total:.2f}", va="center", fontsize=9)
    ax.set_xlim(0, xmax * 1.08)
    ax.set_xlabel(xlabel)
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(loc="outside lower center", ncols=min(2 if len(segments) > 6 else 3, len(segments) or 1), fontsize=8,
               frameon=False)
    return _svg(fig, name, alt)


@_chart
def moves(name: str, alt: str, rows: Sequence[Move], xmax: float) -> Safe:
    """Each weight now (dot) and where the answer changes (arrow head) on the 0-xmax scale; past it, a dashed arrow."""
    fig = _figure(0.42 * len(rows) + 0.9)
    ax = fig.add_subplot()
    beyond = xmax + 0.7
    for y, m in enumerate(reversed(rows)):
        off = m.to > xmax
        ax.annotate("", xy=(beyond if off else m.to, y), xytext=(m.now, y),
                    arrowprops={"arrowstyle": "-|>", "color": PALETTE[5], "lw": 1.6, "ls": "--" if off else "-"})
        ax.plot([m.now], [y], "o", color=PALETTE[0], markersize=6)
        ax.text(max(m.now, beyond if off else m.to) + 0.12, y, _short(m.note), va="center", fontsize=8)
    ax.axvspan(xmax, beyond + 0.05, color="#eeeeee", zorder=0)
    ax.set_yticks(range(len(rows)), [_short(m.label) for m in reversed(rows)])
    ax.set_xlim(0, xmax + 3.6)
    ax.set_xticks([*range(int(xmax) + 1), beyond], [*(str(x) for x in range(int(xmax) + 1)), f">{xmax:g}"])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel(f"weight (0-{xmax:g}): dot = now, arrow = where the answer changes; grey = beyond {xmax:g}",
                  fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig, name, alt)


@_chart
def intervals(name: str, alt: str, title: str, items: Sequence[Interval]) -> Safe:
    """One small chart (a benchmark and its unit): a bar per figure with its 95% interval where known."""
    fig = _figure(0.3 * len(items) + 0.75, width=5.2)
    ax = fig.add_subplot()
    labels = [_short(i.label, 24) for i in items][::-1]
    values = [i.value for i in items][::-1]
    err = [[max(0.0, i.value - i.low) if i.low is not None else 0.0 for i in items][::-1],
           [max(0.0, i.high - i.value) if i.high is not None else 0.0 for i in items][::-1]]
    ax.barh(range(len(items)), values, xerr=err, color=PALETTE[0], height=0.55,
            error_kw={"ecolor": "#333", "capsize": 3})
    top = max([v + e for v, e in zip(values, err[1], strict=True)] or [1.0]) or 1.0
    for y, item in enumerate(reversed(items)):
        ax.text(top * 1.03, y, _short(item.note, 32), va="center", fontsize=8)
    ax.set_yticks(range(len(items)), labels)
    ax.set_xlim(0, top * 1.9)
    ax.set_title(_short(title, 80), loc="left", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig, name, alt)


@_chart
def dots(name: str, alt: str, rows: Sequence[str], series: Sequence[tuple[str, Sequence[float]]],
         xlabel: str, highlight: str | None = None) -> Safe:
    """A dot per series on each row (e.g. each member's share of a criterion); `highlight` drawn as a bar."""
    fig = _figure(0.4 * len(rows) + 1.2 + 0.22 * ((len(series) + 2) // 3))
    ax = fig.add_subplot()
    ys = list(range(len(rows)))[::-1]
    for i, (label, values) in enumerate(series):
        if label == highlight:
            ax.barh(ys, values, color="#dddddd", height=0.7, label=_short(label), zorder=0)
        else:
            ax.plot(values, ys, "o", color=PALETTE[i % len(PALETTE)], label=_short(label), markersize=7, alpha=0.9)
    ax.set_yticks(ys, [_short(r) for r in rows])
    ax.set_xlabel(xlabel)
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(loc="outside lower center", ncols=min(4, max(1, len(series))), fontsize=8, frameon=False)
    return _svg(fig, name, alt)


@_chart
def counts(name: str, alt: str, rows: Sequence[str], segments: Sequence[str],
           values: Sequence[Sequence[int]], xlabel: str) -> Safe:
    """Stacked counts per row (e.g. machines per type and accelerator status; members per own winner)."""
    fig = _figure(0.45 * len(rows) + 1.1)
    ax = fig.add_subplot()
    left = [0] * len(rows)
    ys = list(range(len(rows)))[::-1]
    for i, seg in enumerate(segments):
        widths = [v[i] for v in values]
        if any(widths):
            ax.barh(ys, widths, left=left, color=PALETTE[i % len(PALETTE)], label=_short(seg), height=0.6)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_yticks(ys, [_short(r, 60) for r in rows])
    ax.set_xlabel(xlabel)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(loc="outside lower center", ncols=min(4, max(1, len(segments))), fontsize=8, frameon=False)
    return _svg(fig, name, alt)
