"""Turn the knowledge base and one machine's probe into a first-week onboarding checklist with stable item ids.

The checklist is data first (frozen pydantic dataclasses, JSON from `checklist_document`), Markdown second.
Item ids come from content keys (`install.cpu.jax`, `concept.autograd`, `pitfall.jax.prng_keys`),
never from positions, so ticks stored by `advisor.progress` survive a regenerated checklist even
when the knowledge base gains or loses entries. The probe is the `ProbeReport` model; a report file from
another machine or version is read into it at its edge (`advisor.team.saved_report`), where
what it lacks becomes "unknown" rather than an exception.
"""

from advisor.checklist.build import build_checklist
from advisor.checklist.install import choose_cuda_line
from advisor.checklist.machine import (
    DEVICE_NOUNS,
    HARDWARE_LABELS,
    Detected,
    MachineSummary,
    cuda_driver_version,
    detect_backends,
    driver_version,
    machine_line,
    machine_summary,
    python_version,
)
from advisor.checklist.model import (
    SCHEMA,
    SECTIONS,
    Checklist,
    ChecklistLink,
    Item,
    Need,
    Section,
    checklist_document,
    checklist_schema,
)
from advisor.checklist.sections import verify_command

__all__ = [
    "DEVICE_NOUNS",
    "HARDWARE_LABELS",
    "SCHEMA",
    "checklist_document",
    "checklist_schema",
    "SECTIONS",
    "Checklist",
    "ChecklistLink",
    "Detected",
    "Item",
    "MachineSummary",
    "Need",
    "Section",
    "build_checklist",
    "choose_cuda_line",
    "cuda_driver_version",
    "detect_backends",
    "driver_version",
    "machine_line",
    "machine_summary",
    "python_version",
    "verify_command",
]
