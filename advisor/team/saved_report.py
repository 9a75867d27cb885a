"""A report file read once, leniently, into typed fields: what `team merge`, `fleet` and `checklist --report` use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from advisor.errors import ReportError
from advisor.evidence.bench.collective_model import AllReduceReport
from advisor.evidence.bench.results import Measurement
from advisor.evidence.probe import ProbeReport
from advisor.knowledge.schema import Hardware
from advisor.team.foreign_probe import lenient_probe


class SavedKind(StrEnum):
    """What a usable file is: a full report, or a bare probe (`fwadvisor probe --json`)."""

    REPORT = "report"
    PROBE = "probe"


@dataclass(frozen=True)
class SavedReport:
    """One machine's saved report as the team and fleet read it; None or empty where the file does not say."""

    path: str
    kind: SavedKind
    label: str  # the report's own machine label, else the file's name
    probe: ProbeReport | None
    recommendation: str | None
    targets: tuple[str, ...]  # the profile's must_deploy_to
    team_hardware: tuple[str, ...]  # the profile's must_run_on, then its fleet's hardware
    current_framework: str | None  # the profile's team.current, when it names exactly one
    knowledge_version: str | None
    figures: tuple[Measurement, ...]  # the benchmark results that read as figures
    busy: bool  # the bench saw the machine busy: its figures cannot call it slow
    allreduce: AllReduceReport | None
    identity: str | None = None  # the report's own id, when it has one
    warnings: tuple[str, ...] = ()

    def framework_figures(self, framework: str) -> tuple[Measurement, ...]:
        """The figures this machine measured for one framework."""
        return tuple(m for m in self.figures if m.framework == framework)


def saved_report(
    data: Mapping[str, Any], path: str | Path, kind: SavedKind, warnings: tuple[str, ...] = (),
    identity: str | None = None,
) -> SavedReport:
    """Read one parsed report (or bare probe): every field once, what is missing or malformed as unknown."""
    profile = _map(data.get("profile"))
    return SavedReport(
        path=str(path), kind=kind, label=_label(data, str(path)), probe=_probe(data),
        recommendation=_recommendation(data), targets=_targets(profile), team_hardware=_team_hardware(profile),
        current_framework=_current(profile), knowledge_version=_knowledge_version(data),
        figures=_figures(data), busy=_busy(data), allreduce=_allreduce(data), identity=identity, warnings=warnings,
    )


def probe_section(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The probe JSON inside a report (or the data itself when it is a bare probe)."""
    schema = data.get("schema")
    if isinstance(schema, str) and schema.startswith("fwadvisor.probe/"):
        return data
    probe = data.get("probe")
    return probe if isinstance(probe, Mapping) else None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _probe(data: Mapping[str, Any]) -> ProbeReport | None:
    # This fwadvisor's own files read whole; an older or foreign probe reads leniently (unknown where it differs).
    raw = probe_section(data)
    if not raw:
        return None  # an empty section knows nothing: as no probe
    try:
        return ProbeReport.from_json(raw)
    except (ReportError, KeyError, TypeError, ValueError, AttributeError):
        return lenient_probe(raw)


def _recommendation(data: Mapping[str, Any]) -> str | None:
    rec = data.get("recommendation")
    if isinstance(rec, Mapping):
        for key in ("framework", "id", "choice", "top"):
            if isinstance(rec.get(key), str):
                return str(rec[key])
    elif isinstance(rec, str):
        return rec
    ranking = data.get("ranking")
    if isinstance(ranking, list) and ranking and isinstance(ranking[0], Mapping):
        for key in ("framework", "id"):
            if isinstance(ranking[0].get(key), str):
                return str(ranking[0][key])
    return None


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _targets(profile: Mapping[str, Any]) -> tuple[str, ...]:
    constraints = profile.get("constraints")
    if isinstance(constraints, Mapping) and isinstance(constraints.get("must_deploy_to"), list):
        return _strings(constraints["must_deploy_to"])
    return _strings(profile.get("must_deploy_to"))


def _team_hardware(profile: Mapping[str, Any]) -> tuple[str, ...]:
    known = {hw.value for hw in Hardware}
    out = list(_strings(_map(profile.get("constraints")).get("must_run_on")))
    fleet = _map(profile.get("as_written")).get("fleet")
    if isinstance(fleet, list):
        out += [e["hardware"] for e in fleet if isinstance(e, Mapping) and isinstance(e.get("hardware"), str)]
    return tuple(h for h in dict.fromkeys(out) if h in known)


def _current(profile: Mapping[str, Any]) -> str | None:
    for node in (profile.get("as_written"), profile):
        current = _map(_map(node).get("team")).get("current")
        if isinstance(current, list) and len(current) == 1 and isinstance(current[0], str):
            return current[0]
    return None


def _knowledge_version(data: Mapping[str, Any]) -> str | None:
    kb = _map(data.get("knowledge"))
    if isinstance(kb.get("version"), str):
        return str(kb["version"])
    packs = kb.get("packs")
    if isinstance(packs, list) and packs and isinstance(packs[0], Mapping) and packs[0].get("version"):
        return str(packs[0]["version"])
    return None


def _label(data: Mapping[str, Any], path: str) -> str:
    for section in ("machine", "probe"):
        node = _map(data.get(section))
        for key in ("label", "hostname", "name", "host"):
            value = node.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return Path(path).stem


def _figures(data: Mapping[str, Any]) -> tuple[Measurement, ...]:
    results = _map(data.get("benchmarks")).get("results")
    out = []
    for raw in results if isinstance(results, list) else []:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("value"), int | float) or isinstance(
                raw.get("value"), bool):
            continue
        try:
            figure = Measurement.from_json(raw)
        except ReportError:
            continue  # a result without a framework, benchmark or numeric value is no figure
        if figure.value == figure.value:  # NaN is no figure either
            out.append(figure)
    return tuple(out)


def _busy(data: Mapping[str, Any]) -> bool:
    state = _map(_map(_map(data.get("benchmarks")).get("environment")).get("machine_state"))
    return state.get("busy") is True


def _allreduce(data: Mapping[str, Any]) -> AllReduceReport | None:
    section = data.get("allreduce")
    if not isinstance(section, Mapping):
        return None
    try:
        return AllReduceReport.from_json(section)
    except (ReportError, KeyError, TypeError, ValueError):
        return None  # a section that cannot be read counts as none: the machine's other evidence still stands
