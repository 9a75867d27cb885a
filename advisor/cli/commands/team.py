"""`fwadvisor team`: `merge` several machines' reports into one summary; `decide` one answer from members' profiles."""

from __future__ import annotations

import argparse

HELP = (
    "team mode: merge machines' reports (team merge FILE...) or decide from members' profiles (team decide PROFILE...)"
)


def configure(parser: argparse.ArgumentParser) -> None:
    """`team merge FILE...` and `team decide PROFILE...`, each with --json/--markdown and -o FILE."""
    sub = parser.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    merge = sub.add_parser("merge", help="merge report JSON files (corrupt or foreign files are named and skipped)")
    merge.add_argument("reports", nargs="+", metavar="FILE", help="report files from `fwadvisor report --json`")
    merge.add_argument("--framework", metavar="ID", help="the chosen framework (default: the reports' majority)")
    merge.add_argument("--from", dest="from_framework", metavar="ID", help="the framework the team uses today")
    merge.add_argument("--target", action="append", default=[], metavar="ID", help="a deployment target (repeatable)")
    merge.add_argument("--identify", action="store_true",
                       help="keep home folders and this machine's user and host names in the report paths")
    _output_flags(merge)
    merge.set_defaults(_run=run)
    decide = sub.add_parser(
        "decide",
        help="one team answer from every member's profile (weights or pairwise judgements, constraints)",
        description="Aggregate the members' profiles (AIJ for pairwise judgements, AIP for weights; every member's "
        "hard constraints apply) and show each member's answer, the team's, the consensus and its fragility.",
    )
    decide.add_argument("profiles", nargs="+", metavar="PROFILE", help="one profile YAML per member")
    evidence = decide.add_mutually_exclusive_group()
    evidence.add_argument("--from-json", metavar="REPORT", help="use the evidence of a saved report; measure nothing")
    evidence.add_argument("--no-bench", action="store_true", help="skip the benchmarks (the probe still runs)")
    decide.add_argument("--fresh", action="store_true", help="probe the frameworks again (do not use the probe cache)")
    decide.add_argument("--preset", default="quick", choices=("test", "quick", "standard", "thorough", "fleet"),
                        help="benchmark preset (default: quick)")
    decide.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo sensitivity analysis")
    _output_flags(decide)
    decide.set_defaults(_run=run_decide, identify=False)


def _output_flags(parser: argparse.ArgumentParser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--markdown", action="store_true", help="print Markdown")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (Markdown, or JSON with --json/.json)")
    parser.add_argument("--html", nargs="?", const="-", metavar="FILE",
                        help="write one offline HTML page with charts to FILE (no FILE or -: stdout)")


def html_out(args: argparse.Namespace) -> None:
    """`--html` checks, shared with `report` (deferred: the parser stays light at start-up)."""
    from advisor.cli.commands.report import html_out as check

    check(args)


def run(args: argparse.Namespace) -> int:
    """Merge the reports and print or write the summary; skipped files are named on stderr."""
    from advisor.knowledge import load_knowledge
    from advisor.team import merge_reports

    html_out(args)
    kb = load_knowledge(args.kb)
    summary = merge_reports(
        kb, args.reports, framework=args.framework, from_framework=args.from_framework, targets=args.target
    )
    from advisor.cli.output import emit_document, warn
    from advisor.jsonio import model_json

    for skipped in summary.skipped:
        warn(f"skipped {skipped.path}: {skipped.reason}")  # the user's own terminal: the path as they gave it
    # Scrubbed in emit_document unless --identify: the summary is shared, and report paths and labels can name
    # a user or host (a host name a report made with --identify carries counts as this host's only if it is).
    if args.html:
        from advisor.report.html import merge_html

        _emit_html(args, merge_html(summary, identify=args.identify), "team-summary")
    if args.html != "-":
        emit_document(args, model_json(summary), summary.to_markdown(), rescue="team-summary")
    return 0


def _emit_html(args: argparse.Namespace, page: str, rescue: str) -> None:
    from advisor.cli.output import emit_text, write_file

    if args.html == "-":
        emit_text(page)
    else:
        write_file(args.html, page, what="HTML page", rescue=rescue)


def run_decide(args: argparse.Namespace) -> int:
    """Read every member's profile (bad ones named on stderr and left out), gather evidence once, decide."""
    import dataclasses

    from advisor.cli.commands.report import gather
    from advisor.cli.output import emit_document, warn
    from advisor.errors import UsageError
    from advisor.knowledge import load_knowledge
    from advisor.knowledge.schema import Constraints
    from advisor.report import load_report
    from advisor.report.words import left_out_words
    from advisor.team.decide import team_candidates
    from advisor.team.members import load_members
    from advisor.team.session import decide_members, no_members_error

    if args.from_json == "":
        raise UsageError("needs a report file", field="--from-json")
    if not 0 <= args.seed < 2**63:  # NumPy's generator takes no negative seed
        raise UsageError(f"must be between 0 and 2**63 - 1, not {args.seed}", field="--seed")
    html_out(args)
    kb = load_knowledge(args.kb)
    members, left_out = load_members(kb, args.profiles)
    # A bad saved report is reported before anything runs; with one, nothing is probed or measured here.
    old = load_report(args.from_json) if args.from_json else None
    for x in left_out:
        warn(f"left out {x.path}: {left_out_words(x)}")
    if not members:
        raise no_members_error(len(args.profiles))
    candidates, _ = team_candidates(kb, members)
    # The evidence is gathered once, for the frameworks every member's constraints allow.
    scope = dataclasses.replace(members[0].resolved, frameworks=tuple(candidates), constraints=Constraints())
    probe, bench, _host = gather(args, kb, scope, old)
    if args.from_json:
        evidence = f"saved report {args.from_json}"
    else:
        evidence = "probe and benchmarks here" if bench else "probe here, no benchmarks"
    from advisor.cli.commands.team_progress import DecideBar

    with DecideBar() as bar:  # a hundred members take seconds: say how far it has got
        out = decide_members(kb, members, left_out, probe=probe, bench=bench, evidence=evidence, seed=args.seed,
                             on_progress=bar.on_event)
    data = out.document.model_dump(mode="json")  # the document's JSON, from the model
    if args.html:
        from advisor.privacy import scrub
        from advisor.report.html import decision_html
        from advisor.team.decision_schema import TeamDecisionDoc

        # Scrubbed as emit_document scrubs the JSON, then typed again: the page reads the models.
        _emit_html(args, decision_html(TeamDecisionDoc.model_validate(scrub(data, drop_keys=False))), "team-decision")
    if args.html != "-":
        emit_document(args, data, out.markdown, rescue="team-decision")  # scrubbed: it is shared
    return 0
