"""`fwadvisor team merge`: merge several machines' reports into a team summary with a checklist per machine."""

from __future__ import annotations

import argparse

HELP = "team mode: merge several machines' `report --json` files into one summary (team merge FILE...)"


def configure(parser: argparse.ArgumentParser) -> None:
    """`team merge FILE... [--framework ID] [--from ID] [--target ID] [--json|--markdown] [-o FILE]`."""
    sub = parser.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    merge = sub.add_parser("merge", help="merge report JSON files (corrupt or foreign files are named and skipped)")
    merge.add_argument("reports", nargs="+", metavar="FILE", help="report files from `fwadvisor report --json`")
    merge.add_argument("--framework", metavar="ID", help="the chosen framework (default: the reports' majority)")
    merge.add_argument("--from", dest="from_framework", metavar="ID", help="the framework the team uses today")
    merge.add_argument("--target", action="append", default=[], metavar="ID", help="a deployment target (repeatable)")
    fmt = merge.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--markdown", action="store_true", help="print Markdown")
    merge.add_argument("-o", "--output", metavar="FILE", help="write to FILE (Markdown, or JSON with --json/.json)")


def run(args: argparse.Namespace) -> int:
    """Merge the reports and print or write the summary; skipped files are named on stderr."""
    from advisor.knowledge import load_knowledge
    from advisor.team import merge_reports

    kb = load_knowledge(args.kb)
    summary = merge_reports(
        kb, args.reports, framework=args.framework, from_framework=args.from_framework, targets=args.target
    )
    from advisor.cli.output import emit_document, warn

    for skipped in summary.skipped:
        warn(f"skipped {skipped.path}: {skipped.reason}")

    emit_document(args, summary.to_json(), summary.to_markdown())
    return 0
