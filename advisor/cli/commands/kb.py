"""`fwadvisor kb`: validate, list and show the knowledge base and overlay packs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "validate, list, show and verify the knowledge base (kb validate | list | show | schema | verify)"


def configure(parser: argparse.ArgumentParser) -> None:
    """`kb validate [DIR...]`, `kb list [--json]`, `kb show [FRAMEWORK] [--json]`."""
    sub = parser.add_subparsers(dest="kb_command", metavar="ACTION", required=True)
    v = sub.add_parser("validate", help="check the shipped base, or overlay packs on top of it")
    v.add_argument("dirs", nargs="*", metavar="DIR", help="overlay pack folders to check (default: the base)")
    v.add_argument(
        "--lenient",
        action="store_true",
        help="list unquoted facts and disagreements but exit 0 (while drafting a pack); by default they exit 1",
    )
    v.add_argument(
        "--strict",
        action="store_true",
        help="also exit 1 when a fact is past its review interval (stale_fact)",
    )
    v.add_argument(
        "--figures",
        action="store_true",
        help="list the facts that state a version none of their quotes gives (a hint for a reader; never exit 1)",
    )
    ls = sub.add_parser("list", help="list frameworks, criteria, scenarios and the packs in use")
    ls.add_argument("--json", action="store_true", help="print JSON on stdout")
    show = sub.add_parser("show", help="show one framework's facts and scores (or all frameworks)")
    show.add_argument("framework", nargs="?", help="framework id (see `kb list`)")
    show.add_argument("--json", action="store_true", help="print JSON on stdout")
    sub.add_parser("schema", help="print the JSON Schema of knowledge-pack files")
    ver = sub.add_parser(
        "verify",
        help="check the package claims (latest release, Requires-Python, wheels, install lines) through pip",
        description="Exit 0: no drift; 1: drift; 2: no package index reachable through pip (or bad input).",
    )
    ver.add_argument("frameworks", nargs="*", metavar="FRAMEWORK", help="framework ids (default: all)")
    ver.add_argument("--json", action="store_true", help="print JSON on stdout (shape: docs/knowledge.md)")
    ver.add_argument("--jobs", type=int, default=8, metavar="N", help="pip children at a time (default 8)")
    ver.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per pip question (default 120)")
    ver.add_argument("--fresh", action="store_true", help="ask pip again instead of using answers up to an hour old")
    ver.add_argument(
        "--python", metavar="PATH", help="the Python whose pip asks the index (default: the one running fwadvisor)"
    )
    ver.add_argument("--source-dates", action="store_true",
                     help="also check that each pkg:pypi/NAME@VERSION source is dated with that release's upload date")


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action."""
    from advisor.errors import ExitCode
    from advisor.knowledge import load_knowledge, validate_dirs
    from advisor.sanitize import one_line

    if args.kb_command == "schema":
        from advisor.knowledge.schema_export import knowledge_json_schema_text

        sys.stdout.write(knowledge_json_schema_text())
        return 0
    if args.kb_command == "validate":
        kb = validate_dirs([*args.kb, *args.dirs])
        packs = ", ".join(f"{p.name} {p.version}" for p in kb.packs)
        n_scores = sum(len(f.scores) for f in kb.frameworks.values())
        print(  # pack names and versions are the pack's text: escaped (one_line) before they reach a terminal
            one_line(f"ok: {packs}: {len(kb.frameworks)} frameworks, {len(kb.criteria)} criteria, {n_scores} scores, "
            f"{len(kb.migrations)} migrations, {len(kb.routes)} deployment routes, {len(kb.engines)} engines, "
            f"{len(kb.scenarios)} scenarios")
        )
        clash = _disagreements(kb)
        unquoted = _unquoted(kb)
        stale = _stale(kb)
        _figures(kb, listed=args.figures)
        refused = (clash or unquoted) and not args.lenient or stale and args.strict
        return int(ExitCode.FAILURE) if refused else 0
    kb = load_knowledge(args.kb)
    if args.kb_command == "verify":
        from advisor.cli.commands.kb_verify import run_verify

        return run_verify(kb, args)
    if args.kb_command == "list":
        return _list(kb, args.json)
    return _show(kb, args.framework, args.json)


def _disagreements(kb: Any) -> int:
    """List the facts stated in two places that disagree; the number of them."""
    from advisor.knowledge.consistency import disagreements

    found = disagreements(kb)
    if found:
        print(f"disagreements: {len(found)} facts are stated in two places that disagree:")
    for d in found:
        print(f"  {d.rule.value}: {d.first}  <>  {d.second}")
    return len(found)


def _stale(kb: Any) -> int:
    """List the facts past their review interval today (a warning unless `--strict`); the number of them."""
    import datetime as dt

    from advisor.knowledge.freshness import stale_facts

    found = stale_facts(kb, dt.date.today())
    if found:
        print(f"stale_fact: {len(found)} facts are past their review interval:")
    for f in found:
        print(f"  {f.id} ({f.kind.value}): as of {f.as_of.isoformat()}, reviewed every {f.review_days} days")
    return len(found)


def _unquoted(kb: Any) -> int:
    """List the facts whose sources are not all quoted; the number of them."""
    from pathlib import Path

    from advisor.knowledge.quotes import unquoted_facts

    facts = [u for p in kb.packs for u in unquoted_facts(Path(p.path))]
    if not facts:
        print("quotes: every fact quotes each of its sources or says basis: judgement")
    else:
        print(f"unquoted: {len(facts)} facts have a source without a quote (basis: judgement needs none):")
    for u in facts:
        print(f"  {u.where()}: {u.field} ({u.kind.value}, {u.missing} of {u.sources} sources unquoted)")
    return len(facts)


