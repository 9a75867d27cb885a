"""A team summary (`team merge`) as a self-contained HTML page: who can run the framework, per machine type."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.report.html import charts
from advisor.report.html.markup import Child, Safe, el, table, texter
from advisor.report.html.page import answer_box, chart_block, document, section
from advisor.report.html.parts import Tx, num

if TYPE_CHECKING:  # the team package builds on the report package, not the other way round
    from advisor.checklist import Checklist
    from advisor.evidence.bench.results import Measurement
    from advisor.team.summary import MachineEntry, TeamSummary

#: The accelerator verdicts of `team.merge.accelerator_verdict`, best first, with how a person reads them.
STATUSES = {"yes": "runs on an accelerator now", "after_install": "after installing the accelerator build",
            "needs_upgrade": "after a driver upgrade", "no": "CPU only", "unknown": "unknown (no probe)"}


def machine_type(m: MachineEntry) -> str:
    """Machines with the same CPU and the same accelerators are one type."""
    # `machine` is `checklist.machine_summary`'s: every key is always there, "unknown" where the probe was silent.
    accels = ", ".join(str(a["detail"]) for a in m.machine["accelerators"]) or "no accelerator"
    return f"{m.machine['cpu']} / {accels}"


def merge_html(summary: TeamSummary, *, identify: bool = False) -> str:
    """The page for a team summary; every string from the reports is scrubbed (unless `identify`) and escaped."""
    tx = texter(identify)
    ms = summary.machines
    ready = sum(1 for m in ms if m.accelerator.status.value == "yes")
    accel = sum(1 for m in ms if m.accelerator.status.value in ("yes", "after_install", "needs_upgrade"))
    needs = [(m.label, n) for m in ms for n in m.checklist.needs]
    points: list[Child] = [
        f"{ready} of {len(ms)} machine(s) run it on an accelerator now; {accel} can after the steps below.",
        f"{len(needs)} upgrade(s) needed" + (": " + ", ".join(f"{tx(label)} ({tx(n.kind)})" for label, n in needs)
                                              + " (see Checklists)" if needs else "."),
    ]
    if summary.skipped:
        points.append(f"{len(summary.skipped)} file(s) skipped: see below.")
    answer = answer_box("Team framework", tx(summary.framework_name), None,
                        tx(f"{len(ms)} machine(s) merged from {summary.files_read} file(s); {summary.chosen_by}."),
                        points)
    return document(
        "fwadvisor team summary",
        tx(f"{len(ms)} machine(s) · checklists from knowledge {summary.knowledge_version}"),
        answer,
        _by_type(summary, tx),
        _machines(summary, tx),
        _benchmarks(summary, tx),
        section("Skipped files and warnings",
                el("ul", [el("li", tx(f"{s.path}: {s.reason}"), class_="warn") for s in summary.skipped],
                   [el("li", tx(w), class_="warn") for w in summary.warnings]))
        if summary.skipped or summary.warnings else None,
        _checklists(summary, tx),
        footer=tx(f"fwadvisor team summary, knowledge {summary.knowledge_version}"),
    )


def _by_type(summary: TeamSummary, tx: Tx) -> Safe:
    types: dict[str, list[MachineEntry]] = {}
    for m in summary.machines:
        types.setdefault(tx(machine_type(m)), []).append(m)
    codes = list(STATUSES)
    values = [[sum(1 for m in group if m.accelerator.status.value == c) for c in codes] for group in types.values()]
    svg = charts.counts("machine-types", "Machines per type, by whether they can run the framework on an accelerator",
                        list(types), [STATUSES[c] for c in codes], values, "machines")
    rows: list[list[Child]] = [[t, ", ".join(tx(m.label) for m in group)] + [num(v, "d") for v in vals]
                               for (t, group), vals in zip(types.items(), values, strict=True)]
    return section(
        f"{tx(summary.framework_name)} per machine type",
        chart_block(svg, "One bar per machine type (same CPU and accelerators); colours: can it run on an "
                         "accelerator.", table(["Machine type", "Machines"] + [STATUSES[c] for c in codes], rows)),
        id_="types",
    )


def _machines(summary: TeamSummary, tx: Tx) -> Safe:
    rows: list[list[Child]] = []
    for m in summary.machines:
        fw = m.framework_status
        installed = "unknown" if fw.installed is None else f"yes ({fw.version or 'version unknown'})" \
            if fw.installed else "no"
        rows.append([tx(m.label), tx(machine_type(m)), installed, STATUSES[m.accelerator.status.value],
                     tx(m.accelerator.detail), tx(m.recommendation or "none")])
    return section("Machines", table(["Machine", "Type", f"{tx(summary.framework_name)} installed",
                                      "On an accelerator", "Why", "Its report recommends"], rows), id_="machines")


def _figures(summary: TeamSummary) -> list[tuple[str, Measurement]]:
    """Each machine's figures, as the bench wrote them."""
    return [(m.label, r) for m in summary.machines for r in m.benchmarks]


def _benchmarks(summary: TeamSummary, tx: Tx) -> Safe:
    groups: dict[str, list[tuple[str, Measurement]]] = {}
    for label, r in _figures(summary):
        better = "higher" if r.higher_is_better else "lower"
        key = tx(f"{r.benchmark} {r.variant} on {r.device} ({r.unit}, {better} is better)")
        groups.setdefault(key, []).append((tx(label), r))
    if not groups:
        return section("Benchmarks", el("p", f"No machine reported figures for {tx(summary.framework_name)}."))
    svgs = [charts.intervals(f"fleet-bench-{i}", f"{key} per machine", key,
                             [charts.Interval(label, r.value,
                                              note=f"{r.value:.3g} {tx(r.unit)}" + (" (!)" if r.warnings else ""))
                              for label, r in items])
            for i, (key, items) in enumerate(groups.items())]
    rows = [[key, label, num(r.value, ".4g"), tx(r.unit), "; ".join(tx(w.message) for w in r.warnings)]
            for key, items in groups.items() for label, r in items]
    return section(
        f"Benchmarks of {tx(summary.framework_name)} per machine",
        chart_block(el("div", svgs, class_="grid"), "One chart per benchmark, a bar per machine; (!) marks a figure "
                    "that came with a warning. A team summary keeps each figure, not its interval: see each "
                    "machine's report for that.", table(["Benchmark", "Machine", "Value", "Unit", "Warnings"], rows)),
        id_="benchmarks",
    )


def _checklists(summary: TeamSummary, tx: Tx) -> Safe:
    """One checklist per distinct content: machines that need the same steps share one."""
    groups: list[tuple[Checklist, list[str]]] = []
    for m in summary.machines:
        for checklist, labels in groups:
            if checklist.sections == m.checklist.sections:
                labels.append(m.label)
                break
        else:
            groups.append((m.checklist, [m.label]))
    blocks = []
    for checklist, labels in groups:
        items = [el("section", el("h4", tx(s.title)), el("ul", [
            el("li", el("strong", tx(i.title)), " ", tx(i.detail) if i.detail else None,
               el("pre", el("code", tx(i.code))) if i.code else None,
               el("div", "Done when: ", tx(i.done_when)) if i.done_when else None,
               el("div", "See: ", "; ".join(f"{tx(k.name)} {tx(k.url)}" for k in i.links)) if i.links else None)
            for i in s.items])) for s in checklist.sections]
        blocks.append(el("details", el("summary", "For ", ", ".join(tx(x) for x in labels)), items))
    return section("Checklists", blocks, id_="checklists")
