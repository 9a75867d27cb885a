"""Draw the second reader's audit sample: quoted facts of the shipped base, at random with a printed seed.

Run: `python benchmarks/kb_audit_sample.py [--seed N] [--size N] [--exclude FILE ...] [--changed-since REV]
[--judgements]`.
`--changed-since REV` prints, instead of a random sample, every fact of the population whose lines differ
from git revision REV (a fixer's changes, for their second reader). The population is
every fact (as `kb validate` counts them, package claims left out) whose sources all carry a quote; facts
that say `basis: judgement` are left out, unless `--judgements`, which draws from those instead (the ones
whose sources all carry quotes: the reader checks the premises they quote). `--exclude` drops the facts of
files the reader wrote, so that no one audits their own quotes. The population is sorted by file and field
path before drawing, so one seed gives one sample for one state of the base. Prints, per fact: its
number, file:line, field path, kind, and each source with its quote and date, for the reader to check.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from advisor.knowledge.consistency import derive_stewardship
from advisor.knowledge.facts import field_path, iter_facts
from advisor.knowledge.loader import parse_file
from advisor.knowledge.quotes import QUOTED_KINDS, pack_files
from advisor.knowledge.schema import Basis, Framework, Source, StewardshipFile
from advisor.yamlio import LineDict, LineList, line_of

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Drawn:
    """One fact of the population: where it is, its kind, and its sources."""

    file: str
    line: int | None
    field: str
    kind: str
    claim: str
    sources: tuple[Source, ...]
    path: tuple[str | int, ...] = ()
    judgement: bool = False


def claim_of(fact: BaseModel) -> str:
    """What the fact states, without its sources or nested facts: what the reader checks the quotes against."""
    parts = []
    for name, value in fact:
        if name in ("sources", "as_of", "basis") or isinstance(value, (BaseModel, dict)):
            continue
        if isinstance(value, list) and any(isinstance(v, BaseModel) for v in value):
            continue
        if value not in (None, [], ""):
            parts.append(f"{name}={value}")
    return "; ".join(parts)


def population(directory: Path, exclude: set[str], judgements: bool = False) -> list[Drawn]:
    """Every fact whose sources are all quoted, in file and field order, minus the excluded files.

    `judgements` selects the facts marked `basis: judgement` instead of the others.
    """
    return [d for d in every_fact(directory, exclude) if d.judgement == judgements]


def every_fact(directory: Path, exclude: set[str]) -> list[Drawn]:
    """Both populations in one pass over the files, each fact marked with the one it belongs to."""
    out: list[Drawn] = []
    files = [(path, *parse_file(path, model)) for path, model in pack_files(directory)]
    frameworks = {p.id: p for _, p, _ in files if isinstance(p, Framework)}
    for path, parsed, raw in files:
        shown = path.relative_to(directory.parent).as_posix()
        if shown in exclude:
            continue
        if isinstance(parsed, StewardshipFile):
            # Show what the loader serves (multi_backend, os filled from the framework file), not the raw entry.
            derived = [derive_stewardship(st, frameworks.get(st.framework)) for st in parsed.frameworks]
            parsed = parsed.model_copy(update={"frameworks": derived})
        for at in iter_facts(parsed):
            if at.kind not in QUOTED_KINDS:
                continue
            sources = tuple(getattr(at.fact, "sources", []))
            if sources and all(s.quote for s in sources):
                # A file-level fact is shown at its `sources` line, but owns every top-level field
                # (governance, maintainer): its path stays the root for `touched`.
                where = at.path or ("sources",)
                out.append(
                    Drawn(shown, line_of(raw, where), field_path(where), at.kind.value, claim_of(at.fact), sources,
                          tuple(at.path), getattr(at.fact, "basis", None) is Basis.JUDGEMENT)
                )
    return sorted(out, key=lambda d: (d.file, d.line or 0, d.field))


def changed_lines(rev: str) -> dict[str, set[int]]:
    """Per knowledge file (as `population` names it), the lines of this tree that differ from `rev`."""
    done = subprocess.run(["git", "diff", "-U0", rev, "--", "knowledge"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    if done.returncode:
        # git's own first line says what is wrong (an unknown revision, no repository).
        reason = (done.stderr.strip().splitlines() or [f"git diff exited {done.returncode}"])[0]
        raise ValueError(f"kb_audit_sample: --changed-since {rev}: {reason}")
    diff = done.stdout
    out: dict[str, set[int]] = {}
    current = ""
    for line in diff.splitlines():
        if line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else ""
        elif (m := re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)) and current:
            start, count = int(m[1]), int(m[2] if m[2] is not None else 1)
            # A pure deletion (count 0) touches the fact that holds the line before it.
            out.setdefault(current, set()).update(range(start, start + count) if count else {start})
    return out


def path_at(raw: Any, line: int) -> tuple[str | int, ...]:
    """The YAML path of the element that holds `line`: at each level the key or item starting nearest above it."""
    path: list[str | int] = []
    node: Any = raw
    while isinstance(node, LineDict | LineList):
        starts: list[tuple[int, Any]] = (
            [(at, k) for k, at in node.key_lines.items()] if isinstance(node, LineDict)
            else [(at, i) for i, at in enumerate(node.item_lines)]
        )
        above = [(at, key) for at, key in starts if at is not None and at <= line]
        if not above:
            break
        key = max(above, key=lambda pair: pair[0])[1]
        path.append(key)
        node = node[key]
    return tuple(path)


def touched(pop: list[Drawn], lines: dict[str, set[int]]) -> list[Drawn]:
    """The facts that hold a changed line: the fact whose path is the longest prefix of the line's YAML path."""
    files = pack_files(ROOT / "knowledge")
    raws = {path.relative_to(ROOT).as_posix(): parse_file(path, model)[1] for path, model in files}
    hit: list[Drawn] = []
    for file, changed in lines.items():
        facts = [d for d in pop if d.file == file]
        for line in sorted(changed):
            where = path_at(raws[file], line) if file in raws else ()
            owners = [d for d in facts if where[: len(d.path)] == d.path]
            if owners and (best := max(owners, key=lambda d: len(d.path))) not in hit:
                hit.append(best)
    return sorted(hit, key=lambda d: (d.file, d.line or 0, d.field))