def _figures(kb: Any, *, listed: bool) -> int:
    """Count (and with `listed`, list) the facts stating a version none of their quotes gives; the number."""
    from pathlib import Path

    from advisor.knowledge.figures import unquoted_figures

    found = [f for p in kb.packs for f in unquoted_figures(Path(p.path))]
    if found:
        tail = ":" if listed else " (a hint; --figures lists them)"
        print(f"figures: {len(found)} facts state a version that none of their quotes gives{tail}")
    for f in found if listed else []:
        print(f"  {f.where()}: {f.field} ({f.kind.value}): {', '.join(f.figures)}")
    return len(found)


def _list(kb: Any, as_json: bool) -> int:
    from advisor.jsonio import json_text
    from advisor.knowledge.base import pack_json
    from advisor.privacy import scrub_text

    data = {
        "packs": [pack_json(p) | {"path": scrub_text(p.path)} for p in kb.packs],
        "frameworks": {k: f.name for k, f in kb.frameworks.items()},
        "criteria": {k: c.name for k, c in kb.criteria.items()},
        "scenarios": {k: s.name for k, s in kb.scenarios.items()},
        "deployment_targets": {k: t.name for k, t in kb.targets.items()},
        "engines": {k: e.name for k, e in kb.engines.items()},
        "policies": {k: p.description for k, p in kb.policies.items()},
    }
    if as_json:
        sys.stdout.write(json_text(data))
        return 0
    from rich.table import Table

    from advisor.cli.output import cell
    from advisor.cli.output import console as make_console

    console = make_console()  # the one renderer: pack text is never markup, its control characters are escaped
    for title, rows in data.items():
        if not rows:
            continue
        table = Table(title=title.replace("_", " ").capitalize(), title_justify="left")
        if title == "packs":
            table.add_column("name")
            table.add_column("version")
            table.add_column("path")
            for p in rows:  # type: ignore[union-attr]
                table.add_row(cell(p["name"]), cell(p["version"]), cell(p["path"]))
        else:
            table.add_column("id")
            table.add_column("name")
            for k, v in rows.items():  # type: ignore[attr-defined]
                table.add_row(cell(k), cell(v))
        console.print(table)
    return 0


def _show(kb: Any, framework: str | None, as_json: bool) -> int:
    from advisor.errors import UsageError
    from advisor.jsonio import json_text

    if framework is not None and framework not in kb.frameworks:
        raise UsageError.unknown("framework", framework, kb.frameworks, field="framework")
    ids = [framework] if framework else list(kb.frameworks)
    if as_json:
        out = {fid: kb.frameworks[fid].model_dump(mode="json", by_alias=True) for fid in ids}
        sys.stdout.write(json_text(out if framework is None else out[framework]))
        return 0
    from rich.table import Table

    from advisor.cli.output import cell as e
    from advisor.cli.output import console as make_console
    from advisor.cli.output import styled
    from advisor.sanitize import printable

    console = make_console()
    for fid in ids:
        fw = kb.frameworks[fid]
        console.rule(styled((e(fw.name), "bold"), f" ({e(fid)})"))
        console.print(f"Maintainer: {e(fw.maintainer)}\nGovernance: {e(fw.governance)}\n"
                      f"Licence: {e(str(fw.license))}")
        console.print(f"Stable line: {e(str(fw.stable_version))}   Python: {e(', '.join(fw.python_versions))}")
        hw = Table(title="Hardware", title_justify="left")
        hw.add_column("backend")
        hw.add_column("status")
        hw.add_column("notes", overflow="fold")
        hw.add_column("sources", overflow="fold")
        for key, support in fw.hardware.items():
            hw.add_row(e(key.value), e(support.status.value), e(support.notes or ""), printable(sources_text(support)))
        console.print(hw)
        console.print(styled(("Compiler:", "bold"), f" {e(fw.compiler.summary)}"))
        console.print(styled(("Distributed:", "bold"), f" {e(fw.distributed.summary)}"))
        scores = Table(title="Scores", title_justify="left")
        scores.add_column("criterion")
        scores.add_column("score", justify="right")
        scores.add_column("as of")
        scores.add_column("rationale", overflow="fold")
        scores.add_column("sources", overflow="fold")
        for cid, score in fw.scores.items():
            scores.add_row(
                e(kb.criteria[cid].name),
                f"{score.score:g}",
                score.as_of.isoformat(),
                e(score.rationale),
                printable(sources_text(score)),
            )
        console.print(scores)
        console.print(styled(("Sources", "bold"), f" (maintainer, licence, Python):\n{printable(sources_text(fw))}"))
    return 0


def sources_text(fact: Any) -> str:
    """A fact's sources, one a line, each with its quote and date; a judgement says so first."""
    from advisor.knowledge.schema import Basis

    lines = ["judgement: reasoning in the rationale or notes"] if fact.basis is Basis.JUDGEMENT else []
    for src in fact.sources:
        date = f" ({src.date.isoformat()})" if src.date else ""
        lines.append(f'{src} "{src.quote}"{date}' if src.quote else f"{src} (no quote yet){date}")
    return "\n".join(lines)
