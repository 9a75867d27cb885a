"""`summarize`: node reports into a `FleetSummary`: node types, the spread within each, and what it means.

Built on team merge's model: report files are read by `advisor.team.load_reports` (corrupt, foreign,
absurd and repeated files are named and skipped, never raised), and each node's machine is described
by `advisor.checklist.machine_summary`, as `team merge` does.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.checklist import MachineSummary, machine_summary
from advisor.evidence.probe import ProbeReport
from advisor.fleet.allreduce_summary import fleet_allreduce, intra_figures
from advisor.fleet.models import (
    FailedNode,
    Finding,
    FindingCode,
    FleetNode,
    FleetSummary,
    FrameworkState,
    NodeType,
    Spread,
)
from advisor.knowledge.base import KnowledgeBase
from advisor.privacy import RECORDED_ENV
from advisor.profile import Profile
from advisor.scoring.fleet import gpu_floor, team_fleet
from advisor.team.reading import load_reports
from advisor.team.saved_report import SavedReport

#: A node whose figure is this much worse than the median of the other nodes of its type is named slow.
SLOW_THRESHOLD_PCT = 20.0
#: Outcomes that say nothing about the framework on that node (a metadata-only probe, no probe at all).
_SILENT_OUTCOMES = (None, "skipped", "missing", "cancelled")
_NODE_FILE = re.compile(r"node-(\d{1,9})")
#: Bench warnings that say a figure is noise-bound: such a figure shows in the spread but never calls a node slow.
_NOISY = frozenset({"unstable", "few_samples", "short_blocks", "wide_spread", "rounds_disagree", "timed_once"})


@dataclass(frozen=True)
class NodeInput:
    """One node's report: from a file (`source`) or handed over in memory (`fleet run --ray`)."""

    label: str
    report: SavedReport
    rank: int | None = None
    source: str | None = None
    text: bytes | None = None  # the report as it came from the node (`fleet run --ray`), to save it as it was


def label_for(path: str | Path) -> tuple[str, int | None]:
    """A node's label and rank from its report file's name (`node-0003.json` -> `node-0003`, 3)."""
    stem = Path(path).stem
    m = _NODE_FILE.fullmatch(stem)
    return stem, (int(m.group(1)) if m else None)


def read_node_files(paths: Sequence[str | Path]) -> tuple[list[NodeInput], list[Finding]]:
    """Node reports from files; an unusable file becomes a `file_skipped` finding, never an error."""
    loaded, skipped = load_reports(paths)
    nodes = []
    for report in loaded:
        label, rank = label_for(report.path)
        nodes.append(NodeInput(label, report, rank, report.path))
    return nodes, [Finding(code=FindingCode.FILE_SKIPPED, nodes=[label_for(s.path)[0]], reason=s.reason)
                   for s in skipped]


def _gpus(probe: ProbeReport | None) -> tuple[str | None, int, list[str]]:
    devices = probe.gpus.devices if probe is not None else []
    names = Counter(d.name for d in devices if d.name)
    ccs = [d.compute_capability for d in devices if d.compute_capability]
    return (names.most_common(1)[0][0] if names else None), len(devices), ccs


def _settings(probe: ProbeReport | None, machine: MachineSummary) -> dict[str, str]:
    out = {k: str(machine[k]) for k in ("os", "python", "nvidia_driver", "cuda_driver", "usable_cores")
           if machine.get(k) not in (None, "", "unknown")}
    total = machine.get("memory_total_bytes")
    if isinstance(total, int) and total > 0:
        out["memory"] = f"{total / 2**30:.0f} GiB"
    env = probe.software.env if probe is not None else {}
    out.update({f"${k}": v for k, v in env.items() if k in RECORDED_ENV})
    return out


def _figures(report: SavedReport) -> tuple[dict[str, float], dict[str, tuple[str, bool]], list[str]]:
    """A node's figures by key, their unit and direction, and the keys too noisy (or too busy) to judge it by."""
    figures: dict[str, float] = {}
    meta: dict[str, tuple[str, bool]] = {}
    noisy: list[str] = []
    for r in report.figures:
        key = " ".join(x for x in (r.framework, r.benchmark, r.variant, r.device) if x)
        figures[key] = r.value
        meta[key] = (r.unit, r.higher_is_better)
        # An error metric (agreement) is no speed; a noise-bound figure or a busy machine cannot call a node slow.
        if report.busy or {w.code.value for w in r.warnings} & _NOISY or r.benchmark == "agreement":
            noisy.append(key)
    return figures, meta, noisy


