"""`fwadvisor kb verify`: progress on stderr while pip answers, then the drift as tables or JSON."""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import Any

from advisor.cli.progress import StderrBar
from advisor.errors import ExitCode, UsageError

#: A Linux target names every manylinux baseline; the table shows the run as one range (JSON keeps it all).
_MANYLINUX_RUN = re.compile(r"--platform manylinux_2_(\d+)_(\w+?)(?: --platform manylinux_2_\d+_\2)* "
                            r"--platform manylinux_2_(\d+)_\2(?: --platform manylinux(?:2014|2010|1)_\2)*")
_REASONS = {"vendor_index": "not checkable here (its index is out of reach)", "not_on_index": "not on the indexes",
            "no_claim": "not checked (no claim)", "no_date": "no release date from the index",
            "no_requires_python": "no Requires-Python from the index", "cannot_read": "could not be read"}


def short_command(command: str) -> str:
    """The pip command with a run of manylinux --platform flags shown as one range."""
    return _MANYLINUX_RUN.sub(lambda m: f"--platform manylinux_2_{{{m[3]}..{m[1]}}}_{m[2]} (each)", command)


class _Progress(StderrBar):
    """The shared stderr bar (as pip draws its own), fed from the core's per-question events."""

    def on_event(self, event: Any) -> None:
        """One answer arrived."""
        how = "cached" if event.cached else f"{event.seconds:.1f} s"
        self.update(done=event.done, total=event.total, description=f"{event.question} ({how})")


def run_verify(kb: Any, args: argparse.Namespace) -> int:
    """Exit 0 without drift, 1 with drift; the core raises IndexUnreachableError (exit 2) when no index answers."""
    from advisor.cli.signals import quiet_once_stopping
    from advisor.knowledge.verify import Pip, verify_knowledge

    if not 1 <= args.jobs <= 32:
        raise UsageError("must be 1 to 32", field="jobs")
    if not (math.isfinite(args.timeout) and 0 < args.timeout <= 3600):
        raise UsageError("must be more than 0 and at most 3600 seconds", field="timeout")
    progress = _Progress("asking pip", enabled=not args.json)
    with progress:
        result = verify_knowledge(
            kb,
            frameworks=args.frameworks or None,
            pip=Pip(python=args.python or sys.executable, timeout=args.timeout, fresh=args.fresh),
            workers=args.jobs,
            on_event=quiet_once_stopping(progress.on_event),
            source_dates=args.source_dates,
        )
    code = int(ExitCode.FAILURE) if result.drift_count else int(ExitCode.OK)
    if args.json:
        from advisor.cli.output import emit_text
        from advisor.jsonio import json_text
        from advisor.knowledge.verify.results import document

        emit_text(json_text(document(result)))
        return code
    _print(result)
    return code


def _print(result: Any) -> None:
    from rich.table import Table

    from advisor.cli.output import console as make_console
    from advisor.cli.output import styled
    from advisor.knowledge.verify.pip import redact
    from advisor.sanitize import one_line

    def e(value: object) -> str:  # pip's output and pack text are data: one line, no index URL
        return one_line(redact(str(value)))

    console = make_console()  # never parses markup: styles are given as objects
    for fid, verdict in result.frameworks.items():
        if not verdict.drift and not verdict.stale:
            console.print(styled((e(fid), "green"), f": no drift ({verdict.checks} checks)"))
        if verdict.drift:
            table = Table(title=f"{e(fid)}: {len(verdict.drift)} drift", title_justify="left", show_lines=True)
            for col in ("kind", "subject", "target", "claimed", "found", "pip command"):
                table.add_column(col, overflow="fold")
            for d in verdict.drift:
                table.add_row(*(e(v) for v in (d.kind.value, d.subject, d.target or "", d.claimed, d.found,
                                                short_command(d.command))))
            console.print(table)
        for s in verdict.stale:
            console.print(styled("  ", ("stale:", "yellow"),
                                 f" {e(s.distribution)} {e(s.version)} was released {s.released}, after "
                                 f"{len(s.facts)} fact(s) dated earlier: {e(', '.join(s.facts[:4]))}"
                                 + (" …" if len(s.facts) > 4 else "")))
        for n in verdict.not_checked:
            console.print(styled("  ", (f"{_REASONS[n.reason.value]}: {e(n.subject)}"
                                        + (f" ({e(n.detail)})" if n.detail else ""), "dim")))
    if result.source_dates is not None:
        dated = result.source_dates
        console.print(styled(("package sources' dates", "bold"), f": {dated.checks} checked, {len(dated.drift)} wrong"))
        for d in dated.drift:
            console.print(f"  {e(d.subject)} at {e(d.target)}: dated {e(d.claimed)}, {e(d.found)}")
        for n in dated.not_checked:
            console.print(styled("  ", (f"{_REASONS[n.reason.value]}: {e(n.subject)} ({e(n.detail)})", "dim")))
    summary = f"{result.drift_count} drift" if result.drift_count else "no drift"
    console.print(e(f"{summary} in {len(result.frameworks)} frameworks (pip {result.pip_version}, "
                    f"{result.seconds:.0f} s)"))
