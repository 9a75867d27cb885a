"""The CLI's one way out: documents to files (atomic, never lost), JSON and text to stdout, a Rich console."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import Any

from advisor.errors import OutputError
from advisor.sanitize import one_line, printable


def wants_json(args: argparse.Namespace) -> bool:
    """`--json`, or `-o FILE.json` without `--markdown`."""
    return bool(args.json or (args.output is not None and not args.markdown and Path(args.output).suffix == ".json"))


def warn(text: str) -> None:
    """One warning line on stderr, control characters from input escaped."""
    print(f"fwadvisor: warning: {one_line(text)}", file=sys.stderr)


def note(text: str) -> None:
    """One progress or status line on stderr, control characters from input escaped."""
    print(one_line(text), file=sys.stderr)


def console(*, stderr: bool = False) -> Any:
    """The CLI's one renderer: a Rich console that never parses text as markup or emoji codes.

    Every string it draws (table cells and titles, rules, printed lines) goes through `render_str`, which
    escapes control characters and turns markup off, so a `[/]` from a framework's error, /etc/os-release or
    a report prints as written. Styles are given as objects (`styled`), never as tags inside text.
    A broken pipe is a `BrokenPipeError` (handled quietly in `advisor.cli.main`).
    """
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # Rich's own handler exits with status 1 and no word; the CLI's one handler decides instead.
            self.quiet = True
            raise BrokenPipeError

        def render_str(self, text: str, **kwargs: Any) -> Any:
            kwargs.update(markup=False, emoji=False)
            return super().render_str(printable(text), **kwargs)

    return _Console(stderr=stderr, markup=False, emoji=False)


def styled(*parts: Any) -> Any:
    """A Rich `Text` from plain strings and `(text, style)` pairs; the text is never parsed as markup."""
    from rich.text import Text

    return Text.assemble(*((printable(str(p[0])), p[1]) if isinstance(p, tuple) else printable(str(p))
                           for p in parts))


def _rescue(text: str, stem: str, suffix: str) -> Path | None:
    """Keep a document whose file could not be written in the user data folder; None if that fails too."""
    from advisor.atomic import atomic_write_text
    from advisor.paths import user_data_dir

    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    try:
        return atomic_write_text(user_data_dir() / "unsaved" / f"{stem}-{stamp}{suffix}", text, owned=True)
    except OutputError:
        return None


def write_file(path: str, text: str, *, what: str = "", rescue: str | None = None, on_stdout: bool = False) -> None:
    """Write `text` to `path` with the one writer; with `rescue`, a failed write still keeps `text` somewhere.

    `on_stdout`: the same document was already printed, so a write that fails and cannot be rescued either
    loses nothing; otherwise the error says the document is lost rather than pointing at stdout.
    """
    from advisor.atomic import atomic_write_text

    try:
        atomic_write_text(path, text)
    except OutputError as exc:
        if rescue is None:
            raise
        kept = _rescue(text, rescue, Path(path).suffix or ".json")
        if kept:
            where = f"; the {rescue} was kept in {kept}"
        else:
            where = "; it is on stdout only" if on_stdout else f"; the {rescue} could not be kept anywhere"
        raise OutputError(exc.message + where, file=exc.file, field=exc.field) from None
    note(f"fwadvisor: {what or 'output'} written to {path}")


def emit_text(text: str) -> None:
    """Raw text (JSON or Markdown) on stdout."""
    sys.stdout.write(printable(text))


def emit_document(args: argparse.Namespace, data: Any, markdown: str, *, rescue: str = "document") -> None:
    """`-o FILE` writes atomically; `--json`/`--markdown` or a pipe get raw text; a terminal gets Markdown.

    The one scrubber runs here over both forms unless the command has `--identify`: documents are shared.
    A file that cannot be written is rescued to the user data folder as `rescue-STAMP.md|json`.
    """
    from advisor.jsonio import json_text
    from advisor.privacy import scrub, scrub_text

    if not getattr(args, "identify", False):
        data, markdown = scrub(data, drop_keys=False), scrub_text(markdown)
    text = json_text(data) if wants_json(args) else printable(markdown)
    if args.output:
        write_file(args.output, text, rescue=rescue)
    elif args.json or args.markdown or not sys.stdout.isatty():
        emit_text(text)
    else:
        from rich.markdown import Markdown

        console().print(Markdown(text))


def cell(value: Any) -> str:
    """Text from input for one table cell or line: control characters escaped (markup is off in `console`)."""
    return one_line(str(value))
