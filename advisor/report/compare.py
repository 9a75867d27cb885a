"""Many saved reports side by side as one typed `Comparison`: what differs (setup, machines, ranks, figures) first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from advisor.errors import ReportError
from advisor.report.models import Report

SCHEMA: Literal["fwadvisor.compare/1"] = "fwadvisor.compare/1"
#: Totals that print the same at two decimals are the same total.
TOTAL_TOLERANCE = 0.005
#: Figures within 10% of each other count as the same: run-to-run noise on a quiet machine is a few per cent
#: (docs/scoring.md, benchmark stability), so smaller gaps say nothing about the machines.
FIGURE_TOLERANCE = 0.10


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MismatchCode(StrEnum):
    """Why the reports are not comparable like for like; stated at the top of every form of the comparison."""

    PROFILE = "profile_differs"  # weights, constraints, scenario or candidate list differ
    KNOWLEDGE = "knowledge_differs"  # knowledge base versions differ
    PACKS = "packs_differ"  # same version, other overlay packs (or other pack contents)
    PRESET = "preset_differs"  # benchmark presets differ (or some reports have no benchmarks)
    TOOL = "tool_differs"  # fwadvisor versions differ
    SCHEMA = "schema_differs"  # report schema versions differ


class Group(_M):
    """Reports that share one value (labels in report order)."""

    value: str
    labels: list[str]


class Mismatch(_M):
    """One setting that differs between the reports, with which reports have which value."""

    code: MismatchCode
    groups: list[Group]


class ComparedReport(_M):
    """One report in the comparison: its short label (A, B, ...) and what the legend says about it."""

    label: str
    file: str
    name: str  # the shortest path suffix that tells it apart from the other files
    machine: str
    profile: str
    knowledge: str
    preset: str | None
    winner: str | None
    verdict: str


class Fact(_M):
    """One property of the machines or the advice (cpu, gpus, winner, ...), grouped by value."""

    key: str
    groups: list[Group]
    differs: bool


class RankCell(_M):
    """A framework's place in one report: ranked, excluded by a constraint, or absent."""

    state: Literal["ranked", "excluded", "absent"]
    rank: int | None = None
    total: float | None = None


class RankingRow(_M):
    """One framework across the reports."""

    framework: str
    name: str
    cells: list[RankCell]
    differs: bool


class FigureRow(_M):
    """One benchmark figure (framework, device, benchmark, variant) across the reports; None where not measured."""

    framework: str
    device: str | None
    benchmark: str
    variant: str | None
    metric: str | None
    unit: str | None
    values: list[float | None]
    differs: bool

    @property
    def ratio(self) -> float | None:
        """Largest over smallest positive value, when at least two reports have one."""
        got = [v for v in self.values if v is not None and v > 0]
        return max(got) / min(got) if len(got) > 1 else None


class Comparison(_M):
    """Reports side by side; every list of rows has the rows that differ first."""

    schema_id: Literal["fwadvisor.compare/1"] = Field(default=SCHEMA, alias="schema")
    reports: list[ComparedReport]
    mismatches: list[Mismatch]
    facts: list[Fact]
    ranking: list[RankingRow]
    figures: list[FigureRow]

    @property
    def labels(self) -> list[str]:
        """A, B, C, ... in report order."""
        return [r.label for r in self.reports]


def labels_for(count: int) -> list[str]:
    """A..Z, then AA, AB, ...: short, and never a prefix-cut of a longer name."""
    out = []
    for i in range(count):
        text, n = "", i
        while True:
            text = chr(ord("A") + n % 26) + text
            n = n // 26 - 1
            if n < 0:
                break
        out.append(text)
    return out


def short_names(paths: Sequence[str]) -> list[str]:
    """The shortest trailing path parts that tell distinct files apart (the same file keeps the same name)."""
    parts = [Path(p).absolute().parts for p in paths]
    distinct = len(set(parts))
    for k in range(1, max(len(p) for p in parts) + 1):
        names = ["/".join(p[-k:]) for p in parts]
        if len(set(names)) == distinct:
            return names
    return ["/".join(p) for p in parts]