def main() -> None:
    """Print the sample."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--size", type=int, default=60)
    parser.add_argument("--exclude", nargs="*", default=[], help="files (knowledge/...) whose facts to leave out")
    parser.add_argument("--changed-since", metavar="REV", help="every fact whose lines differ from git revision REV")
    parser.add_argument("--judgements", action="store_true", help="draw from the facts marked basis: judgement")
    args = parser.parse_args()
    everything = every_fact(ROOT / "knowledge", set(args.exclude))
    pop = [d for d in everything if d.judgement == args.judgements]
    kind = "judgement facts with quoted premises" if args.judgements else "quoted facts"
    if args.changed_since:
        # Ownership is decided among all facts, so that a changed judgement fact is not charged to the
        # framework fact around it; then only this population's facts are kept.
        try:
            lines = changed_lines(args.changed_since)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            raise SystemExit(2) from None
        hit = touched(everything, lines)
        sample = [d for d in hit if d.judgement == args.judgements]
        print(f"{len(sample)} {kind} changed since {args.changed_since}")
    else:
        sample = random.Random(args.seed).sample(pop, min(args.size, len(pop)))
        print(f"seed {args.seed}: {len(sample)} of {len(pop)} {kind} "
              f"(excluded: {', '.join(args.exclude) or 'none'})")
    for n, d in enumerate(sample, 1):
        print(f"\n{n}. {d.file}:{d.line} {d.field} ({d.kind})")
        print(f"   claim: {d.claim}")
        for s in d.sources:
            print(f"   - {s.url}" + (f" [{s.date}]" if s.date else ""))
            print(f"     {s.quote}")


if __name__ == "__main__":
    main()
