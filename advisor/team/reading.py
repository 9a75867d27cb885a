"""Reading the report files given to `team merge`: untrusted JSON, named and skipped when unusable, never raised."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from advisor import limits
from advisor.errors import ReportError
from advisor.inputs import read_input_text
from advisor.report import SCHEMA_VERSION
from advisor.team.sanity import absurd_number, report_identity
from advisor.team.summary import LoadedReport, Skipped

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport

#: The report schema this fwadvisor writes; reports of another major version are read leniently, with a warning.
REPORT_SCHEMA_VERSION = SCHEMA_VERSION
REPORT_SECTIONS = ("probe", "benchmarks", "ranking", "recommendation", "knowledge")
MAX_REPORT_BYTES = limits.MAX_REPORT_BYTES

_SECTION_EFFECT = {
    "probe": "its hardware is unknown and its checklist assumes a CPU-only machine",
    "benchmarks": "no benchmark figures from it",
    "ranking": "its ranking is not counted",
    "recommendation": "its recommendation is not counted",
    "knowledge": "its knowledge version is unknown",
}


def read_json_file(path: str | Path) -> Any:
    """Parse one JSON file; `ReportError` names the file (and line) when it cannot be read or parsed."""
    p = Path(path)
    # The one input reader: regular files only (a FIFO would hang), the size checked by stat before reading.
    text = read_input_text(p, ReportError, limit=MAX_REPORT_BYTES)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(f"not valid JSON ({exc.msg}, column {exc.colno})", file=p, line=exc.lineno) from None
    except RecursionError:
        raise ReportError("not a report: the JSON is nested too deeply to read", file=p) from None
    except ValueError:  # an integer literal with more digits than Python converts (over 4300)
        raise ReportError("absurd number: an integer literal too long to read", file=p) from None


def classify(data: Any) -> tuple[str | None, str]:
    """("report" | "probe", "") for data the advisor can use, or (None, why not) for foreign JSON."""
    if not isinstance(data, dict):
        return None, f"not an fwadvisor report (the JSON is a {type(data).__name__}, not an object)"
    schema = data.get("schema")
    if isinstance(schema, str) and schema.startswith("fwadvisor.probe/"):
        return "probe", ""
    if isinstance(schema, str) and schema.startswith("fwadvisor."):
        kind = schema.split("/")[0].removeprefix("fwadvisor.")
        return None, f"an fwadvisor {kind} file, not a report (run `fwadvisor report --json` on that machine)"
    if "schema_version" in data or any(k in data for k in ("probe", "ranking", "recommendation")):
        return "report", ""
    return None, "not an fwadvisor report (no schema_version, probe, ranking or recommendation)"


def report_warnings(data: Mapping[str, Any], kind: str) -> list[str]:
    """What is odd about one report: another schema version, missing sections."""
    if kind == "probe":
        return ["a probe, not a full report: no benchmarks, ranking or recommendation from it"]
    out: list[str] = []
    version = data.get("schema_version")
    if version is None:
        out.append(f"has no schema_version (this fwadvisor writes {REPORT_SCHEMA_VERSION}); read leniently")
    elif str(version).split(".")[0] != REPORT_SCHEMA_VERSION.split(".")[0]:
        out.append(
            f"schema_version {version} differs from {REPORT_SCHEMA_VERSION} (the version this fwadvisor writes); "
            "read leniently: what does not match is shown as unknown"
        )
    for section in REPORT_SECTIONS:
        value = data.get(section)
        if section not in data or (value is None and section != "benchmarks"):
            out.append(f"has no {section} section: {_SECTION_EFFECT[section]}")
        elif value is not None and not isinstance(value, dict | list):
            out.append(f"its {section} section is a {type(value).__name__}, not an object: ignored")
    if data.get("benchmarks", 0) is None:
        out.append("was made without benchmarks: no benchmark figures from it")
    return out


def read_report(path: str | Path) -> tuple[Mapping[str, Any], list[str]]:
    """Read a report (or bare probe) for `checklist --report`: (data, warnings); `ReportError` if unusable."""
    data = read_json_file(path)
    kind, why = classify(data)
    if kind is None:
        raise ReportError(why, file=path)
    return data, report_warnings(data, kind)


def probe_of(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The probe JSON inside a report (or the data itself when it is a bare probe)."""
    schema = data.get("schema")
    if isinstance(schema, str) and schema.startswith("fwadvisor.probe/"):
        return data
    probe = data.get("probe")
    return probe if isinstance(probe, Mapping) else None


def probe_model_of(data: Mapping[str, Any]) -> ProbeReport | None:
    """The probe inside a report (or a bare probe) as the model, read leniently (`foreign_probe`); None if absent."""
    from advisor.team.foreign_probe import lenient_probe

    probe = probe_of(data)
    return lenient_probe(probe) if probe else None  # an empty section knows nothing: as no probe


class FrameworkStatus(TypedDict):
    """One framework as a report's probe saw it; None where the file does not say (or says it oddly)."""

    installed: bool | None
    version: Any
    outcome: Any
    accelerator_ok: bool | None
    devices: list[Mapping[str, Any]]


