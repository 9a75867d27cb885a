"""`build_checklist`: the sections for one framework, one machine and one former framework, with stable ids."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from advisor.checklist.install import _install_section
from advisor.checklist.machine import machine_summary
from advisor.checklist.model import Checklist, KnowledgeStamp, Need, Section
from advisor.checklist.sections import (
    _concepts_section,
    _pitfalls_section,
    _tasks_section,
    _tooling_section,
    _verify_section,
)
from advisor.errors import UsageError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware
from advisor.sanitize import echo

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport


def _check_ids(kb: KnowledgeBase, framework: str, from_framework: str | None, targets: Sequence[str]) -> None:
    if framework not in kb.frameworks:
        raise UsageError.unknown("framework", framework, kb.frameworks, field="--framework")
    if from_framework is not None:
        if from_framework not in kb.frameworks:
            raise UsageError.unknown("framework", from_framework, kb.frameworks, field="--from")
        if from_framework == framework:
            raise UsageError("--from names the framework being onboarded; leave it out or name another", field="--from")
    for target in targets:
        if target not in kb.targets:
            raise UsageError(
                f"unknown deployment target {echo(target)}; known: {', '.join(kb.targets) or 'none'}", field="--target"
            )


def build_checklist(
    kb: KnowledgeBase,
    framework: str,
    probe: ProbeReport | None,
    *,
    from_framework: str | None = None,
    targets: Sequence[str] = (),
    must_run_on: Sequence[str | Hardware] = (),
    done: Collection[str] = (),
) -> Checklist:
    """The checklist for `framework` on the machine `probe` describes (None = nothing known).

    `must_run_on` (the profile's hard constraint) chooses the backend to install for, also when this
    machine lacks it. Raises `UsageError` for an unknown framework, former framework, target or hardware.
    """
    _check_ids(kb, framework, from_framework, targets)
    fw = kb.frameworks[framework]
    src = kb.frameworks[from_framework] if from_framework else None
    warnings: list[str] = []
    needs: list[Need] = []
    known = {hw.value: hw for hw in Hardware}
    for hw in must_run_on:
        if str(hw) not in known and not isinstance(hw, Hardware):
            raise UsageError.unknown("hardware", hw, known, field="must_run_on")
    required = [hw if isinstance(hw, Hardware) else known[hw] for hw in must_run_on]
    install, backend = _install_section(kb, fw, probe, warnings, needs, required)
    sections = (
        Section("install", "Install", install),
        Section("verify", "Verify", _verify_section(kb, fw, backend, warnings)),
        Section("concepts", "Concepts to unlearn and learn", _concepts_section(kb, fw, src, warnings)),
        Section("pitfalls", "Pitfalls", _pitfalls_section(kb, fw)),
        Section("tooling", "Tooling", _tooling_section(kb, fw, targets)),
        Section("first_tasks", "First tasks", _tasks_section(kb, fw, src, backend, targets)),
    )
    if probe is None:
        warnings.append("no probe of the machine was given: install lines assume a CPU-only machine")
    packs = kb.packs
    checklist = Checklist(
        framework=framework,
        framework_name=fw.name,
        from_framework=from_framework,
        from_name=src.name if src else None,
        targets=tuple(targets),
        backend=backend,
        machine=machine_summary(probe),
        sections=sections,
        needs=tuple(needs),
        warnings=tuple(warnings),
        knowledge=KnowledgeStamp(packs[0].name if packs else "unknown", kb.version, tuple(packs)),
    )
    _assert_unique(checklist)
    return checklist.with_done(done)


def _assert_unique(checklist: Checklist) -> None:
    seen: set[str] = set()
    for item_id in checklist.ids:
        # Two items with one id would make a tick ambiguous; ids come from KB keys, so this is a KB or code bug.
        if item_id in seen:
            raise AssertionError(f"duplicate checklist item id {item_id!r}")
        seen.add(item_id)
