"""Check that every quote of a `pkg:pypi/NAME@VERSION` source is verbatim text of that release.

Run: `python benchmarks/kb_quote_check.py [NAME | NAME@VERSION ...] [--index-url URL] [--cache DIR] [--jobs N]
[--max-bytes N] [--json]`.
Per release it lists the files with the PEP 691 JSON simple API and searches, cheapest first and stopping for a
quote once found: the distribution file names; the core metadata (PEP 658 `.metadata` files, else the wheel's
or sdist's own); every wheel's member names (its central directory, read by HTTP Range requests); the members
of the smallest wheel, then of the sdist, then of the other wheels in size order, up to `--max-bytes` per
release (text decoded as UTF-8 with errors ignored, Python modules also as their string values; binaries also
as printable-string runs, like `strings`). pip's `NAME (VERSION)` line is checked against the index.
Whitespace runs count as one space; a quote also matches once Markdown markup (backticks, `*`, `_` emphasis,
`[text](url)`) is removed from both sides, and says so. Nothing looser: a quote that joins two lines with ", "
or skips an entry of a list is not found. The index side is in kb_quote_index.py. Exit 0: every quote found;
1: some not found (or a file failed its sha256); 2: bad input or an unreachable index, in one line.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from packaging.utils import canonicalize_name

from advisor.knowledge.quotes import fact_place, pack_facts
from advisor.sanitize import one_line

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module, also when loaded by path
from kb_quote_index import Release, Unreachable, download, listing, pip_line, remote_names  # noqa: E402

CHUNK = 32 << 20
OVERLAP = 64 << 10  # raw bytes carried into the next chunk, so that a quote across a chunk boundary is still seen
PRINTABLE = re.compile(rb"[\x20-\x7e\t]{4,}")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
EMPHASIS = re.compile(r"(?<!\w)_+|_+(?!\w)")


@dataclass(frozen=True)
class Cited:
    """One quoted `pkg:pypi/NAME@VERSION` source: the fact citing it and the quote."""

    file: str
    line: int | None
    field: str
    name: str
    version: str
    quote: str

    def where(self) -> str:
        return f"{self.file}:{self.line} {self.field}" if self.line else f"{self.file} {self.field}"


def collapse(text: str) -> str:
    return " ".join(text.split())


def unmark(text: str) -> str:
    """The text without Markdown markup: links become their text, backticks, `*` and `_` emphasis go."""
    text = LINK.sub(r"\1", text).replace("`", "").replace("*", "")
    return collapse(EMPHASIS.sub("", text))


def cited(directory: Path, only: Iterable[str] = ()) -> list[Cited]:
    """Every quoted pkg:pypi source with a version in the pack, or only those of the NAME / NAME@VERSION filters."""
    wanted = [(canonicalize_name(f.split("@")[0]), f.split("@")[1] if "@" in f else None) for f in only]
    out: list[Cited] = []
    for shown, raw, at in pack_facts(directory):
        line, path = fact_place(raw, at)
        for source in getattr(at.fact, "sources", []) or []:
            url = str(source.url)
            if not url.startswith("pkg:pypi/") or "@" not in url or not source.quote:
                continue
            name, version = url.removeprefix("pkg:pypi/").split("@", 1)
            if wanted and not any(canonicalize_name(name) == n and v in (None, version) for n, v in wanted):
                continue
            out.append(Cited(shown, line, path, name, version, source.quote))
    return out


class Search:
    """The quotes of one release still to find, checked against one haystack text at a time."""

    def __init__(self, rel: Release, quotes: Iterable[str]) -> None:
        self.rel = rel
        self.pending = {q: (collapse(q), unmark(q)) for q in quotes if q not in rel.found}
        # A quote's longest word, as bytes: where it is not in a binary chunk, neither is the quote.
        self.probe = {q: max(exact.split(), key=len).encode() for q, (exact, _) in self.pending.items()}

    def text(self, text: str, kind: str, place: str, markup: bool = True) -> None:
        if not self.pending:
            return
        plain = collapse(text)
        bare: str | None = None
        for quote, (exact, unmarked) in list(self.pending.items()):
            if exact in plain:
                self.rel.found[quote] = (kind, place, False)
            elif markup and unmarked in (bare := unmark(plain) if bare is None else bare):
                self.rel.found[quote] = (kind, place, True)
            else:
                continue
            del self.pending[quote]

    def stream(self, data: IO[bytes], kind: str, place: str) -> None:
        """A member read in overlapping chunks: as UTF-8 text, and (binaries) as printable-string runs.

        Binaries are searched verbatim only (no Markdown there), and only the chunks that hold some quote's
        longest word: removing markup from hundreds of megabytes of machine code would cost minutes.
        """
        carry, binary, first = b"", False, True
        while self.pending and (block := data.read(CHUNK)):
            chunk = carry + block
            carry = chunk[-OVERLAP:]
            if first:
                binary, first = b"\0" in block[:8192], False
            if not binary:
                self.text(chunk.decode("utf-8", "ignore"), kind, place)
            elif any(self.probe[q] in chunk for q in self.pending):
                self.text(chunk.decode("utf-8", "ignore"), kind, place, markup=False)
                self.text("\n".join(m.decode() for m in PRINTABLE.findall(chunk)), kind, place, markup=False)

    def python(self, source: bytes, kind: str, place: str) -> None:
        """A Python module's string values: a message split over adjacent literals ("a " "b") reads as one string.

        Comments are not strings: two comment lines joined stay unmatched.
        """
        if not self.pending or not any(self.probe[q] in source for q in self.pending):
            return
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return
        values = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        self.text("\n".join(values), kind, f"{place} (Python string value)")

    def archive(self, path: Path, kind: str) -> None:
        """Every member of a wheel (zip) or sdist (tar or zip)."""
        members = 0
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                # The member names as `zipinfo -1` lists them (archive order), before any member's contents.
                self.text("\n".join(zf.namelist()), kind, f"{path.name} (member names)")
                for info in zf.infolist():
                    if not self.pending:
                        break
                    members += 1
                    with zf.open(info) as data:
                        self.stream(data, kind, f"{path.name}:{info.filename}")
                    if info.filename.endswith(".py") and self.pending:
                        self.python(zf.read(info), kind, f"{path.name}:{info.filename}")
        else:
            names = []
            with tarfile.open(path, "r:*") as tf:  # read as a stream: a gzip seeks back only by starting over
                for member in tf:
                    names.append(member.name)
                    content = tf.extractfile(member) if member.isfile() and self.pending else None
                    if content is not None:
                        members += 1
                        if member.name.endswith(".py"):
                            source = content.read()
                            self.stream(io.BytesIO(source), kind, f"{path.name}:{member.name}")
                            self.python(source, kind, f"{path.name}:{member.name}")
                        else:
                            self.stream(content, kind, f"{path.name}:{member.name}")
            self.text("\n".join(names), kind, f"{path.name} (member names)")
        self.rel.searched.append(f"{path.name} ({members} members)")


def metadata_member(path: Path) -> str | None:
    """The core metadata inside a wheel (`*.dist-info/METADATA`) or an sdist (`PKG-INFO`)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA") or n.count("/") <= 1
                     and n.endswith("PKG-INFO")]
            return zf.read(names[0]).decode("utf-8", "ignore") if names else None
    with tarfile.open(path, "r:*") as tf:
        for member in tf:
            if member.name.count("/") == 1 and member.name.endswith("/PKG-INFO"):
                data = tf.extractfile(member)
                return data.read().decode("utf-8", "ignore") if data else None
    return None