def _groups(labels: Sequence[str], values: Sequence[str]) -> list[Group]:
    order: dict[str, list[str]] = {}
    for label, value in zip(labels, values, strict=True):
        order.setdefault(value, []).append(label)
    return [Group(value=v, labels=ls) for v, ls in order.items()]


def _machine_line(r: Report) -> str:
    m = r.machine
    parts = [m.hostname or "", m.cpu or "unknown CPU"]
    if m.logical_cores:
        parts.append(f"{m.logical_cores} cores")
    parts.append(", ".join(m.gpus) if m.gpus else "no GPU")
    return ", ".join(p for p in parts if p)


def _profile_key(r: Report) -> tuple[object, ...]:
    p = r.profile
    weights = tuple(sorted((k, round(v, 6)) for k, v in p.normalized_weights.items()))
    constraints = tuple(sorted((k, str(v)) for k, v in p.constraints.items() if v))
    return p.scenario, weights, constraints, tuple(p.frameworks), tuple(p.policies)


def _profile_text(r: Report) -> str:
    p = r.profile
    scenario = f"scenario {p.scenario}" if p.scenario else "no scenario"
    return p.source if p.source and p.source != scenario else scenario


def _mismatches(labels: list[str], reports: Sequence[Report]) -> list[Mismatch]:
    def one(code: MismatchCode, values: list[str], keys: Sequence[object] | None = None) -> Mismatch | None:
        if len(set(keys if keys is not None else values)) < 2:
            return None
        return Mismatch(code=code, groups=_groups(labels, values))

    profiles = [_profile_key(r) for r in reports]
    texts = [_profile_text(r) for r in reports]
    if len(set(profiles)) > 1 and len(set(texts)) < len(set(profiles)):
        # Two different profiles with the same source name: number them so the warning does not look empty.
        ids = {key: i + 1 for i, key in enumerate(dict.fromkeys(profiles))}
        texts = [f"{t} (profile {ids[k]})" for t, k in zip(texts, profiles, strict=True)]
    versions = [r.knowledge.version for r in reports]
    pack_keys = [tuple((p.name, p.version, p.digest) for p in r.knowledge.packs) for r in reports]
    packs = [", ".join(f"{p.name} {p.version}" for p in r.knowledge.packs) for r in reports]
    if len(set(packs)) < len(set(pack_keys)):  # the same names and versions, other contents: name the digests
        packs = [", ".join(f"{p.name} {p.version} ({p.digest[:12]})" for p in r.knowledge.packs) for r in reports]
    found = [
        one(MismatchCode.PROFILE, texts, profiles),
        one(MismatchCode.KNOWLEDGE, versions),
        None if len(set(versions)) > 1 else one(MismatchCode.PACKS, packs, pack_keys),
        one(MismatchCode.PRESET, [_preset(r) or "no benchmarks" for r in reports]),
        one(MismatchCode.TOOL, [r.tool.version for r in reports]),
        one(MismatchCode.SCHEMA, [r.schema_version for r in reports]),
    ]
    return [m for m in found if m is not None]


def _preset(r: Report) -> str | None:
    return None if r.benchmarks is None else (r.benchmarks.preset or "unknown preset")


_FACTS: tuple[tuple[str, Callable[[Report], str]], ...] = (
    ("winner", lambda r: f"{r.recommendation.name or 'none'} ({r.recommendation.verdict})"),
    ("decision", lambda r: r.recommendation.decision),
    ("host", lambda r: r.machine.hostname or "not recorded"),
    ("cpu", lambda r: r.machine.cpu or "unknown"),
    ("cores", lambda r: str(r.machine.logical_cores or "unknown")),
    ("memory", lambda r: f"{(r.machine.memory_total_bytes or 0) / 2**30:.1f} GiB" if r.machine.memory_total_bytes
     else "unknown"),
    ("gpus", lambda r: ", ".join(r.machine.gpus) or "none"),
    ("os", lambda r: r.machine.os or "unknown"),
    ("python", lambda r: r.machine.python or "unknown"),
)


