"""HTML built by function, every string from outside escaped by construction (no template engine needed)."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any

from advisor.privacy import scrub_text
from advisor.sanitize import printable


class Safe(str):
    """Markup this module built (or an SVG the chart module rendered); every other `str` is escaped."""

    __slots__ = ()


class Cell(Safe):
    """A whole `<td>` (a number, right-aligned): `table` keeps it instead of wrapping it in another cell."""

    __slots__ = ()


Child = Any  # a str (escaped), a Safe (kept), a number (formatted by str), None (skipped) or an iterable of them


def esc(value: Any) -> Safe:
    """`value` as HTML text: `<`, `>`, `&` and quotes escaped; control characters from input made visible."""
    if isinstance(value, Safe):
        return value
    return Safe(html.escape(printable(str(value)), quote=True))


def _children(children: Iterable[Child]) -> str:
    out: list[str] = []
    for child in children:
        if child is None:
            continue
        if isinstance(child, str | int | float):
            out.append(esc(child))
        else:
            out.append(_children(child))
    return "".join(out)


def el(tag: str, *children: Child, **attrs: Any) -> Safe:
    """`<tag attrs>children</tag>`; attribute names are code (`class_` is `class`), values are escaped."""
    parts = [tag]
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        key = name.rstrip("_").replace("_", "-")
        # Always escaped, a Safe too: markup is never an attribute's value.
        parts.append(key if value is True else f'{key}="{html.escape(printable(str(value)), quote=True)}"')
    return Safe(f"<{' '.join(parts)}>{_children(children)}</{tag}>")


def join(*children: Child) -> Safe:
    """Children side by side, escaped as `el` does."""
    return Safe(_children(children))


def table(head: list[str], rows: Iterable[list[Child]], *, caption: str | None = None, cls: str = "") -> Safe:
    """A table with a header row; cells are escaped unless `Safe`. The text equivalent of every chart."""
    return el(
        "table",
        el("caption", caption) if caption else None,
        el("thead", el("tr", [el("th", h, scope="col") for h in head])),
        el("tbody", [el("tr", [c if isinstance(c, Cell) else el("td", c) for c in row]) for row in rows]),
        class_=cls or None,
    )


def texter(identify: bool) -> Callable[[Any], str]:
    """What every string from outside passes through before it is shown: the JSON's scrubber unless --identify."""
    if identify:
        return lambda value: str(value)
    return lambda value: scrub_text(str(value))