def framework_status_of(data: Mapping[str, Any], framework: str) -> FrameworkStatus:
    """Whether the report's machine has `framework` installed, its version, and whether it reached an accelerator."""
    probe = probe_of(data)
    frameworks = probe.get("frameworks") if probe is not None else None
    entry = frameworks.get(framework) if isinstance(frameworks, Mapping) else None
    if not isinstance(entry, Mapping):
        return {"installed": None, "version": None, "outcome": None, "accelerator_ok": None, "devices": []}
    raw_devices = entry.get("devices")
    devices = raw_devices if isinstance(raw_devices, list) else []
    return {
        "installed": entry.get("installed") if isinstance(entry.get("installed"), bool) else None,
        "version": entry.get("version"),
        "outcome": entry.get("outcome"),
        "accelerator_ok": entry.get("accelerator_ok") if isinstance(entry.get("accelerator_ok"), bool) else None,
        "devices": [d for d in devices if isinstance(d, Mapping)],
    }


def team_hardware_of(data: Mapping[str, Any]) -> list[str]:
    """The hardware ids a saved report's profile must run on: `must_run_on`, then its fleet's."""
    from advisor.knowledge.schema import Hardware

    known = {hw.value for hw in Hardware}
    profile = data.get("profile")
    constraints = profile.get("constraints") if isinstance(profile, Mapping) else None
    as_written = profile.get("as_written") if isinstance(profile, Mapping) else None
    required = constraints.get("must_run_on") if isinstance(constraints, Mapping) else None
    fleet = as_written.get("fleet") if isinstance(as_written, Mapping) else None
    out = [h for h in required if isinstance(h, str)] if isinstance(required, list) else []
    if isinstance(fleet, list):
        out += [str(e.get("hardware")) for e in fleet if isinstance(e, Mapping) and isinstance(e.get("hardware"), str)]
    return [h for h in dict.fromkeys(out) if h in known]


def recommended_framework(data: Mapping[str, Any]) -> str | None:
    """The framework a report recommends (its `recommendation`, else the top of its `ranking`)."""
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


def targets_of(data: Mapping[str, Any]) -> list[str]:
    """Deployment targets a report's profile requires (`profile.constraints.must_deploy_to`), if any."""
    for path in (("profile", "constraints", "must_deploy_to"), ("profile", "must_deploy_to")):
        node: Any = data
        for key in path:
            node = node.get(key) if isinstance(node, Mapping) else None
        if isinstance(node, list):
            return [str(t) for t in node if isinstance(t, str)]
    return []


def current_framework_of(data: Mapping[str, Any]) -> str | None:
    """The team's current framework from a report's profile (`team.current`), when it names exactly one."""
    profile = data.get("profile")
    for node in (profile.get("as_written") if isinstance(profile, Mapping) else None, profile):
        team = node.get("team") if isinstance(node, Mapping) else None
        current = team.get("current") if isinstance(team, Mapping) else None
        if isinstance(current, list) and len(current) == 1 and isinstance(current[0], str):
            return current[0]
    return None


def knowledge_version_of(data: Mapping[str, Any]) -> str | None:
    """The knowledge-base version a report was made with."""
    kb = data.get("knowledge")
    if not isinstance(kb, Mapping):
        return None
    if isinstance(kb.get("version"), str):
        return str(kb["version"])
    packs = kb.get("packs")
    if isinstance(packs, list) and packs and isinstance(packs[0], Mapping) and packs[0].get("version"):
        return str(packs[0]["version"])
    return None


def machine_label(data: Mapping[str, Any], path: str) -> str:
    """A name for the machine: the report's hostname or label, else the file name."""
    for section in ("machine", "probe"):
        node = data.get(section)
        if isinstance(node, Mapping):
            for key in ("label", "hostname", "name", "host"):
                if isinstance(node.get(key), str) and node[key].strip():
                    return str(node[key]).strip()
    return Path(path).stem


def load_reports(paths: Sequence[str | Path]) -> tuple[list[LoadedReport], list[Skipped]]:
    """Read every file; unreadable, corrupt, foreign, absurd or repeated ones are returned as `Skipped`, never raised.

    A report given twice (the same content, or the same report id) is used once: counting it twice
    would give that machine's recommendation two votes.
    """
    loaded: list[LoadedReport] = []
    skipped: list[Skipped] = []
    seen: dict[str, str] = {}  # content digest or "id:<report id>" -> the first file that had it
    for raw_path in paths:
        path = str(raw_path)
        try:
            data = read_json_file(path)
        except ReportError as exc:
            reason = exc.message + (f" (line {exc.line})" if exc.line else "")
            skipped.append(Skipped(path, reason))
            continue
        kind, why = classify(data)
        if kind is None:
            skipped.append(Skipped(path, why))
            continue
        absurd = absurd_number(data)
        if absurd is not None:
            skipped.append(Skipped(path, f"absurd number: {absurd}"))
            continue
        own, digest = report_identity(data)
        first = seen.get(digest) or (seen.get(f"id:{own}") if own else None)
        if first is not None:
            same = "identical content" if digest in seen else f"the same report id {own!r}"
            skipped.append(Skipped(path, f"duplicate of {first} ({same}): counted once"))
            continue
        seen[digest] = path
        if own:
            seen[f"id:{own}"] = path
        loaded.append(LoadedReport(path, data, tuple(report_warnings(data, kind))))
    return loaded, skipped