def check_release(name: str, version: str, quotes: list[str], listed: tuple[list[dict[str, Any]], list[str]],
                  cache: Path, max_bytes: int) -> Release:
    """Search the release's haystacks, cheapest first, until every quote is found or the budget is spent."""
    rel = Release(name, version)
    files, versions = listed
    for quote in quotes:
        if pip_line(quote, name, version, versions):
            rel.found[quote] = ("pip line, on the index", "index", False)
    if not files:
        rel.problems.append(f"no files for {version} on the index")
        return rel
    here = cache / canonicalize_name(name)
    search = Search(rel, quotes)
    search.text("\n".join(f["filename"] for f in files), "file names", "index")
    rel.searched.append(f"{len(files)} file names")
    wheels = sorted((f for f in files if f["filename"].endswith(".whl")), key=lambda f: f.get("size") or 0)
    sdists = [f for f in files if not f["filename"].endswith(".whl")]
    offered = [f for f in wheels + sdists if f.get("core-metadata") or f.get("dist-info-metadata")]
    for f in offered:
        if not search.pending:
            break
        hashes = f.get("core-metadata") or f.get("dist-info-metadata")
        sha = hashes.get("sha256") if isinstance(hashes, dict) else None
        got = download(f["url"] + ".metadata", here / (f["filename"] + ".metadata"), sha, rel)
        if got is not None:
            search.text(got.read_text("utf-8", "ignore"), "metadata", got.name)
    if offered:
        rel.searched.append(f"{len(offered)} metadata files")
    listed_names = 0
    for f in wheels:  # every wheel's member names: a central directory costs a few Range requests, not the wheel
        if search.pending and f.get("size") and (names := remote_names(f, rel)) is not None:
            search.text("\n".join(names), "member names", f"{f['filename']} (member names)")
            listed_names += 1
    if listed_names:
        rel.searched.append(f"member names of {listed_names} wheels")
    order = [(wheels[:1], "smallest wheel"), (sdists, "sdist"), (wheels[1:], "other wheel")]
    spent, skipped, metadata_read = 0, 0, bool(offered)
    for group, kind in order:
        for f in group:
            if not search.pending:
                return rel
            size = f.get("size") or 0
            if spent + size > max_bytes:
                skipped += 1
                continue
            spent += size
            got = download(f["url"], here / f["filename"], f.get("hashes", {}).get("sha256"), rel)
            if got is None:
                continue
            if not metadata_read and (meta := metadata_member(got)) is not None:
                search.text(meta, "metadata", f"{got.name} metadata")
                rel.searched.append(f"metadata of {got.name}")
                metadata_read = True
            print(f"  {name}@{version}: searching {got.name} ({size >> 20} MB)", file=sys.stderr)
            search.archive(got, kind)
    if skipped:
        rel.searched.append(f"{skipped} files left out (--max-bytes)")
    return rel


