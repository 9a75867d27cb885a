"""Team mode: merge the report JSON files of several machines into one summary with a checklist per machine.

Each member runs `fwadvisor report --json` on their own machine; `merge_reports` lines the machines up
side by side for the chosen framework: what each machine has, whether it can run the framework on an
accelerator, who needs a driver or Python upgrade, the benchmark figures each measured, and the
onboarding checklist fitted to each machine. Input is untrusted: a file that is not JSON, or JSON
that is not an fwadvisor report, is named and skipped; a report from another schema or knowledge
version, or one missing sections, is used for what it has and warned about. Nothing here raises
for one bad file; only "no usable report at all" and unknown ids are errors.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor import limits
from advisor.checklist import HARDWARE_LABELS, Checklist, build_checklist, detect_backends, machine_summary
from advisor.errors import ReportError, UsageError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware
from advisor.report import SCHEMA_VERSION

SCHEMA = "fwadvisor.team/1"
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


@dataclass(frozen=True)
class Skipped:
    """A file that was not used, and why."""

    path: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"path": self.path, "reason": self.reason}


@dataclass(frozen=True)
class LoadedReport:
    """One readable report (or bare probe), with what was wrong with it."""

    path: str
    data: Mapping[str, Any]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class MachineEntry:
    """One machine in the team summary."""

    label: str
    path: str
    machine: Mapping[str, Any]
    framework_status: Mapping[str, Any]  # installed/version as this machine's probe saw it
    accelerator: Mapping[str, Any]  # {"status": yes|after_install|needs_upgrade|no|unknown, "detail"}
    benchmarks: tuple[Mapping[str, Any], ...]
    recommendation: str | None
    knowledge_version: str | None
    checklist: Checklist
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "label": self.label,
            "path": self.path,
            "machine": dict(self.machine),
            "framework": dict(self.framework_status),
            "accelerator": dict(self.accelerator),
            "needs": [n.to_json() for n in self.checklist.needs],
            "benchmarks": [dict(b) for b in self.benchmarks],
            "recommendation": self.recommendation,
            "knowledge_version": self.knowledge_version,
            "warnings": list(self.warnings),
            "checklist": self.checklist.to_json(),
        }


@dataclass(frozen=True)
class TeamSummary:
    """The merged view of the team's machines for one framework."""

    framework: str
    framework_name: str
    from_framework: str | None
    chosen_by: str
    machines: tuple[MachineEntry, ...]
    skipped: tuple[Skipped, ...]
    warnings: tuple[str, ...]
    knowledge_version: str
    files_read: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (`fwadvisor.team/1`)."""
        return {
            "schema": SCHEMA,
            "framework": self.framework,
            "framework_name": self.framework_name,
            "from": self.from_framework,
            "chosen_by": self.chosen_by,
            "knowledge_version": self.knowledge_version,
            "files_read": self.files_read,
            "machines": [m.to_json() for m in self.machines],
            "skipped": [s.to_json() for s in self.skipped],
            "warnings": list(self.warnings),
        }

    def to_markdown(self) -> str:
        """A readable summary: warnings, skipped files, machines side by side, upgrades, benchmarks, checklists."""
        name = self.framework_name
        lines = [f"# Team summary: {name}", ""]
        lines.append(
            f"{self.files_read} file(s) read, {len(self.machines)} machine(s) merged, {len(self.skipped)} skipped. "
            f"Framework: {name} ({self.chosen_by}). Checklists use knowledge base {self.knowledge_version}."
        )
        lines.append("")
        if self.skipped:
            lines += ["## Skipped files", ""]
            lines += [f"- `{s.path}`: {s.reason}" for s in self.skipped]
            lines.append("")
        if self.warnings:
            lines += ["## Warnings", ""]
            lines += [f"- {_one_line(w)}" for w in self.warnings]
            lines.append("")
        lines += ["## Machines", ""]
        lines += _machines_table(self)
        lines.append("")
        lines += [f"## Who can run {name} on an accelerator", ""]
        for m in self.machines:
            lines.append(f"- **{m.label}**: {m.accelerator['status'].replace('_', ' ')} — {m.accelerator['detail']}")
        lines.append("")
        lines += ["## Upgrades needed", ""]
        needs = [(m.label, n) for m in self.machines for n in m.checklist.needs]
        if needs:
            lines += [f"- **{label}** ({n.kind}): {n.detail}" for label, n in needs]
        else:
            lines.append("None: no machine needs a driver or Python upgrade for this framework.")
        lines.append("")
        lines += [f"## Benchmarks ({name})", ""]
        lines += _bench_table(self)
        lines.append("")
        lines += ["## Checklists", ""]
        for m in self.machines:
            lines.append(
                m.checklist.to_markdown(level=3).replace(
                    f"### {m.checklist.framework_name} onboarding checklist",
                    f"### {m.label}: {m.checklist.framework_name} onboarding checklist",
                    1,
                )
            )
        return "\n".join(lines).rstrip() + "\n"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _cell(value: Any) -> str:
    text = "unknown" if value is None or value == "" else str(value)
    return _one_line(text).replace("|", "\\|")


def _gib(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return f"{value / 2**30:.1f} GiB"
    return "unknown"


def _machines_table(summary: TeamSummary) -> list[str]:
    ms = summary.machines
    rows: list[tuple[str, list[Any]]] = [
        ("File", [f"`{Path(m.path).name}`" for m in ms]),
        ("OS", [m.machine.get("os") for m in ms]),
        ("Python", [m.machine.get("python") for m in ms]),
        ("CPU", [m.machine.get("cpu") for m in ms]),
        ("Usable cores", [m.machine.get("usable_cores") for m in ms]),
        ("Memory", [_gib(m.machine.get("memory_total_bytes")) for m in ms]),
        (
            "Accelerators",
            [", ".join(a["detail"] for a in m.machine.get("accelerators", [])) or "none found" for m in ms],
        ),
        (
            "NVIDIA driver (CUDA)",
            [
                f"{m.machine['nvidia_driver'] or 'unknown'} (CUDA {m.machine['cuda_driver'] or 'unknown'})"
                if m.machine.get("nvidia_driver") or m.machine.get("cuda_driver")
                else "none"
                for m in ms
            ],
        ),
        (f"{summary.framework_name} installed", [_installed_cell(m.framework_status) for m in ms]),
        ("Install for", [HARDWARE_LABELS[m.checklist.backend] for m in ms]),
        ("On an accelerator", [m.accelerator["status"].replace("_", " ") for m in ms]),
        ("Needs", [", ".join(f"{n.kind} upgrade" for n in m.checklist.needs) or "nothing" for m in ms]),
        ("Recommended", [m.recommendation for m in ms]),
        ("Knowledge version", [m.knowledge_version for m in ms]),
    ]
    head = "| | " + " | ".join(_cell(m.label) for m in ms) + " |"
    sep = "|---|" + "---|" * len(ms)
    return [head, sep] + [f"| {name} | " + " | ".join(_cell(v) for v in values) + " |" for name, values in rows]


def _installed_cell(status: Mapping[str, Any]) -> str:
    if status.get("installed") is True:
        return f"yes ({status.get('version') or 'version unknown'})"
    if status.get("installed") is False:
        return "no"
    return "unknown"


def _bench_key(result: Mapping[str, Any]) -> str:
    variant = f" {result['variant']}" if result.get("variant") else ""
    return f"{result.get('benchmark', '?')}{variant} ({result.get('device', '?')})"


def _bench_table(summary: TeamSummary) -> list[str]:
    keys: list[str] = []
    for m in summary.machines:
        for r in m.benchmarks:
            key = _bench_key(r)
            if key not in keys:
                keys.append(key)
    if not keys:
        return [f"No machine reported benchmark figures for {summary.framework_name}."]
    ms = summary.machines
    out = ["| benchmark | " + " | ".join(_cell(m.label) for m in ms) + " |", "|---|" + "---|" * len(ms)]
    for key in keys:
        cells = []
        for m in ms:
            found = next((r for r in m.benchmarks if _bench_key(r) == key), None)
            cells.append(_figure(found) if found else "—")
        out.append(f"| {_cell(key)} | " + " | ".join(cells) + " |")
    out += [
        "",
        "Higher is better for throughput figures (per second), lower for latency and error. "
        "(!) marks a figure that came with a warning (e.g. a wide spread): see the JSON or the machine's report.",
    ]
    return out


def _figure(result: Mapping[str, Any]) -> str:
    value = result.get("value")
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "unknown"
    text = f"{value:.3g} {result.get('unit', '')}".strip()
    if result.get("warnings"):
        text += " (!)"
    return _cell(text)


# --- reading files ---------------------------------------------------------------------------------------------


def read_json_file(path: str | Path) -> Any:
    """Parse one JSON file; `ReportError` names the file (and line) when it cannot be read or parsed.

    Through the one input reader (`advisor.jsonio.read_json`): regular files only (a FIFO would hang),
    at most MAX_REPORT_BYTES (checked by stat before reading), nesting at most MAX_JSON_DEPTH.
    """
    from advisor.jsonio import read_json

    return read_json(path, ReportError, limit=MAX_REPORT_BYTES, lenient=True)  # NaN/Infinity read as null


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
    """Read every file; unreadable, corrupt or foreign ones are returned as `Skipped`, never raised."""
    loaded: list[LoadedReport] = []
    skipped: list[Skipped] = []
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
        loaded.append(LoadedReport(path, data, tuple(report_warnings(data, kind))))
    return loaded, skipped


# --- merging ---------------------------------------------------------------------------------------------------


def _framework_status(probe: Mapping[str, Any] | None, framework: str) -> dict[str, Any]:
    frameworks = probe.get("frameworks") if isinstance(probe, Mapping) else None
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


def accelerator_verdict(
    probe: Mapping[str, Any] | None, status: Mapping[str, Any], checklist: Checklist, framework_name: str
) -> dict[str, str]:
    """Whether this machine can run the framework on an accelerator, and why: the team table's key row."""
    if not probe:
        return {"status": "unknown", "detail": "the report has no probe of the machine"}
    accels = [d for d in detect_backends(probe) if d.backend != Hardware.CPU]
    if status.get("accelerator_ok") is True:
        seen = [str(d.get("name") or d.get("kind")) for d in status.get("devices", []) if d.get("kind") != "cpu"]
        where = ", ".join(seen) or ", ".join(d.detail for d in accels) or "an accelerator"
        return {"status": "yes", "detail": f"{framework_name} {status.get('version') or ''} already runs on {where}"}
    if not accels:
        return {"status": "no", "detail": "no accelerator found: CPU only"}
    if checklist.backend == Hardware.CPU:
        names = ", ".join(f"{d.detail} ({HARDWARE_LABELS[d.backend]})" for d in accels)
        return {"status": "no", "detail": f"{names} present, but {framework_name} has no usable route for it"}
    label = HARDWARE_LABELS[checklist.backend]
    if any(n.kind == "driver" for n in checklist.needs):
        return {
            "status": "needs_upgrade",
            "detail": f"{label} present; upgrade the driver, then install the {label} build",
        }
    if status.get("installed") is True:
        return {
            "status": "after_install",
            "detail": f"{label} present, but the installed {framework_name} does not use it: "
            f"reinstall with the {label} line in the checklist",
        }
    return {"status": "after_install", "detail": f"{label} present: install the {label} build (see the checklist)"}


