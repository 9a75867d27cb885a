"""The report as Markdown for a pull request: a short summary first, every detail folded under `<details>`."""

from __future__ import annotations

import json

from advisor.report.markdown_summary import change_text, summary_lines
from advisor.report.models import Report
from advisor.report.words import break_even_statement, exclusion_words, warning_items
from advisor.sanitize import markdown_text as md
from advisor.sanitize import printable
from advisor.scoring.explain import display_parts, evidence_label, parts_text

# Every value from input (names from packs, profile and report paths, machine strings, messages) goes through
# `md` (sanitize.markdown_text) once here: shown literally, never as a heading, a link, an image or HTML.


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def folded(title: str, summary: str, body: list[str], level: int = 2) -> list[str]:
    """A heading and its body under `<details>` (blank lines around the body, so Markdown in it still renders)."""
    while body and not body[-1]:
        body = body[:-1]
    return [f"{'#' * level} {title}", "", f"<details><summary>{summary}</summary>", "", *body, "", "</details>", ""]


def recommendation_lines(report: Report) -> list[str]:
    """The next steps and, for a team with an incumbent, the stay-or-move figures."""
    rec = report.recommendation
    out = [f"- {md(s)}" for s in rec.next_steps] + [""]
    gap = rec.break_even
    if gap:
        out += [md(break_even_statement(gap)), ""]
        cost = gap.cost
        if cost:
            lo, hi = cost.effort
            out += [
                f"- Effort: {lo:.0f}-{hi:.0f} engineer-months; {cost.team_size} engineers"
                + (" (assumed)" if cost.team_size_assumed else "")
                + f" over {cost.horizon_months:g} months",
                "- Break-even share of capacity: "
                + (f"{100 * gap.break_even_share:.0f}%" if gap.break_even_share is not None else "none"),
            ]
    return out


def profile_lines(report: Report) -> list[str]:
    """Where the weights came from, each on the 0-5 scale with its share, and the hard constraints."""
    prof = report.profile
    eff = prof.effective_weights or {}
    weights = ", ".join(
        (f"{k} {eff[k].value:.2f} ({_pct(v)}, {eff[k].source})" if k in eff else f"{k} {_pct(v)}")
        for k, v in prof.normalized_weights.items()
        if v > 0
    )
    cons = {k: v for k, v in prof.constraints.items() if v}
    return [
        f"- Source: {md(prof.source)}",
        f"- Scenario: {md(prof.scenario or 'none')}",
        f"- Weights ({prof.weight_source}; {prof.weight_scale or 'normalised'}), with each one's share: {weights}",
        f"- Constraints: {md(json.dumps(cons)) if cons else 'none'}",
    ]


def ranking_lines(report: Report, level: int = 3) -> list[str]:
    """The ranking table, then each framework's breakdown whose shown parts add up to its shown total."""
    out = ["| # | Framework | Score (0-5) | TOPSIS | Status |", "|---|---|---|---|---|"]
    for e in report.ranking:
        out.append(f"| {e.rank} | {md(e.name)} | {e.total:.2f} | {e.topsis:.2f} (#{e.topsis_rank}) | {e.status} |")
    out.append("")
    for e in report.ranking:
        parts, total = display_parts([c.contribution for c in e.contributions])
        out += [
            f"{'#' * level} {md(e.name)}: {total:.2f}",
            "",
            "| Criterion | Share of weight | Score | Contribution | Evidence |",
            "|---|---|---|---|---|",
        ]
        for c, shown in zip(e.contributions, parts, strict=True):
            measured = (
                f" (knowledge {c.knowledge_score:g}, {evidence_label(c.evidence_source)} {c.measured_score:.2f})"
                if c.measured_score is not None
                else ""
            )
            if c.parts:
                measured += f" ({parts_text(c.parts)})"
            out.append(
                f"| {md(c.name)} | {_pct(c.weight)} | {c.score:.2f}{measured} | {shown:.2f} | {md(c.evidence)} |"
            )
        out += [f"| **Total** | 100% | | **{total:.2f}** | |", ""]
    return out


def sensitivity_lines(report: Report) -> list[str]:
    """The verdict, the lead, the Monte-Carlo win shares and the one weight that changes the advice."""
    sens = report.sensitivity
    if sens is None:
        return []
    mc = sens.monte_carlo
    out = [
        f"- Verdict: **{sens.verdict}**" + (f" (tied with {', '.join(sens.tied_with)})" if sens.tied_with else ""),
        f"- Lead over {sens.runner_up}: {sens.gap:.3f}" if sens.runner_up else "- Single candidate",
        f"- Monte Carlo ({mc.draws} draws, weights x U(1 +/- {mc.spread}), seed {mc.seed}): win share "
        + ", ".join(f"{k} {_pct(v)}" for k, v in mc.win_share.items() if v > 0),
    ]
    line = change_text(report)
    if line and "advice_change" in sens.model_fields_set:
        out.append(f"- {line}")
    return out


def exclusion_lines(report: Report) -> list[str]:
    """Frameworks left out, each with its reasons."""
    return [f"- {md(x.framework)}: {md(exclusion_words(x))}" for x in report.exclusions]


def warning_lines(report: Report) -> list[str]:
    """Each warning with its code."""
    return [f"- \\[{md(code)}\\] {md(text)}" for code, text in warning_items(report.warnings)]


def machine_lines(report: Report) -> list[str]:
    """The machine the evidence came from, and how many benchmark figures it gave."""
    m = report.machine
    out = [
        f"- CPU: {md(m.cpu or 'unknown')} ({m.logical_cores or '?'} logical cores)",
        f"- GPUs: {md(', '.join(m.gpus) or 'none found')}",
        f"- Hardware: {md(', '.join(m.hardware) or 'unknown (no probe)')}",
    ]
    if m.hostname:
        out.append(f"- Host: {md(m.hostname)}")
    bench = report.benchmarks
    out.append(
        f"- Benchmarks: {len(bench.results or [])} results ({md(bench.preset)})" if bench else "- Benchmarks: not run"
    )
    return out


def to_markdown(report: Report) -> str:
    """The report as Markdown: the summary (at most 15 lines), then each section folded under `<details>`."""
    out = summary_lines(report)
    n = len(report.ranking)
    out += folded("Recommendation", "Next steps" + (" and the cost of moving" if report.recommendation.break_even
                                                   else ""), recommendation_lines(report))
    out += folded("Ranking", f"{n} framework(s): scores and how each one adds up", ranking_lines(report))
    if report.sensitivity:
        out += folded("Sensitivity", "How stable the answer is", sensitivity_lines(report))
    out += folded("Profile", "Weights and constraints", profile_lines(report))
    if report.exclusions:
        out += folded("Exclusions", f"{len(report.exclusions)} framework(s) left out", exclusion_lines(report))
    if report.warnings:
        lines = warning_lines(report)
        out += folded("Warnings", f"{len(lines)} warning(s)", lines)
    out += folded("Machine", "Where the evidence comes from", machine_lines(report))
    kb = report.knowledge
    packs = ", ".join(p.name + " " + p.version for p in kb.packs)
    out += [f"_fwadvisor {report.tool.version}, knowledge {kb.version} ({md(packs)}), {md(report.generated_at)}_", ""]
    return printable("\n".join(out))  # names and messages from input may carry ESC, BEL or NUL
