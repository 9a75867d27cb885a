"""`fwadvisor checklist`: the onboarding checklist for a framework on this machine (or a reported one)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from advisor.sanitize import echo

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport

HELP = "onboarding checklist for a chosen framework, fitted to this machine (tick items with --done ID)"


def configure(parser: argparse.ArgumentParser) -> None:
    """`checklist --framework ID [--from ID] [--report FILE] [--target ID ...] [--json|--markdown] [-o FILE]`."""
    parser.add_argument("--framework", metavar="ID", help="the framework the team chose (default: the report's)")
    parser.add_argument(
        "--from",
        dest="from_framework",
        metavar="ID",
        help="the framework the team uses today (default: the report profile's team.current, if it names one)",
    )
    parser.add_argument(
        "--report", metavar="FILE", help="a saved `fwadvisor report --json` (or probe JSON) instead of probing here"
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="ID",
        help="a deployment target (repeatable; default: the report's profile targets)",
    )
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--markdown", action="store_true", help="print Markdown (GitHub task lists)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (Markdown, or JSON with --json/.json)")
    parser.add_argument("--done", action="append", default=[], metavar="ID", help="tick an item (repeatable)")
    parser.add_argument("--undo", action="append", default=[], metavar="ID", help="untick an item (repeatable)")


def _warn(text: str) -> None:
    from advisor.cli.output import warn

    warn(text)


def _probe_here(framework: str | None, kb: Any) -> ProbeReport:
    # Deferred: the probe pulls in psutil/cpuinfo/NVML, needed only when no report is given.
    from advisor.cli.output import console
    from advisor.evidence.probe import run_probe
    from advisor.frameworks.registry import adapters

    # Only frameworks with an adapter can be probed by id; the fast probe of all of them is cheap anyway.
    frameworks = [framework] if framework in adapters() else None
    with console(stderr=True).status("Probing this machine (fast)..."):
        report = run_probe(fast=True, frameworks=frameworks, kb=kb)
    return report


def _unknown(item_id: str, known: list[str]) -> Exception:
    import difflib

    from advisor.errors import UsageError

    close = difflib.get_close_matches(item_id, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else "; the ids are shown after each item (or in --json)"
    return UsageError(f"unknown checklist item {echo(item_id)}{hint}", field="--done")


def run(args: argparse.Namespace) -> int:
    """Build the checklist, apply --done/--undo, and print or write it."""
    from advisor.checklist import build_checklist, checklist_document
    from advisor.cli.output import note
    from advisor.errors import UsageError
    from advisor.knowledge import load_knowledge
    from advisor.progress import ProgressStore
    from advisor.team import read_report

    kb = load_knowledge(args.kb)
    framework: str | None = args.framework
    from_framework: str | None = args.from_framework
    targets: list[str] = list(args.target)
    must_run_on: list[str] = []
    if args.report:
        saved = read_report(args.report)
        for w in saved.warnings:
            _warn(f"{args.report}: {w}")
        probe = saved.probe
        if framework is None:
            framework = saved.recommendation
            if framework is None:
                raise UsageError("the report recommends no framework; pass --framework ID", field="--framework")
        if not targets:
            targets = [t for t in saved.targets if t in kb.targets]
        # The hardware the report's profile must run on, or its fleet, chooses the install backend.
        must_run_on = list(saved.team_hardware)
        if from_framework is None:
            current = saved.current_framework
            # The profile's one current framework is where the team comes from, unless it is the chosen one.
            if current in kb.frameworks and current != framework:
                from_framework = current
    else:
        if framework is None:
            raise UsageError(
                "pass --framework ID (or --report FILE to use a report's recommendation)", field="--framework"
            )
        if framework not in kb.frameworks:
            raise UsageError.unknown("framework", framework, kb.frameworks, field="--framework")
        probe = _probe_here(framework, kb)
    store = ProgressStore()
    done = store.done(framework, from_framework)
    checklist = build_checklist(
        kb, framework, probe, from_framework=from_framework, targets=targets, must_run_on=must_run_on, done=done
    )
    changes = [(i, True) for i in args.done] + [(i, False) for i in args.undo]
    # Every id is checked before anything is written, so one typo changes nothing.
    for item_id, tick in changes:
        if item_id not in checklist.ids and (tick or item_id not in done):
            err = _unknown(item_id, list(checklist.ids))
            if not tick:
                err = UsageError(str(err).replace("--done", "--undo"), field="--undo")
            raise err
    for item_id, tick in changes:
        changed = store.set_done(framework, from_framework, item_id, tick)
        verb = "ticked" if tick else "unticked"
        state = "" if changed else " (it already was)"
        note(f"{verb} {item_id}{state}")
    if changes:
        checklist = checklist.with_done(store.done(framework, from_framework))
        finished, total = checklist.progress
        print(f"{checklist.framework_name} checklist: {finished}/{total} done", file=sys.stderr)
        if not (args.json or args.markdown or args.output):
            return 0
    from advisor.cli.output import emit_document

    emit_document(args, checklist_document(checklist), checklist.to_markdown(), rescue="checklist")
    return 0
