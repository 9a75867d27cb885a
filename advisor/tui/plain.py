"""Text from outside the app (paths, errors, names, a child's output) as shown on screen: never parsed as markup."""

from __future__ import annotations

from textual.content import Content

from advisor.sanitize import printable


def plain(text: object) -> Content:
    """`text` as written: `[/]` stays brackets (never Rich/Textual markup), control characters are made visible."""
    return Content(printable(str(text)))
