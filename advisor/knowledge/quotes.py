"""Facts whose sources are not all quoted: what `kb validate` lists and `kb validate --strict` refuses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from advisor.knowledge.facts import FactKind, field_path, iter_facts
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


def unquoted_facts(directory: Path) -> list[Unquoted]:
    """Every fact of one pack (already loaded once, so valid) that lacks a quote for some source."""
    out: list[Unquoted] = []
    for path, model in pack_files(directory):
        parsed, raw = parse_file(path, model)
        shown = path.relative_to(directory.parent).as_posix()
        for at in iter_facts(parsed):
            if at.kind not in QUOTED_KINDS or getattr(at.fact, "basis", None) is Basis.JUDGEMENT:
                continue
            sources = getattr(at.fact, "sources", [])
            missing = sum(1 for s in sources if s.quote is None)
            if missing:
                # A file-level fact (a framework's licence, maintainer, ...) is named by its `sources` key.
                where = at.path or ("sources",)
                out.append(Unquoted(shown, line_of(raw, where), field_path(where), at.kind, missing, len(sources)))
    return out
