"""One report as a self-contained HTML page: the answer and why, then scores, sensitivity, benchmarks, notes."""

from __future__ import annotations

from advisor.report.html import parts
from advisor.report.html.markup import el, table, texter
from advisor.report.html.page import answer_box, document, section
from advisor.report.models import Report


def report_html(report: Report, *, identify: bool = False) -> str:
    """The page for `report`; every string from it is scrubbed (unless `identify`) and escaped."""
    tx = texter(identify)
    rec = report.recommendation
    ranking = report.ranking
    headline = tx(rec.name) if rec.name else "No framework fits the constraints"
    label = {"stay": "Stay with", "move": "Move to"}.get(rec.decision, "Recommended")
    answer = answer_box(label, headline, rec.verdict, tx(rec.summary),
                        parts.why(rec, ranking, report.sensitivity, tx))
    steps = section("Next steps", el("ul", [el("li", tx(s)) for s in rec.next_steps])) if rec.next_steps else None
    prof = report.profile
    eff = prof.effective_weights or {}
    weights = [[tx(c), "" if c not in eff else f"{eff[c].value:.2f}", f"{100 * w:.0f}%",
                "" if c not in eff else eff[c].source]
               for c, w in prof.normalized_weights.items() if w > 0]
    profile = section(
        "Profile",
        el("p", f"Source: {tx(prof.source)}; scenario: {tx(prof.scenario or 'none')}; weights from "
                f"{prof.weight_source}."),
        table(["Criterion", "Weight (0-5)", "Share", "Set by"], weights),
        id_="profile",
    )
    m = report.machine
    machine = section(
        "Machine",
        table(["", ""], [["CPU", tx(f"{m.cpu or 'unknown'} ({m.logical_cores or '?'} logical cores)")],
                         ["GPUs", tx(", ".join(m.gpus) or "none found")],
                         ["Hardware", tx(", ".join(m.hardware) or "unknown (no probe)")],
                         ["OS", tx(m.os or "unknown")], ["Python", tx(m.python or "unknown")]]
              + ([["Host", tx(m.hostname)]] if m.hostname else [])),
        id_="machine",
    )
    kb = report.knowledge
    footer = tx(f"fwadvisor {report.tool.version}, knowledge {kb.version} "
                f"({', '.join(p.name + ' ' + p.version for p in kb.packs)}), {report.generated_at}")
    return document(
        "fwadvisor report",
        tx(f"{report.generated_at} · knowledge {kb.version}"),
        answer,
        steps,
        parts.scores(ranking, tx),
        parts.sensitivity(report.sensitivity, ranking, tx),
        parts.benchmarks(report.benchmarks, tx),
        parts.notes(report.exclusions, report.warnings, tx),
        profile,
        machine,
        footer=footer,
    )
