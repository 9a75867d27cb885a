"""The fleet summary's all-reduce: the nodes' sections merged, intra-node beside inter-node, each node's figures."""

from __future__ import annotations

from collections.abc import Sequence

from advisor.evidence.bench.collective_model import AllReduceReport, RunOutcome, merge_reports
from advisor.fleet.models import AllReduceRow, Finding, FindingCode, FleetAllReduce

#: A node's share that ended so says nothing is wrong with it (one node, or no leader to meet).
_QUIET = (RunOutcome.OK, RunOutcome.SKIPPED)


def intra_figures(report: AllReduceReport | None) -> tuple[dict[str, float], dict[str, tuple[str, bool]], list[str]]:
    """A node's own intra-node bus bandwidth per size, as spread figures (units; keys too noisy to judge by)."""
    if report is None or report.intra is None:
        return {}, {}, []
    figures, meta, noisy = {}, {}, []
    for row in report.intra.rows:
        key = f"{report.framework} allreduce intra {row.nbytes} B busbw"
        figures[key] = row.busbw_GBps
        meta[key] = ("GB/s", True)
        if row.warnings:
            noisy.append(key)
    return figures, meta, noisy


def fleet_allreduce(sections: Sequence[tuple[str, AllReduceReport]]) -> tuple[FleetAllReduce | None, list[Finding]]:
    """The nodes' sections as one all-reduce (of the leader's framework), and a finding naming unfinished nodes."""
    if not sections:
        return None, []
    reports = [r for _label, r in sections]
    leader = next((r for r in reports if r.inter is not None and r.inter.rows), reports[0])
    same = [(label, r) for label, r in sections if r.framework == leader.framework]
    merged = merge_reports([r for _label, r in same])
    shares = {label: (r.inter.outcome if r.inter is not None else RunOutcome.SKIPPED) for label, r in same}
    shares.update({label: RunOutcome.FAILED for label, r in sections if r.framework != leader.framework})
    intra_node = next((label for label, r in same if r is leader), None)
    rows = []
    for row in merged.side_by_side:
        flagged = any(run is not None and (found := run.row(row.bytes)) is not None and bool(found.warnings)
                      for run in (merged.intra, merged.inter))
        rows.append(AllReduceRow(**dict(row), flagged=flagged))
    inter = merged.inter
    # Nodes that all had no leader to meet measured nothing across nodes: that is no failed run.
    skipped = inter is None or all(o is RunOutcome.SKIPPED for o in shares.values())
    summary = FleetAllReduce(
        framework=merged.framework, outcome=(RunOutcome.SKIPPED if skipped or inter is None else inter.outcome).value,
        nnodes=inter.nnodes if inter else len(sections), world_size=inter.world_size if inter else 0,
        intra_node=intra_node, intra_backend=merged.intra.backend if merged.intra else "",
        inter_backend=inter.backend if inter else "", rows=rows,
        nodes={label: outcome.value for label, outcome in shares.items()})
    bad = {label: outcome.value for label, outcome in shares.items() if outcome not in _QUIET}
    findings = [Finding(code=FindingCode.ALLREDUCE_FAILED, nodes=sorted(bad), framework=merged.framework,
                        setting="outcome", values=bad)] if bad else []
    return summary, findings
