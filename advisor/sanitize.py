"""Control characters from input never reach a terminal or a document raw: ESC, BEL, NUL and the rest are escaped."""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls (U+0080-U+009F, which some terminals obey as ESC sequences too);
# the Unicode line and paragraph separators, which would split a one-line error; the bidirectional
# controls, which reorder what a reader sees ("Trojan Source"); and lone surrogates (bytes that were not
# UTF-8, kept by `surrogateescape`), which no output encoding can write.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
_KEEP_LAYOUT = frozenset("\n\t")


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str) -> str:
    """`text` safe for a one-line message: every control character (newlines too) written as `\\xNN`."""
    return _CONTROL.sub(lambda m: _escape(m.group()), text)


def printable(text: str) -> str:
    """`text` safe for a terminal or a Markdown document: newlines and tabs kept, other controls escaped."""
    return _CONTROL.sub(lambda m: m.group() if m.group() in _KEEP_LAYOUT else _escape(m.group()), text)


#: Characters that make Markdown or inline HTML out of text: emphasis, code, links and images, tables,
#: strike-through, and HTML tags and entities (a name such as `<img src=...>` would be a tracking beacon).
_MARKDOWN = re.compile(r"[\\`*_\[\]|~#!]")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown_text(text: object) -> str:
    """Text from input for one Markdown line or table cell: shown literally, never as markup, links or HTML.

    Control characters are escaped, line breaks collapse to one space (a value cannot start a heading or
    a list), Markdown punctuation is backslash-escaped and `& < >` become entities.
    """
    flat = one_line(" ".join(str(text).split()))
    flat = _MARKDOWN.sub(lambda m: "\\" + m.group(), flat)
    return "".join(_HTML.get(ch, ch) for ch in flat)


def echo(value: object, limit: int = 60) -> str:
    """`value` quoted for an error line, cut to `limit` characters: a 100 kB flag must not become a 100 kB line."""
    text = one_line(str(value))
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"
