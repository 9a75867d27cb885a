"""Error types that carry the file, line and field of bad input; the CLI prints them as one line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import IntEnum
from pathlib import Path
from typing import Any, Self

from advisor.sanitize import echo


class ExitCode(IntEnum):
    """Process exit codes, documented in `fwadvisor --help` and the README."""

    OK = 0
    FAILURE = 1
    BAD_INPUT = 2


class AdvisorError(Exception):
    """Bad input: names where it is (file, line, field) so a user can fix it without a traceback."""

    def __init__(
        self, message: str, file: str | Path | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field

    @classmethod
    def unknown(cls, what: str, value: object, known: Iterable[str], field: str) -> Self:
        """`unknown framework 'x'; known: a, b`: the value echoed short, so a pasted essay stays one short line."""
        return cls(f"unknown {what} {echo(value)}; known: {', '.join(known)}", field=field)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, file={self.file!r}, line={self.line!r}, field={self.field!r})"

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        field = f"{self.field}: " if self.field else ""
        return f"{where}{field}{self.message}"


class KnowledgeError(AdvisorError):
    """A knowledge-base file (shipped or overlay pack) is malformed or inconsistent."""


class ProfileError(AdvisorError):
    """A user profile (weights, constraints, scenario) is malformed."""


class ReportError(AdvisorError):
    """A saved report cannot be read or does not match the schema."""


class UsageError(AdvisorError):
    """A command-line flag or argument combination is wrong."""


class IndexUnreachableError(AdvisorError):
    """pip, with the user's configuration, reached no package index (`kb verify` exits 2)."""


class OutputError(AdvisorError, OSError):
    """An output path cannot be written: a folder, a socket, a block device, no permission, no space.

    Also an `OSError`, so code that guarded a file write with `except OSError` (the TUI) still catches it.
    """


def validation_words(err: Mapping[str, Any]) -> str:
    """A pydantic error's words for a person: our own validators' message without pydantic's "Value error, "."""
    if err.get("type") == "value_error" and "error" in err.get("ctx", {}):
        return str(err["ctx"]["error"])
    return str(err.get("msg", ""))