def _node(item: NodeInput, kb_frameworks: Sequence[str]) -> tuple[FleetNode, list[str], dict[str, tuple[str, bool]]]:
    probe = item.report.probe
    machine = machine_summary(probe)
    gpu, count, ccs = _gpus(probe)
    frameworks = {fid: FrameworkState(installed=entry.installed, version=entry.version or None,
                                      outcome=entry.outcome or None)
                  for fid, entry in (probe.frameworks.items() if probe is not None else ()) if fid in kb_frameworks}
    figures, meta, noisy = _figures(item.report)
    more, more_meta, more_noisy = intra_figures(item.report.allreduce)  # the node's own intra-node all-reduce
    figures, meta, noisy = {**figures, **more}, {**meta, **more_meta}, noisy + more_noisy
    node = FleetNode(
        label=item.label, rank=item.rank, source=item.source, type_id="", cpu=str(machine.get("cpu")),
        gpu=gpu, gpu_count=count, usable_cores=machine.get("usable_cores"),
        memory_total_bytes=machine.get("memory_total_bytes"), settings=_settings(probe, machine),
        frameworks=frameworks, figures=figures, untrusted=noisy, recommendation=item.report.recommendation)
    return node, ccs, meta


def _type_key(node: FleetNode) -> tuple[Any, ...]:
    versions = tuple(sorted((f, s.version) for f, s in node.frameworks.items() if s.installed))
    return node.cpu, node.gpu, node.gpu_count, versions


def _spread(members: list[FleetNode], meta: Mapping[str, tuple[str, bool]], threshold: float
            ) -> tuple[list[Spread], list[Finding]]:
    spreads, findings = [], []
    keys = sorted({k for n in members for k in n.figures})
    for key in keys:
        have = [(n.label, n.figures[key]) for n in members if key in n.figures]
        if len(have) < 2:
            continue
        unit, higher = meta.get(key, ("", True))
        values = [v for _, v in have]
        median = statistics.median(values)
        worst = (min if higher else max)(have, key=lambda t: t[1])
        if median > 0:
            spreads.append(Spread(benchmark=key, unit=unit, higher_is_better=higher, nodes=len(have), median=median,
                                  low=min(values), high=max(values),
                                  spread_pct=100.0 * (max(values) - min(values)) / median, worst_node=worst[0]))
        untrusted = {n.label for n in members if key in n.untrusted}
        for label, value in have:
            if label in untrusted:
                continue
            others = statistics.median([v for n, v in have if n != label])
            if others <= 0:
                continue
            short = 100.0 * ((others - value) / others if higher else (value - others) / others)
            if short > threshold:
                findings.append(Finding(code=FindingCode.SLOW_NODE, nodes=[label], benchmark=key,
                                        shortfall_pct=round(short, 1)))
    return spreads, findings


def _odd_settings(type_id: str, members: list[FleetNode]) -> list[Finding]:
    findings = []
    names = sorted({k for n in members for k in n.settings})
    for name in names:
        values = {n.label: n.settings.get(name, "unset") for n in members}
        counts = Counter(values.values())
        if len(counts) < 2:
            continue
        common, top = counts.most_common(1)[0]
        tied = list(counts.values()).count(top) > 1
        odd = [label for label, v in values.items() if tied or v != common]
        findings.append(Finding(code=FindingCode.MISCONFIGURED_NODE, nodes=odd, node_type=type_id, setting=name,
                                values=values))
    return findings


def _framework_findings(nodes: list[FleetNode], kb_frameworks: Sequence[str]) -> list[Finding]:
    findings = []
    for fid in kb_frameworks:
        states = {n.label: n.frameworks.get(fid) for n in nodes}
        have = [label for label, s in states.items() if s is not None and s.installed]
        lack = [label for label, s in states.items() if s is not None and s.installed is False]
        if have and lack:
            findings.append(Finding(code=FindingCode.FRAMEWORK_MISSING, framework=fid, nodes=lack))
        failing = {label: s.outcome or "" for label, s in states.items()
                   if s is not None and s.installed and s.outcome not in (*_SILENT_OUTCOMES, "ok")}
        if failing:
            findings.append(Finding(code=FindingCode.FRAMEWORK_FAILING, framework=fid, nodes=sorted(failing),
                                    setting="outcome", values=failing))
    return findings


