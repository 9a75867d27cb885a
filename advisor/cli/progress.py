"""One transient Rich progress bar on stderr, drawn only on a terminal, for commands that count answers."""

from __future__ import annotations

import sys
import threading
from typing import Any, Self


class StderrBar:
    """A bar fed from the core's events (from any thread); nothing is drawn, nor Rich imported, off a terminal."""

    def __init__(self, label: str | None = None, *, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.label = label
        self.lock = threading.Lock()  # events may arrive from worker threads
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Self:
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                ProgressColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            from advisor.cli.output import console

            # The description comes from outside (a package name, a question): never read as markup.
            counts: list[ProgressColumn] = [BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
            described = TextColumn("{task.description}", markup=False)
            columns = [TextColumn(self.label, markup=False), *counts, described] if self.label else [described, *counts]
            self.bar = Progress(*columns, console=console(stderr=True), transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def update(self, *, done: int, total: int | None, description: str) -> None:
        """Move the bar to `done` of `total`, with `description` (one line of plain text)."""
        if self.bar is None:
            return
        from advisor.sanitize import one_line

        with self.lock:
            self.bar.update(self.task, total=total, completed=done, description=one_line(description))
