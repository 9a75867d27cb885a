"""The fleet summary as Markdown: the one place its codes become sentences."""

from __future__ import annotations

from advisor.fleet.models import Finding, FindingCode, FleetAllReduce, FleetNode, FleetSummary
from advisor.sanitize import markdown_text as md


def _gib(value: int | None) -> str:
    return f"{value / 2**30:.0f} GiB" if value else "unknown"


def _nodes(labels: list[str]) -> str:
    return ", ".join(f"**{md(label)}**" for label in labels) or "no node"


def finding_sentence(f: Finding) -> str:
    """One finding as a sentence (Markdown), rendered from its code and fields."""
    fw = md(f.framework or "")
    if f.code is FindingCode.NODE_FAILED:
        return f"{_nodes(f.nodes)} gave no report ({md(f.reason or 'failed')}): the summary is of the others."
    if f.code is FindingCode.FILE_SKIPPED:
        return f"{_nodes(f.nodes)} was skipped: {md(f.reason or '')}."
    if f.code is FindingCode.FRAMEWORK_MISSING:
        return (f"{fw} is installed on some nodes but not on {_nodes(f.nodes)}: choosing {fw} means installing it "
                "there first.")
    if f.code is FindingCode.FRAMEWORK_FAILING:
        how = "; ".join(f"{md(n)}: {md(v)}" for n, v in f.values.items())
        return (f"{fw} is installed but failed its probe on {_nodes(f.nodes)} ({how}): fix it there before relying "
                "on it.")
    if f.code is FindingCode.GPU_BELOW_FLOOR:
        what = "an older release must be pinned" if f.support == "deprecated" else "no release is known to support them"
        return (f"{_nodes(f.nodes)} have GPUs below compute capability {md(f.reason or '?')}, the floor of {fw}'s "
                f"current CUDA wheels: {what}.")
    if f.code is FindingCode.VERSIONS_DIFFER:
        return (f"{_nodes(f.nodes)} have the same hardware as {md(f.node_type or '')} but other framework versions: "
                "align them, or their figures compare versions rather than nodes.")
    if f.code is FindingCode.SLOW_NODE:
        return (f"{_nodes(f.nodes)} is {f.shortfall_pct:.0f}% below the other nodes of its type on "
                f"{md(f.benchmark or '')}: check it (thermal limits, a busy or misconfigured host).")
    if f.code is FindingCode.ALLREDUCE_FAILED:
        how = "; ".join(f"{md(n)}: {md(v)}" for n, v in f.values.items())
        return (f"the cross-node all-reduce ({fw}) did not finish on {_nodes(f.nodes)} ({how}): the inter-node "
                "figures are missing or partial; check the interconnect, the rendezvous port and the peers' logs.")
    values = ", ".join(f"{md(n)}: {md(v)}" for n, v in f.values.items())
    return f"{_nodes(f.nodes)} differ from the rest of {md(f.node_type or '')} in {md(f.setting or '')} ({values})."


def _type_line(summary: FleetSummary, type_id: str) -> str:
    t = next(t for t in summary.types if t.id == type_id)
    gpu = f"{t.gpu_count} x {md(t.gpu)}" if t.gpu else "no NVIDIA GPU"
    versions = ", ".join(f"{md(f)} {md(v or '?')}" for f, v in t.framework_versions.items()) or "no framework"
    return f"{md(t.cpu)}; {gpu}; {versions}"


def _node_row(n: FleetNode) -> str:
    installed = ", ".join(f"{md(f)} {md(s.version or '')}".strip() for f, s in n.frameworks.items() if s.installed)
    return (f"| {md(n.label)} | {md(n.type_id)} | {n.usable_cores or '?'} | {_gib(n.memory_total_bytes)} | "
            f"{installed or 'none'} | {md(n.recommendation or 'unknown')} |")


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


def allreduce_lines(a: FleetAllReduce) -> list[str]:
    """The all-reduce table: per size, the leader's intra-node run beside the fleet's inter-node run."""
    lines = ["## All-reduce across nodes", "",
             f"{md(a.framework)}: inter-node {md(a.outcome)} over {a.nnodes} node(s), {a.world_size} rank(s), "
             f"{md(a.inter_backend or '?')}; intra-node from {md(a.intra_node or 'no node')} "
             f"({md(a.intra_backend or '?')}). algbw = S/t, busbw = algbw x 2(n-1)/n (nccl-tests), in GB/s.", ""]
    if a.rows:
        lines += ["| size (B) | intra us | intra algbw | intra busbw | inter us | inter algbw | inter busbw | "
                  "inter/intra busbw |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {r.bytes} | {_num(r.intra_time_us)} | {_num(r.intra_algbw_GBps)} | {_num(r.intra_busbw_GBps)} | "
                  f"{_num(r.inter_time_us)} | {_num(r.inter_algbw_GBps)} | {_num(r.inter_busbw_GBps)} | "
                  f"{_num(r.inter_over_intra_busbw)}{' !' if r.flagged else ''} |" for r in a.rows]
        if any(r.flagged for r in a.rows):
            lines += ["", "! the samples spread widely, were few, or a value reduced wrongly (see the node reports)."]
    lines += ["", "Each node: " + ", ".join(f"{md(n)} {md(o)}" for n, o in a.nodes.items()), ""]
    return lines


def summary_markdown(summary: FleetSummary) -> str:
    """The fleet summary: what it means first, then node types with their spread, then every node."""
    reported = len(summary.nodes)
    expected = f" of {summary.nodes_expected}" if summary.nodes_expected else ""
    lines = ["# Fleet summary", "",
             f"{reported}{expected} node(s) reported, {len(summary.types)} node type(s), "
             f"{len(summary.failed)} failed. Knowledge base {md(summary.knowledge_version)}.", ""]
    lines += ["## What it means for the recommendation", ""]
    lines += [f"- {finding_sentence(f)}" for f in summary.findings] or ["- Nothing: every node is alike and sound."]
    lines.append("")
    lines += ["## Node types", ""]
    for t in summary.types:
        lines.append(f"### {md(t.id)}: {_type_line(summary, t.id)}")
        lines += ["", f"Nodes: {', '.join(md(n) for n in t.nodes)}", ""]
        if t.spread:
            lines += ["| benchmark | median | low | high | spread | worst node |", "|---|---|---|---|---|---|"]
            lines += [f"| {md(s.benchmark)} | {s.median:.3g} {md(s.unit)} | {s.low:.3g} | {s.high:.3g} | "
                      f"{s.spread_pct:.0f}% | {md(s.worst_node)} |" for s in t.spread]
            lines.append("")
    if summary.allreduce is not None:
        lines += allreduce_lines(summary.allreduce)
    lines += ["## Nodes", "", "| node | type | usable cores | memory | frameworks | recommends |",
              "|---|---|---|---|---|---|"]
    lines += [_node_row(n) for n in summary.nodes]
    if summary.failed:
        lines += ["", "## Nodes without a report", ""]
        lines += [f"- **{md(f.label)}**: {md(f.kind.value)} {('— ' + md(f.detail)) if f.detail else ''}".rstrip()
                  for f in summary.failed]
    return "\n".join(lines).rstrip() + "\n"
