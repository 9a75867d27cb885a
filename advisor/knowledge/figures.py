"""Versions a fact states that none of its quotes gives: a reader's first place to look for an unsourced clause.

Two audits found most defects to be a clause wider than its sources (a release number, a Python range, a
driver version) while every quote was verbatim. This finds the mechanical part of that: a version-like figure
(`2.15`, `0.0.52`, `3.14`) in a fact's own text (notes, rationale, route, status line) that appears in none of
its sources' quotes or addresses. It is a hint, not a verdict: a quote may give the figure in another form
(`sm_75` for 7.5, `cp314` for 3.14), so `kb validate` lists and counts these and never refuses them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from advisor.knowledge.facts import FactKind
from advisor.knowledge.quotes import fact_place, pack_facts
from advisor.knowledge.schema import Basis

#: A dotted version or figure, not part of a longer dotted word (`torch.onnx`, `1.2.3.dev`, an address).
FIGURE = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)*(?![\w.]*\w)")


@dataclass(frozen=True)
class UnquotedFigure:
    """A fact, and the figures its own text states that no source of it gives."""

    file: str
    line: int | None
    field: str
    kind: FactKind
    figures: tuple[str, ...]

    def where(self) -> str:
        """`file:line` for listings."""
        return f"{self.file}:{self.line}" if self.line else self.file


def own_text(fact: BaseModel) -> str:
    """The fact's own words: its string fields and lists of strings, not its sources and not nested facts."""
    out: list[str] = []
    for name in type(fact).model_fields:
        if name == "sources":
            continue
        value = getattr(fact, name)
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            out += value
    return " ".join(out)


def stated_not_quoted(fact: BaseModel) -> tuple[str, ...]:
    """The figures in `fact`'s own text that none of its sources' quotes or addresses gives (sorted)."""
    sources = getattr(fact, "sources", None) or []
    support = " ".join(f"{s.url} {s.quote or ''}" for s in sources)
    score = getattr(fact, "score", None)
    found = set()
    for figure in FIGURE.findall(own_text(fact)):
        if figure in support or (score is not None and figure.count(".") == 1 and float(figure) == float(score)):
            continue  # a score's own value repeated in its rationale is not a claim about the world
        found.add(figure)
    return tuple(sorted(found))


def unquoted_figures(directory: Path) -> list[UnquotedFigure]:
    """Every fact of one pack (already loaded once, so valid) that states a figure no source of it gives.

    Package facts are left out (`kb verify` checks them against the index), as are judgements, which say so.
    """
    out: list[UnquotedFigure] = []
    for shown, raw, at in pack_facts(directory):
        if at.kind is FactKind.PACKAGE or getattr(at.fact, "basis", None) is Basis.JUDGEMENT:
            continue
        if not getattr(at.fact, "sources", None):
            continue
        figures = stated_not_quoted(at.fact)
        if figures:
            out.append(UnquotedFigure(shown, *fact_place(raw, at), at.kind, figures))
    return out
