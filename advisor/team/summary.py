"""The team summary of `team merge`: the machines side by side as JSON (`fwadvisor.team/1`); see `merge_markdown`."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Final, Literal

from pydantic import Field, computed_field
from pydantic.dataclasses import dataclass as model

from advisor.checklist import Checklist, MachineSummary, Need
from advisor.evidence.bench.results import Measurement

SCHEMA: Final = "fwadvisor.team/1"


@model(frozen=True)
class Skipped:
    """A file that was not used, and why."""

    path: str
    reason: str


class AcceleratorStatus(StrEnum):
    """Whether a machine can run the framework on an accelerator, best first."""

    YES = "yes"
    AFTER_INSTALL = "after_install"
    NEEDS_UPGRADE = "needs_upgrade"
    NO = "no"
    UNKNOWN = "unknown"


@model(frozen=True)
class AcceleratorVerdict:
    """The team table's key row for one machine: its status, and why in a sentence."""

    status: AcceleratorStatus
    detail: str


@model(frozen=True)
class SeenFramework:
    """One framework as a machine's probe saw it; None where the file does not say."""

    installed: bool | None = None
    version: str | None = None
    outcome: str | None = None
    accelerator_ok: bool | None = None
    accelerators: tuple[str, ...] = ()  # the non-CPU devices it reached, by name


@model(frozen=True)
class MachineEntry:
    """One machine in the team summary; its JSON carries the checklist whole and its `needs` beside it."""

    label: str
    path: str
    machine: MachineSummary
    framework_status: Annotated[SeenFramework, Field(serialization_alias="framework")]
    accelerator: AcceleratorVerdict
    benchmarks: tuple[Measurement, ...]
    recommendation: str | None
    knowledge_version: str | None
    checklist: Checklist
    warnings: tuple[str, ...] = ()

    @computed_field  # type: ignore[prop-decorator]
    @property
    def needs(self) -> tuple[Need, ...]:
        """What this machine needs before the framework runs there (the checklist's own `needs`)."""
        return self.checklist.needs


@model(frozen=True)
class TeamSummary:
    """The merged view of the team's machines for one framework; its JSON is `fwadvisor.team/1`."""

    framework: str
    framework_name: str
    from_framework: Annotated[str | None, Field(serialization_alias="from")]
    chosen_by: str
    machines: tuple[MachineEntry, ...]
    skipped: tuple[Skipped, ...]
    warnings: tuple[str, ...]
    knowledge_version: str
    files_read: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def schema(self) -> Literal["fwadvisor.team/1"]:
        """The document's schema id."""
        return SCHEMA

    def to_markdown(self) -> str:
        """A readable summary: machines side by side, then one checklist per framework (`merge_markdown`)."""
        from advisor.team.merge_markdown import team_summary_markdown  # it imports this module's types

        return team_summary_markdown(self)
