"""The team summary of `team merge`: the machines side by side, as JSON (`fwadvisor.team/1`) and Markdown."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.checklist import HARDWARE_LABELS, Checklist

SCHEMA = "fwadvisor.team/1"


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
            lines.append(m.checklist.to_markdown(level=3, subject=m.label))
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
