"""Writing a document (JSON or Markdown) to a file, to stdout, or rendered for a terminal."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def wants_json(args: argparse.Namespace) -> bool:
    """`--json`, or `-o FILE.json` without `--markdown`."""
    return bool(args.json or (args.output is not None and not args.markdown and Path(args.output).suffix == ".json"))


def emit_document(args: argparse.Namespace, data: Any, markdown: str) -> None:
    """`-o FILE` writes atomically; `--json`/`--markdown` or a pipe get raw text; a terminal gets Markdown."""
    text = json.dumps(data, indent=2) + "\n" if wants_json(args) else markdown
    if args.output:
        from advisor.atomic import atomic_write_text

        atomic_write_text(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    elif args.json or args.markdown or not sys.stdout.isatty():
        sys.stdout.write(text)
    else:
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(text))