def _ranking(reports: Sequence[Report]) -> list[RankingRow]:
    names: dict[str, str] = {}
    for r in reports:
        names.update({e.framework: e.name for e in r.ranking})
    for r in reports:
        for x in r.exclusions:
            names.setdefault(x.framework, x.framework)
    rows = []
    for fid, name in names.items():
        cells = []
        for r in reports:
            entry = next((e for e in r.ranking if e.framework == fid), None)
            if entry is not None:
                cells.append(RankCell(state="ranked", rank=entry.rank, total=entry.total))
            elif any(x.framework == fid for x in r.exclusions):
                cells.append(RankCell(state="excluded"))
            else:
                cells.append(RankCell(state="absent"))
        totals = [c.total for c in cells if c.total is not None]
        differs = (
            len({(c.state, c.rank) for c in cells}) > 1
            or (len(totals) > 1 and max(totals) - min(totals) >= TOTAL_TOLERANCE)
        )
        rows.append(RankingRow(framework=fid, name=name, cells=cells, differs=differs))
    # The order of the first report that ranks a framework, best first; then differences first.
    best = {row.framework: min((c.rank for c in row.cells if c.rank is not None), default=10**6) for row in rows}
    rows.sort(key=lambda row: best[row.framework])
    return _differences_first(rows)


def _figures(reports: Sequence[Report]) -> list[FigureRow]:
    keyed: dict[tuple[str, str | None, str, str | None], dict[int, tuple[float | None, str | None, str | None]]] = {}
    for i, r in enumerate(reports):
        for x in (r.benchmarks.results or []) if r.benchmarks else []:
            keyed.setdefault((x.framework, x.device, x.benchmark, x.variant), {})[i] = (x.value, x.unit, x.metric)
    benched = {i for i, r in enumerate(reports) if r.benchmarks and r.benchmarks.results}
    rows = []
    for (fid, device, bench, variant), per in keyed.items():
        values = [per[i][0] if i in per else None for i in range(len(reports))]
        unit = next(u for _, u, _ in per.values())
        metric = next(m for _, _, m in per.values())
        got = [v for v in values if v is not None and v > 0]
        spread = max(got) / min(got) - 1 if len(got) > 1 else 0.0
        # A report without benchmarks is already warned about (preset_differs): its gaps are no difference.
        differs = any(v is None for i, v in enumerate(values) if i in benched) or spread > FIGURE_TOLERANCE
        rows.append(FigureRow(framework=fid, device=device, benchmark=bench, variant=variant, metric=metric,
                              unit=unit, values=values, differs=differs))
    return _differences_first(rows)


_Row = TypeVar("_Row", RankingRow, FigureRow, Fact)


def _differences_first(rows: list[_Row]) -> list[_Row]:
    return [r for r in rows if r.differs] + [r for r in rows if not r.differs]


def compare_reports(reports: Sequence[tuple[str, Report]]) -> Comparison:
    """Line up `(file, report)` pairs: at least two, labelled A, B, C, ... in the order given."""
    if len(reports) < 2:
        raise ReportError("compare needs at least two reports", field="reports")
    files = [f for f, _ in reports]
    rs = [r for _, r in reports]
    labels = labels_for(len(rs))
    names = short_names(files)
    entries = [
        ComparedReport(
            label=label, file=file, name=name, machine=_machine_line(r), profile=_profile_text(r),
            knowledge=r.knowledge.version, preset=_preset(r), winner=r.recommendation.framework,
            verdict=r.recommendation.verdict,
        )
        for label, file, name, r in zip(labels, files, names, rs, strict=True)
    ]
    facts = []
    for key, get in _FACTS:
        values = [get(r) for r in rs]
        facts.append(Fact(key=key, groups=_groups(labels, values), differs=len(set(values)) > 1))
    return Comparison(
        reports=entries,
        mismatches=_mismatches(labels, rs),
        facts=_differences_first(facts),
        ranking=_ranking(rs),
        figures=_figures(rs),
    )
