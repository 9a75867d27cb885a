"""`team merge` as Markdown: the machines side by side, then one onboarding checklist per framework.

Every machine has its own checklist (`MachineEntry.checklist`), but most items are the same on every machine:
they are shown once, and an item found on some machines only, or worded differently on some, names them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.checklist import HARDWARE_LABELS, SECTIONS, Item
from advisor.checklist.model import item_markdown
from advisor.sanitize import markdown_text as md

if TYPE_CHECKING:
    from advisor.evidence.bench.results import Measurement
    from advisor.team.summary import MachineEntry, SeenFramework, TeamSummary


def team_summary_markdown(summary: TeamSummary) -> str:
    """Warnings, skipped files, machines side by side, upgrades, benchmarks, then the merged checklists."""
    name = summary.framework_name
    lines = [f"# Team summary: {name}", ""]
    lines.append(
        f"{summary.files_read} file(s) read, {len(summary.machines)} machine(s) merged, {len(summary.skipped)} "
        f"skipped. Framework: {name} ({summary.chosen_by}). Checklists use knowledge base "
        f"{summary.knowledge_version}."
    )
    lines.append("")
    if summary.skipped:
        lines += ["## Skipped files", ""]
        lines += [f"- `{s.path}`: {s.reason}" for s in summary.skipped]
        lines.append("")
    if summary.warnings:
        lines += ["## Warnings", ""]
        lines += [f"- {_one_line(w)}" for w in summary.warnings]
        lines.append("")
    lines += ["## Machines", ""]
    lines += _machines_table(summary)
    lines.append("")
    lines += [f"## Who can run {name} on an accelerator", ""]
    for m in summary.machines:
        lines.append(f"- **{m.label}**: {m.accelerator.status.value.replace('_', ' ')} — {m.accelerator.detail}")
    lines.append("")
    lines += ["## Upgrades needed", ""]
    needs = [(m.label, n) for m in summary.machines for n in m.checklist.needs]
    if needs:
        lines += [f"- **{label}** ({n.kind}): {n.detail}" for label, n in needs]
    else:
        lines.append("None: no machine needs a driver or Python upgrade for this framework.")
    lines.append("")
    lines += [f"## Benchmarks ({name})", ""]
    lines += _bench_table(summary)
    lines.append("")
    lines += ["## Checklists", ""]
    groups: dict[tuple[str, str | None], list[MachineEntry]] = {}
    for m in summary.machines:
        groups.setdefault((m.checklist.framework, m.checklist.from_framework), []).append(m)
    for machines in groups.values():
        lines += merged_checklist(machines, len(summary.machines))
    return "\n".join(lines).rstrip() + "\n"


def _for(labels: Sequence[str], everyone: int) -> str:
    return "" if len(labels) == everyone else " — for " + ", ".join(md(x) for x in labels)


def _content(item: Item) -> tuple[Any, ...]:
    # Everything shown but the tick: two machines' items are the same item when they read the same.
    return item.title, item.detail, item.code, item.code_lang, item.done_when, item.links, item.warning


def merged_checklist(machines: Sequence[MachineEntry], everyone: int, level: int = 3) -> list[str]:
    """One framework's checklist for several machines: each item once, with the machines it is for if not all."""
    first = machines[0].checklist
    h = "#" * level
    title = f"{first.framework_name} onboarding checklist" + (f" (coming from {first.from_name})"
                                                              if first.from_name else "")
    labels = [m.label for m in machines]
    lines = [f"{h} {title}", "", f"For {', '.join(md(x) for x in labels)}. Items without a machine named are the "
             f"same on each. Tick an item with `{first.command()} --done ID` on the machine it is for.", ""]
    warned: dict[str, list[str]] = {}
    for m in machines:
        for w in m.checklist.warnings:
            warned.setdefault(w, []).append(m.label)
    for text, who in warned.items():
        lines += [f"> **Warning:** {text}{_for(who, everyone)}", ""]
    for sid, section_title in SECTIONS:
        variants: dict[str, dict[tuple[Any, ...], tuple[Item, list[str]]]] = {}
        for m in machines:
            section = next((s for s in m.checklist.sections if s.id == sid), None)
            for item in section.items if section else ():
                seen = variants.setdefault(item.id, {})
                seen.setdefault(_content(item), (item, []))[1].append(m.label)
        lines += [f"{h}# {section_title}", ""]
        if not variants:
            lines += ["_Nothing known for this section._", ""]
        for versions in variants.values():
            for item, who in versions.values():
                item_lines = item_markdown(item)
                item_lines[0] = item_lines[0].rstrip() + _for(who, everyone)
                lines += item_lines
        lines.append("")
    return lines


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
        ("On an accelerator", [m.accelerator.status.value.replace("_", " ") for m in ms]),
        ("Needs", [", ".join(f"{n.kind} upgrade" for n in m.checklist.needs) or "nothing" for m in ms]),
        ("Recommended", [m.recommendation for m in ms]),
        ("Knowledge version", [m.knowledge_version for m in ms]),
    ]
    head = "| | " + " | ".join(_cell(m.label) for m in ms) + " |"
    sep = "|---|" + "---|" * len(ms)
    return [head, sep] + [f"| {name} | " + " | ".join(_cell(v) for v in values) + " |" for name, values in rows]


def _installed_cell(status: SeenFramework) -> str:
    if status.installed is True:
        return f"yes ({status.version or 'version unknown'})"
    if status.installed is False:
        return "no"
    return "unknown"


def _bench_key(result: Measurement) -> str:
    variant = f" {result.variant}" if result.variant else ""
    return f"{result.benchmark}{variant} ({result.device})"


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


def _figure(result: Measurement) -> str:
    text = f"{result.value:.3g} {result.unit}".strip()
    if result.warnings:
        text += " (!)"
    return _cell(text)
