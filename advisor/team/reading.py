"""Reading the report files given to `team merge`: untrusted JSON, named and skipped when unusable, never raised."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from advisor import limits
from advisor.errors import ReportError
from advisor.inputs import read_input_text
from advisor.report import SCHEMA_VERSION
from advisor.team.sanity import absurd_number, report_identity
from advisor.team.saved_report import SavedKind, SavedReport, saved_report
from advisor.team.summary import Skipped

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


def classify(data: Any) -> tuple[SavedKind | None, str]:
    """(a kind, "") for data the advisor can use, or (None, why not) for foreign JSON."""
    if not isinstance(data, dict):
        return None, f"not an fwadvisor report (the JSON is a {type(data).__name__}, not an object)"
    schema = data.get("schema")
    if isinstance(schema, str) and schema.startswith("fwadvisor.probe/"):
        return SavedKind.PROBE, ""
    if isinstance(schema, str) and schema.startswith("fwadvisor."):
        kind = schema.split("/")[0].removeprefix("fwadvisor.")
        return None, f"an fwadvisor {kind} file, not a report (run `fwadvisor report --json` on that machine)"
    if "schema_version" in data or any(k in data for k in ("probe", "ranking", "recommendation")):
        return SavedKind.REPORT, ""
    return None, "not an fwadvisor report (no schema_version, probe, ranking or recommendation)"


def report_warnings(data: Mapping[str, Any], kind: SavedKind) -> list[str]:
    """What is odd about one report: another schema version, missing sections."""
    if kind is SavedKind.PROBE:
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


def read_report(path: str | Path) -> SavedReport:
    """Read a report (or bare probe) for `checklist --report`, with its warnings; `ReportError` if unusable."""
    data = read_json_file(path)
    kind, why = classify(data)
    if kind is None:
        raise ReportError(why, file=path)
    return saved_report(data, path, kind, tuple(report_warnings(data, kind)))


def load_reports(paths: Sequence[str | Path]) -> tuple[list[SavedReport], list[Skipped]]:
    """Read every file; unreadable, corrupt, foreign, absurd or repeated ones are returned as `Skipped`, never raised.

    A report given twice (the same content, or the same report id) is used once: counting it twice
    would give that machine's recommendation two votes.
    """
    loaded: list[SavedReport] = []
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
        loaded.append(saved_report(data, path, kind, tuple(report_warnings(data, kind)), identity=own))
    return loaded, skipped
