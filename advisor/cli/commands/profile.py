"""`fwadvisor profile`: write a commented profile template (`init`) or check a profile (`check`)."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "write a commented profile template (profile init) or check one (profile check FILE)"


def configure(parser: argparse.ArgumentParser) -> None:
    """`profile init [-o FILE] [--scenario ID] [--force]`, `profile check FILE [--json]`."""
    sub = parser.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    init = sub.add_parser("init", help="write a commented profile template (stdout without -o)")
    init.add_argument("-o", "--output", metavar="FILE", help="write the template to FILE")
    init.add_argument("--scenario", metavar="ID", help="start from this scenario preset")
    init.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    check = sub.add_parser("check", help="check a profile against the knowledge base and show its weights")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--json", action="store_true", help="print the resolved profile as JSON")


def run(args: argparse.Namespace) -> int:
    """Dispatch to init or check."""
    from pathlib import Path

    from advisor.cli.output import write_file
    from advisor.errors import UsageError
    from advisor.knowledge import load_knowledge
    from advisor.profile import WEIGHT_SCALE_MAX, load_profile, resolve_profile, template
    from advisor.report.words import profile_warning_words

    kb = load_knowledge(args.kb)
    if args.profile_command == "init":
        text = template(kb, args.scenario)
        if not args.output:
            sys.stdout.write(text)
            return 0
        if Path(args.output).is_file() and not args.force:  # a device or FIFO is no file to protect
            raise UsageError("file exists; use --force to overwrite it", file=args.output)
        write_file(args.output, text, what="profile template")
        return 0
    resolved = resolve_profile(load_profile(args.file), kb)
    effective = resolved.effective_weights
    data: dict[str, object] = {
        "scenario": resolved.scenario,
        "weight_source": resolved.weight_source,
        "weights": resolved.normalized_weights,
        "weight_scale": f"0-{WEIGHT_SCALE_MAX:g}",
        "effective_weights": {c: e.model_dump(mode="json") for c, e in effective.items()},
        "constraints": resolved.constraints.model_dump(mode="json"),
        "frameworks": list(resolved.frameworks),
        "consistency_ratio": resolved.ahp.consistency_ratio if resolved.ahp else None,
        "warnings": [
            {**w.model_dump(mode="json"), "message": profile_warning_words(w.code, w.params)} for w in resolved.warnings
        ],
    }
    if args.json:
        from advisor.jsonio import json_text

        sys.stdout.write(json_text(data))
        return 0
    print(f"ok: {args.file}: scenario {resolved.scenario or 'none'}, weights from {resolved.weight_source}")
    print(f"  effective weights (value on the 0-{WEIGHT_SCALE_MAX:g} scale, share of the total, set by):")
    for cid, e in effective.items():
        if e.share > 0:
            print(f"  {cid:<24} {e.value:5.2f}  {100 * e.share:5.1f}%  ({e.source})")
    cons = {k: v for k, v in resolved.constraints.model_dump(mode="json").items() if v}
    print(f"  constraints: {json.dumps(cons) if cons else 'none'}")
    for warning in resolved.warnings:
        print(f"fwadvisor: warning: {profile_warning_words(warning.code, warning.params)}", file=sys.stderr)
    return 0