def _benchmarks(data: Mapping[str, Any], framework: str) -> tuple[dict[str, Any], ...]:
    bench = data.get("benchmarks")
    results = bench.get("results") if isinstance(bench, Mapping) else None
    if not isinstance(results, list):
        return ()
    keep = ("benchmark", "variant", "device", "metric", "value", "unit", "higher_is_better", "warnings")
    return tuple(
        {k: r.get(k) for k in keep if k in r}
        for r in results
        if isinstance(r, Mapping) and r.get("framework") == framework
    )


def _choose_framework(
    kb: KnowledgeBase, loaded: Sequence[LoadedReport], framework: str | None, warnings: list[str]
) -> tuple[str, str]:
    if framework is not None:
        if framework not in kb.frameworks:
            raise UsageError(f"unknown framework {framework!r}; known: {', '.join(kb.frameworks)}", field="--framework")
        return framework, "chosen with --framework"
    votes = Counter(r for r in (recommended_framework(x.data) for x in loaded) if r in kb.frameworks)
    if not votes:
        raise UsageError(
            "no report carries a recommendation this knowledge base knows; pass --framework ID", field="--framework"
        )
    ranked = votes.most_common()
    best, count = ranked[0]
    tied = [fid for fid, n in ranked if n == count]
    if len(tied) > 1:
        warnings.append(
            f"the reports' recommendations are tied ({', '.join(tied)}); using {best}: pass --framework to choose"
        )
    return best, f"recommended by {count} of {len(loaded)} report(s)"


