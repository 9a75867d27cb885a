"""Facts whose sources are not all quoted: what `kb validate` lists and `kb validate --strict` refuses."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from advisor.knowledge.facts import FactAt, FactKind, field_path, iter_facts
from advisor.knowledge.loader import PACK_FILES, parse_file
from advisor.knowledge.schema import Basis, Framework
from advisor.yamlio import line_of

#: Kinds that must quote each source. Package claims are left out: `kb verify` checks them against the
#: package index itself, which is a stronger proof than an excerpt of it.
QUOTED_KINDS = frozenset(FactKind) - {FactKind.PACKAGE}


@dataclass(frozen=True)
class Unquoted:
    """A fact with at least one source that carries no quote, and that does not say `basis: judgement`."""

    file: str  # the pack folder's name and the path inside it, e.g. "knowledge/frameworks/jax.yaml"
    line: int | None
    field: str  # field path inside the file, e.g. "hardware.google_tpu.generations.v5e"
    kind: FactKind
    missing: int  # sources without a quote
    sources: int  # sources in all

    def where(self) -> str:
        """`file:line` for listings."""
        return f"{self.file}:{self.line}" if self.line else self.file


def pack_files(directory: Path) -> list[tuple[Path, type[BaseModel]]]:
    """The knowledge files of one pack folder and the model of each, in the loader's order."""
    files: list[tuple[Path, type[BaseModel]]] = [
        (directory / name, model) for name, model in PACK_FILES.items() if (directory / name).is_file()
    ]
    fw_dir = directory / "frameworks"
    if fw_dir.is_dir():
        files += [(p, Framework) for p in sorted(fw_dir.glob("*.yaml"))]
    return files


def pack_facts(directory: Path) -> Iterator[tuple[str, Any, FactAt]]:
    """Every fact of one pack (already loaded once, so valid): its file as shown, the file's raw YAML, the fact."""
    for path, model in pack_files(directory):
        parsed, raw = parse_file(path, model)
        shown = path.relative_to(directory.parent).as_posix()
        for at in iter_facts(parsed):
            yield shown, raw, at


def fact_place(raw: Any, at: FactAt) -> tuple[int | None, str]:
    """The fact's line and field path; a file-level fact (a framework's licence, ...) is named by `sources`."""
    where = at.path or ("sources",)
    return line_of(raw, where), field_path(where)


def unquoted_facts(directory: Path) -> list[Unquoted]:
    """Every fact of one pack (already loaded once, so valid) that lacks a quote for some source."""
    out: list[Unquoted] = []
    for shown, raw, at in pack_facts(directory):
        if at.kind not in QUOTED_KINDS or getattr(at.fact, "basis", None) is Basis.JUDGEMENT:
            continue
        sources = getattr(at.fact, "sources", [])
        missing = sum(1 for s in sources if s.quote is None)
        if missing:
            out.append(Unquoted(shown, *fact_place(raw, at), at.kind, missing, len(sources)))
    return out
