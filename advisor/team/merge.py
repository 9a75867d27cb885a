"""`merge_reports`: the team's machines lined up for one framework, each with its own onboarding checklist."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.checklist import HARDWARE_LABELS, Checklist, build_checklist, detect_backends, machine_summary
from advisor.errors import ReportError, UsageError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware
from advisor.team.reading import load_reports
from advisor.team.saved_report import SavedReport
from advisor.team.summary import AcceleratorStatus, AcceleratorVerdict, MachineEntry, SeenFramework, TeamSummary

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport


def seen_framework(probe: ProbeReport | None, framework: str) -> SeenFramework:
    """Whether the machine has `framework` installed, its version, and whether it reached an accelerator."""
    entry = probe.frameworks.get(framework) if probe is not None else None
    if entry is None:
        return SeenFramework()
    reached = tuple(str(d.get("name") or d.get("kind")) for d in entry.devices if d.get("kind") != "cpu")
    return SeenFramework(installed=entry.installed, version=entry.version, outcome=entry.outcome,
                         accelerator_ok=entry.accelerator_ok, accelerators=reached)


def accelerator_verdict(
    probe: ProbeReport | None, status: SeenFramework, checklist: Checklist, framework_name: str
) -> AcceleratorVerdict:
    """Whether this machine can run the framework on an accelerator, and why: the team table's key row."""
    if probe is None:
        return AcceleratorVerdict(status=AcceleratorStatus.UNKNOWN, detail="the report has no probe of the machine")
    accels = [d for d in detect_backends(probe) if d.backend != Hardware.CPU]
    if status.accelerator_ok is True:
        where = ", ".join(status.accelerators) or ", ".join(d.detail for d in accels) or "an accelerator"
        return AcceleratorVerdict(status=AcceleratorStatus.YES,
                                  detail=f"{framework_name} {status.version or ''} already runs on {where}")
    if not accels:
        return AcceleratorVerdict(status=AcceleratorStatus.NO, detail="no accelerator found: CPU only")
    if checklist.backend == Hardware.CPU:
        names = ", ".join(f"{d.detail} ({HARDWARE_LABELS[d.backend]})" for d in accels)
        return AcceleratorVerdict(status=AcceleratorStatus.NO,
                                  detail=f"{names} present, but {framework_name} has no usable route for it")
    label = HARDWARE_LABELS[checklist.backend]
    if any(n.kind == "driver" for n in checklist.needs):
        return AcceleratorVerdict(status=AcceleratorStatus.NEEDS_UPGRADE,
                                  detail=f"{label} present; upgrade the driver, then install the {label} build")
    if status.installed is True:
        return AcceleratorVerdict(
            status=AcceleratorStatus.AFTER_INSTALL,
            detail=f"{label} present, but the installed {framework_name} does not use it: "
            f"reinstall with the {label} line in the checklist",
        )
    return AcceleratorVerdict(status=AcceleratorStatus.AFTER_INSTALL,
                              detail=f"{label} present: install the {label} build (see the checklist)")


def _choose_framework(
    kb: KnowledgeBase, loaded: Sequence[SavedReport], framework: str | None, warnings: list[str]
) -> tuple[str, str]:
    if framework is not None:
        if framework not in kb.frameworks:
            raise UsageError.unknown("framework", framework, kb.frameworks, field="--framework")
        return framework, "chosen with --framework"
    votes = Counter(r for r in (x.recommendation for x in loaded) if r in kb.frameworks)
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
        # The CLI never gets to list the skipped files when nothing is usable: the reasons go in this one line.
        reasons = "; ".join(f"{s.path}: {s.reason}" for s in skipped) or "none given"
        raise ReportError(f"no usable report among the files ({reasons})", field="reports")
    warnings: list[str] = []  # skipped files have their own list; not repeated here
    for report in loaded:
        warnings += [f"{report.path}: {w}" for w in report.warnings]
    fid, chosen_by = _choose_framework(kb, loaded, framework, warnings)
    fw = kb.frameworks[fid]
    versions = {r.path: r.knowledge_version for r in loaded}
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
        currents = {r.current_framework for r in loaded} - {None}
        if len(currents) == 1:
            (current,) = currents
            if current in kb.frameworks and current != fid:
                from_framework = current
    team_targets = list(targets)
    if not team_targets:
        for report in loaded:
            for t in report.targets:
                if t in kb.targets and t not in team_targets:
                    team_targets.append(t)
    machines: list[MachineEntry] = []
    labels: Counter[str] = Counter()
    for report in loaded:
        probe = report.probe
        label = report.label
        labels[label] += 1
        if labels[label] > 1:
            label = f"{label} ({labels[label]})"
        checklist = build_checklist(kb, fid, probe, from_framework=from_framework, targets=team_targets)
        status = seen_framework(probe, fid)
        machines.append(
            MachineEntry(
                label=label,
                path=report.path,
                machine=machine_summary(probe),
                framework_status=status,
                accelerator=accelerator_verdict(probe, status, checklist, fw.name),
                benchmarks=report.framework_figures(fid),
                recommendation=report.recommendation,
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