def run(cites: list[Cited], index: str, cache: Path, jobs: int, max_bytes: int) -> dict[str, Any]:
    """Check every cited quote; the result is what `--json` prints."""
    start = time.monotonic()
    quotes: dict[tuple[str, str], list[str]] = {}
    for c in cites:
        quotes.setdefault((c.name, c.version), []).append(c.quote)
    keys = sorted(quotes)
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        listed = dict(zip(keys, pool.map(lambda k: listing(index, *k), keys), strict=True))
    args = [(n, v, sorted(set(quotes[n, v])), listed[n, v], cache, max_bytes) for n, v in keys]
    releases: dict[tuple[str, str], Release] = {}
    if jobs <= 1:
        results: Iterator[Release] = (check_release(*a) for a in args)
        for n, rel in enumerate(results, 1):
            releases[rel.name, rel.version] = progress(rel, n, len(keys))
    else:
        with ProcessPoolExecutor(jobs) as procs:
            for n, rel in enumerate(procs.map(check_release, *zip(*args, strict=True)), 1):
                releases[rel.name, rel.version] = progress(rel, n, len(keys))
    rows = []
    for c in cites:
        rel = releases[c.name, c.version]
        kind, place, unmarked = rel.found.get(c.quote, (None, None, False))
        rows.append(asdict(c) | {"found": kind is not None, "kind": kind, "place": place, "markup_removed": unmarked,
                                 "searched": rel.searched, "problems": rel.problems})
    kinds = Counter(r["kind"] + (" (markup removed)" if r["markup_removed"] else "") for r in rows if r["found"])
    problems = [f"{r.name}@{r.version}: {p}" for r in releases.values() for p in r.problems]
    summary = {"quotes": len(rows), "found": dict(sorted(kinds.items())),
               "not_found": sum(not r["found"] for r in rows), "releases": len(keys), "problems": len(problems),
               "bytes_downloaded": sum(r.downloaded for r in releases.values()),
               "seconds": round(time.monotonic() - start, 1)}
    return {"quotes": rows, "problems": problems, "summary": summary}


def progress(rel: Release, n: int, total: int) -> Release:
    print(f"[{n}/{total}] {rel.name}@{rel.version}: {len(rel.found)} found, {rel.downloaded >> 20} MB downloaded"
          + (f", {'; '.join(rel.problems)}" if rel.problems else ""), file=sys.stderr, flush=True)
    return rel


def render(result: dict[str, Any]) -> str:
    lines = []
    for r in result["quotes"]:
        if r["found"]:
            continue
        where = f"{r['file']}:{r['line']} {r['field']}" if r["line"] else f"{r['file']} {r['field']}"
        head = collapse(r["quote"])[:80]
        lines.append(f"NOT FOUND {where}: {r['name']}@{r['version']}: \"{head}\" (searched: "
                     f"{', '.join(r['searched'] + r['problems']) or 'nothing'})")
    lines += [f"PROBLEM {p}" for p in result["problems"]]
    s = result["summary"]
    found = ", ".join(f"{k} {v}" for k, v in s["found"].items()) or "none"
    lines.append(f"{s['quotes']} quotes checked in {s['releases']} releases: found {sum(s['found'].values())} "
                 f"({found}); not found {s['not_found']}; problems {s['problems']}; "
                 f"{s['bytes_downloaded'] / 1e9:.2f} GB downloaded; {s['seconds']} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Check the quotes; print what was not found and the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", metavar="NAME[@VERSION]", help="check only these releases")
    parser.add_argument("--index-url", default="https://pypi.org/simple")
    parser.add_argument("--cache", type=Path, default=Path("/var/tmp/kb-quote-cache"))
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--max-bytes", type=int, default=1_500_000_000, help="download budget per release")
    parser.add_argument("--knowledge", type=Path, default=ROOT / "knowledge", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        if args.jobs < 1 or args.max_bytes < 0:
            raise ValueError("--jobs must be at least 1 and --max-bytes not negative")
        if not urllib.parse.urlsplit(args.index_url).scheme.startswith("http"):
            raise ValueError(f"--index-url {args.index_url}: not an http(s) URL")
        cites = cited(args.knowledge, args.only)
        if not cites:
            raise ValueError(f"no quoted pkg:pypi@VERSION sources match {' '.join(args.only) or 'the pack'}")
        result = run(cites, args.index_url, args.cache, args.jobs, args.max_bytes)
    except (ValueError, Unreachable) as exc:
        print(f"kb_quote_check: {one_line(str(exc))}", file=sys.stderr)  # names come from the command line
        return 2
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 1 if result["summary"]["not_found"] or result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
