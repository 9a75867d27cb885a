"""The team summary of `team merge`: the machines side by side as JSON (`fwadvisor.team/1`); see `merge_markdown`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from advisor.checklist import Checklist, checklist_document

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
            "needs": checklist_document(self.checklist)["needs"],
            "benchmarks": [dict(b) for b in self.benchmarks],
            "recommendation": self.recommendation,
            "knowledge_version": self.knowledge_version,
            "warnings": list(self.warnings),
            "checklist": checklist_document(self.checklist),
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
        """A readable summary: machines side by side, then one checklist per framework (`merge_markdown`)."""
        from advisor.team.merge_markdown import team_summary_markdown  # it imports this module's types

        return team_summary_markdown(self)
