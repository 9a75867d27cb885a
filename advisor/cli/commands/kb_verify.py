"""`fwadvisor kb verify`: print the drift that the core's package check found (table or JSON)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from advisor.errors import ExitCode, UsageError

#: A Linux target names every manylinux baseline; the table shows the run as one range (JSON keeps it all).
_MANYLINUX_RUN = re.compile(r"--platform manylinux_2_(\d+)_(\w+?)(?: --platform manylinux_2_\d+_\2)* "
                            r"--platform manylinux_2_(\d+)_\2(?: --platform manylinux2014_\2)?")


def short_command(command: str) -> str:
    """The pip command with a run of manylinux --platform flags shown as one range."""
    return _MANYLINUX_RUN.sub(lambda m: f"--platform manylinux_2_{{{m[3]}..{m[1]}}}_{m[2]} (each)", command)


def run_verify(kb: Any, args: argparse.Namespace) -> int:
    """Exit 0 without drift, 1 with drift; the core raises IndexUnreachableError (exit 2) when no index answers."""
    from advisor.knowledge.verify import Pip, verify_knowledge
    from advisor.knowledge.verify.pip import redact

    if args.jobs < 1 or args.timeout <= 0:
        raise UsageError("--jobs and --timeout must be positive", field="jobs" if args.jobs < 1 else "timeout")

    def progress(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\rpip queries: {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    result = verify_knowledge(
        kb,
        frameworks=args.frameworks or None,
        pip=Pip(python=args.python or sys.executable, timeout=args.timeout),
        workers=args.jobs,
        on_done=progress,
    )
    code = int(ExitCode.FAILURE) if result.drift_count else int(ExitCode.OK)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return code
    from rich.console import Console
    from rich.markup import escape as e  # pip's output and pack text are data, not markup
    from rich.table import Table

    console = Console()
    for fid, verdict in result.frameworks.items():
        if not verdict.drift:
            console.print(f"[green]{e(fid)}[/]: no drift ({verdict.checks} checks)")
        else:
            table = Table(title=f"{fid}: {len(verdict.drift)} drift", title_justify="left", show_lines=True)
            for col in ("kind", "subject", "target", "claimed", "found", "pip command"):
                table.add_column(col, overflow="fold")
            for d in verdict.drift:
                table.add_row(*(e(str(v)) for v in (d.kind, redact(d.subject), d.target or "", d.claimed, d.found,
                                                      short_command(d.command))))
            console.print(table)
        for line in verdict.unchecked:
            console.print(f"  [dim]not checked (no claim): {e(line)}[/]")
        for note in verdict.notes:
            console.print(f"  [dim]{e(note)}[/]")
    summary = f"{result.drift_count} drift" if result.drift_count else "no drift"
    console.print(e(f"{summary} in {len(result.frameworks)} frameworks (pip {result.pip_version})"))
    return code
