"""Hostile strings for hypothesis: markup brackets, ESC/OSC/BEL, C1, bidi, line separators, non-UTF-8, long."""

from __future__ import annotations

from hypothesis import strategies as st

#: Pieces an attacker puts in any field that reaches a screen, a table or a Markdown file.
PIECES = ("[", "]", "[/]", "[bold red]", "[/x]", ":smile:", "\x1b[2J", "\x1b]0;pwned\x07", "\x07", "\x9b31m",
          "\u202e", "\u2066", "\u2028", "\udcff", "<script>", "<img src=x>", "](http://x)", "# ", "|", "`", "*_")


def hostile_text(max_pieces: int = 12) -> st.SearchStrategy[str]:
    """Text mixing the pieces above with letters; sometimes very long."""
    piece = st.one_of(st.sampled_from(PIECES), st.text(max_size=6))
    short = st.lists(piece, min_size=1, max_size=max_pieces).map("".join)
    return st.one_of(short, short.map(lambda s: s * 60))


def assert_inert(out: str) -> None:
    """Nothing in `out` can act on a terminal: no ESC, BEL, C1 control, bidi override or lone surrogate."""
    for bad in ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2028", "\udcff"):
        assert bad not in out, f"{bad!r} reached the output raw"
