"""The team decision as Markdown: the answer, its fragility and consensus first, then members, weights, ranking."""

from __future__ import annotations

from typing import Any

from advisor.report import Report
from advisor.report.markdown import exclusion_lines, ranking_lines, sensitivity_lines, warning_lines
from advisor.report.models import Method
from advisor.report.words import fragility_statement, left_out_words, team_warning_sentence
from advisor.sanitize import markdown_text
from advisor.team.decision_schema import TeamDecisionDoc


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _cell(text: Any) -> str:
    # Member names, file paths, reasons and names from packs: shown literally (sanitize.markdown_text).
    return markdown_text(text)


def _team_sections(doc: TeamDecisionDoc) -> list[str]:
    """The report's own ranking, breakdown, sensitivity, exclusions and warnings, one heading level down."""
    team = doc.team
    report = Report(
        profile=team.profile, ranking=team.ranking, sensitivity=team.sensitivity, exclusions=team.exclusions,
        warnings=team.warnings, recommendation=team.recommendation, machine=doc.machine, probe=None,
        method=Method(), benchmarks=None, knowledge=doc.knowledge, tool=doc.tool, generated_at=doc.generated_at,
    )
    out = ["### Ranking", "", *ranking_lines(report, level=4)]
    for title, lines in (("Sensitivity", sensitivity_lines(report)), ("Exclusions", exclusion_lines(report)),
                         ("Warnings", warning_lines(report))):
        if lines:
            out += [f"### {title}", "", *lines, ""]
    return out


def to_markdown_decision(doc: TeamDecisionDoc) -> str:
    """Readable Markdown for a team decision document (`decision_doc.to_document`)."""
    team, cons, frag = doc.team, doc.consensus, doc.fragility
    rec = team.recommendation
    names = {e.framework: e.name for e in team.ranking}
    members = doc.members
    out = [f"# Team decision: {_cell(rec.name or 'no framework fits every constraint')}", ""]
    out.append(
        f"{len(members)} member(s): " + ", ".join(f"**{_cell(m.label)}** ({m.input})" for m in members) + "."
    )
    if doc.left_out:
        out.append(
            f"Left out ({len(doc.left_out)}): "
            + "; ".join(f"{_cell(x.file)} ({_cell(left_out_words(x))})" for x in doc.left_out)
            + ". The answer below does not include them."
        )
    out += ["", "## Answer", "", f"**{_cell(rec.summary)}**", "", f"- {_cell(fragility_statement(frag))}"]
    if cons.kendall_w is not None:
        out.append(
            f"- Consensus: Kendall's W = {cons.kendall_w:.2f} over {len(members)} members' rankings of "
            f"{len(cons.candidates)} candidates (1 = identical rankings, 0 = no agreement)."
        )
    if cons.winner_share is not None:
        agree = len(cons.agreeing)
        line = (
            f"- {agree} of {len(members)} member(s) ({_pct(cons.winner_share)}) have the team's winner as their own"
        )
        if cons.disagreeing:
            line += "; " + ", ".join(
                f"{_cell(k)} prefers "
                + (_cell(names.get(v, v)) if v else 'nothing (their constraints leave no framework)')
                for k, v in cons.disagreeing.items()
            )
        out.append(line + ".")
    out.append("")
    out += [
        "## Members",
        "",
        "| Member | Input | Own winner | Own top three | Consistency ratio |",
        "|---|---|---|---|---|",
    ]
    for m in members:
        top = ", ".join(f"{r.name} {r.total:.2f}" for r in m.ranking[:3]) or "none"
        cr = m.ahp.consistency_ratio if m.ahp else None
        winner = next((r.name for r in m.ranking if r.framework == m.winner), "none")
        out.append(
            f"| {_cell(m.label)} | {m.input} | {_cell(winner)} | {_cell(top)} | "
            f"{'' if cr is None else f'{cr:.2f}'} |"
        )
    out.append("")
    agg = doc.aggregation
    out += ["## Weights", ""]
    out.append(
        "Pairwise members: judgements combined by element-wise geometric mean (AIJ), weights from the principal "
        "eigenvector; weight members: normalised weights averaged (AIP); the team's weight is the mean over all "
        "members, the pairwise block counted once per member (docs/scoring.md)."
    )
    if agg.pairwise_members and not agg.aij:
        out.append(
            "The pairwise members' judgements do not link up into one matrix (they judged different criteria), "
            "so each one's own weights are averaged with the others' instead."
        )
    if agg.aij:
        a = agg.aij
        ratio = "n/a" if a.consistency_ratio is None else f"{a.consistency_ratio:.2f}"
        out.append(f"Combined judgements of {', '.join(map(_cell, a.members))}: consistency ratio {ratio}.")
    out += ["", "| Criterion | Team | " + " | ".join(_cell(m.label) for m in members) + " |"]
    out.append("|---|---|" + "---|" * len(members))
    for cid, w in sorted(agg.team_weights.items(), key=lambda kv: -kv[1]):
        if w <= 0 and all(m.normalized_weights.get(cid, 0) <= 0 for m in members):
            continue
        out.append(
            f"| {cid} | {_pct(w)} | " + " | ".join(_pct(m.normalized_weights.get(cid, 0.0)) for m in members) + " |"
        )
    out.append("")
    if doc.disagreements:
        out += ["## Where the members disagree", ""]
        for d in doc.disagreements:
            out.append(
                f"- **{_cell(d.name)}** (spread {_pct(d.spread)}): lowest {_pct(d.low)} "
                f"({', '.join(map(_cell, d.low_members))}), highest {_pct(d.high)} "
                f"({', '.join(map(_cell, d.high_members))})"
            )
        out.append("")
    out += ["## Fragility", "", _cell(fragility_statement(frag)), ""]
    if frag.flips:
        out += ["| Member | Criterion | Their share now | Changes the answer at | Then |", "|---|---|---|---|---|"]
        for f in frag.flips:
            at = _pct(f.to_share) + (f" (judgements x{f.factor:.2g})" if f.factor else "")
            out.append(
                f"| {_cell(f.member)} | {f.criterion} | {_pct(f.from_share)} | {at} "
                f"| {_cell(names.get(f.new_winner, f.new_winner))} |"
            )
        out.append("")
    if frag.unmoved:
        out += [f"No single weight of {', '.join(map(_cell, frag.unmoved))} can change the answer.", ""]
    out += ["## Team ranking", ""] + _team_sections(doc)
    if doc.warnings:
        out += ["## Team warnings", ""] + [f"- {_cell(team_warning_sentence(w))}" for w in doc.warnings] + [""]
    out += [f"_fwadvisor {doc.tool.version}, knowledge {doc.knowledge.version}, {doc.generated_at}_", ""]
    return "\n".join(out)
