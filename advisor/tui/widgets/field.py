"""A one-line text field with a length limit, so that a huge paste is refused at once instead of freezing the app."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

#: Characters a field may hold, by what it holds. A path: Linux's PATH_MAX; several paths: a team's files.
PATH_CHARS = 4096
PATHS_CHARS = 16384
NUMBER_CHARS = 32  # 100000 engineers, 240 months, kLOC with decimals: far below
SHORT_CHARS = 256  # a Python version, a few country codes


class TextField(Input):
    """`Input` with `max_length` always set; a key or paste past it is refused with one notice, not a bell per key.

    A paste that a terminal sends as keys (no bracketed paste) is 100,000 key presses: without a limit each one
    re-rendered an ever longer field, for minutes; with it, each refused key costs a length check.
    """

    def __init__(self, value: str | None = None, *, max_length: int = PATH_CHARS, **kwargs: Any) -> None:
        super().__init__(value, max_length=max_length, **kwargs)
        self._told = False

    def restricted(self) -> None:
        """Past the limit: say so once while the field has the focus (the default rings the bell per key)."""
        if not self._told:
            self._told = True
            self.notify(f"at most {self.max_length} characters in this field", severity="warning")

    def on_blur(self) -> None:
        """Leaving the field: the next time past the limit is told again (Input's own blur handler runs too)."""
        self._told = False