def merge_reports(
    kb: KnowledgeBase,
    paths: Sequence[str | Path],
    *,
    framework: str | None = None,
    from_framework: str | None = None,
    targets: Sequence[str] = (),
) -> TeamSummary:
    """Merge report files into a team summary; `ReportError` only if none of them is usable."""
    loaded, skipped = load_reports(paths)
    if not loaded:
        names = ", ".join(s.path for s in skipped) or "none given"
        raise ReportError(
            f"no usable report among the files ({names}); see the reasons with each file", field="reports"
        )
    warnings: list[str] = []  # skipped files have their own list; not repeated here
    for report in loaded:
        warnings += [f"{report.path}: {w}" for w in report.warnings]
    fid, chosen_by = _choose_framework(kb, loaded, framework, warnings)
    fw = kb.frameworks[fid]
    versions = {r.path: knowledge_version_of(r.data) for r in loaded}
    distinct = sorted({v for v in versions.values() if v})
    if len(distinct) > 1:
        warnings.append(
            "the reports were made with different knowledge versions ("
            + ", ".join(f"{Path(p).name}: {v}" for p, v in versions.items() if v)
            + f"); their rankings may disagree for that reason. Checklists use {kb.version}."
        )
    elif distinct and distinct[0] != kb.version:
        warnings.append(f"the reports were made with knowledge version {distinct[0]}; checklists use {kb.version}")
    if from_framework is None:
        currents = {current_framework_of(r.data) for r in loaded} - {None}
        if len(currents) == 1:
            (current,) = currents
            if current in kb.frameworks and current != fid:
                from_framework = current
    team_targets = list(targets)
    if not team_targets:
        for report in loaded:
            for t in targets_of(report.data):
                if t in kb.targets and t not in team_targets:
                    team_targets.append(t)
    machines: list[MachineEntry] = []
    labels: Counter[str] = Counter()
    for report in loaded:
        probe = probe_of(report.data)
        label = machine_label(report.data, report.path)
        labels[label] += 1
        if labels[label] > 1:
            label = f"{label} ({labels[label]})"
        checklist = build_checklist(kb, fid, probe, from_framework=from_framework, targets=team_targets)
        status = _framework_status(probe, fid)
        machines.append(
            MachineEntry(
                label=label,
                path=report.path,
                machine=machine_summary(probe or {}),
                framework_status=status,
                accelerator=accelerator_verdict(probe, status, checklist, fw.name),
                benchmarks=_benchmarks(report.data, fid),
                recommendation=recommended_framework(report.data),
                knowledge_version=versions[report.path],
                checklist=checklist,
                warnings=report.warnings,
            )
        )
    return TeamSummary(
        framework=fid,
        framework_name=fw.name,
        from_framework=from_framework,
        chosen_by=chosen_by,
        machines=tuple(machines),
        skipped=tuple(skipped),
        warnings=tuple(warnings),
        knowledge_version=kb.version,
        files_read=len(paths),
    )