def _cc(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else (99, 99)


def _floor_findings(kb: KnowledgeBase, inputs: list[NodeInput], nodes: list[FleetNode],
                    ccs: Mapping[str, list[str]]) -> list[Finding]:
    fleet = [e for item in inputs for e in team_fleet(Profile(), item.report.probe)]
    findings = []
    for fid in kb.frameworks:
        found = gpu_floor(kb, fid, fleet)
        steward = kb.stewardship.get(fid)
        floor = steward.gpu.min_compute_capability if steward and steward.gpu else None
        if found is None or floor is None:
            continue
        below = [n.label for n in nodes if any(_cc(c) < _cc(floor) for c in ccs.get(n.label, []))]
        findings.append(Finding(code=FindingCode.GPU_BELOW_FLOOR, framework=fid, nodes=below,
                                support=found.support.value, reason=floor))  # type: ignore[arg-type]
    return findings


def summarize(
    kb: KnowledgeBase,
    inputs: Sequence[NodeInput],
    *,
    failed: Sequence[FailedNode] = (),
    skipped: Sequence[Finding] = (),
    expected: int | None = None,
    threshold_pct: float = SLOW_THRESHOLD_PCT,
) -> FleetSummary:
    """Group the nodes by type, measure the spread within each type, and say what the fleet means."""
    kb_frameworks = list(kb.frameworks)
    seen: Counter[str] = Counter()
    unique = []
    for item in inputs:  # two folders may both hold a node-0001.json: each stays a node of its own
        seen[item.label] += 1
        label = item.label if seen[item.label] == 1 else f"{item.label} ({seen[item.label]})"
        unique.append(NodeInput(label, item.report, item.rank, item.source, item.text))
    inputs = unique
    built = [_node(item, kb_frameworks) for item in inputs]
    meta: dict[str, tuple[str, bool]] = {}
    for _built_node, _ccs, m in built:
        meta.update(m)
    groups: dict[tuple[Any, ...], list[FleetNode]] = defaultdict(list)
    for node, _ccs, _m in built:
        groups[_type_key(node)].append(node)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))
    nodes: list[FleetNode] = []
    types: list[NodeType] = []
    findings: list[Finding] = [Finding(code=FindingCode.NODE_FAILED, nodes=[f.label], reason=f.kind.value)
                               for f in failed] + list(skipped)
    hardware: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    for i, (key, members) in enumerate(ordered, start=1):
        type_id = f"type-{i}"
        members = [m.model_copy(update={"type_id": type_id}) for m in members]
        nodes += members
        spread, slow = _spread(members, meta, threshold_pct)
        types.append(NodeType(id=type_id, cpu=key[0], gpu=key[1], gpu_count=key[2],
                              framework_versions=dict(key[3]), nodes=[m.label for m in members], spread=spread))
        findings += slow + _odd_settings(type_id, members)
        hardware[key[:3]].append(type_id)
    for type_ids in hardware.values():
        if len(type_ids) > 1:
            minority = [t for t in types if t.id in type_ids[1:]]
            findings.append(Finding(code=FindingCode.VERSIONS_DIFFER, node_type=type_ids[0],
                                    nodes=[label for t in minority for label in t.nodes]))
    findings += _framework_findings(nodes, kb_frameworks)
    findings += _floor_findings(kb, list(inputs), nodes, {n.label: c for n, c, _m in built})
    sections = [(item.label, section) for item in inputs if (section := item.report.allreduce) is not None]
    allreduce, allreduce_findings = fleet_allreduce(sections)
    findings += allreduce_findings
    nodes.sort(key=lambda n: (n.rank is None, n.rank or 0, n.label))
    return FleetSummary(knowledge_version=kb.version, nodes_expected=expected, nodes=nodes, types=types,
                        failed=list(failed), findings=findings, slow_threshold_pct=threshold_pct,
                        allreduce=allreduce)
