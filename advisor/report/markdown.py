"""The report as Markdown: recommendation, profile, ranking with exact explanations, sensitivity, warnings."""

from __future__ import annotations

import json
from typing import Any

from advisor.report.sensitivity_text import advice_change_line
from advisor.sanitize import markdown_text as md
from advisor.sanitize import printable
from advisor.scoring.explain import display_parts, evidence_label


def _fmt_pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def to_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: recommendation, ranking, explanations, sensitivity, exclusions, warnings."""
    out: list[str] = ["# fwadvisor report", ""]
    rec = report["recommendation"]
    # Every value from input (names from packs, profile and report paths, machine strings, messages) goes through
    # `md` (sanitize.markdown_text) once here: shown literally, never as a heading, a link, an image or HTML.
    out += ["## Recommendation", "", f"**{md(rec['summary'])}**", ""]
    out += [f"- {md(s)}" for s in rec["next_steps"]] + [""]
    gap = rec.get("break_even")
    if gap:
        out += ["## Stay or move", "", md(gap["statement"]), ""]
        cost = gap.get("cost")
        if cost:
            lo, hi = cost["effort_engineer_months"]
            out += [
                f"- Effort: {lo:.0f}-{hi:.0f} engineer-months; {cost['team_size']} engineers"
                + (" (assumed)" if cost["team_size_assumed"] else "")
                + f" over {cost['horizon_months']:g} months",
                "- Break-even share of capacity: "
                + (f"{100 * gap['break_even_share']:.0f}%" if gap["break_even_share"] is not None else "none"),
                "",
            ]
    prof = report["profile"]
    eff = prof.get("effective_weights") or {}
    out += [
        "## Profile",
        "",
        f"- Source: {md(prof['source'])}",
        f"- Scenario: {md(prof['scenario'] or 'none')}",
        f"- Weights ({prof['weight_source']}; {prof.get('weight_scale') or 'normalised'}), with each one's share: "
        + ", ".join(
            (f"{k} {eff[k]['value']:.2f} ({_fmt_pct(v)}, {eff[k]['source']})" if k in eff else f"{k} {_fmt_pct(v)}")
            for k, v in prof["normalized_weights"].items()
            if v > 0
        ),
    ]
    cons = {k: v for k, v in prof["constraints"].items() if v}
    out += [f"- Constraints: {md(json.dumps(cons)) if cons else 'none'}", ""]
    out += ["## Ranking", "", "| # | Framework | Score (0-5) | TOPSIS | Status |", "|---|---|---|---|---|"]
    for e in report["ranking"]:
        out.append(
            f"| {e['rank']} | {md(e['name'])} | {e['total']:.2f} | {e['topsis']:.2f} (#{e['topsis_rank']}) "
            f"| {e['status']} |"
        )
    out.append("")
    for e in report["ranking"]:
        parts, total = display_parts([c["contribution"] for c in e["contributions"]])
        out += [
            f"### {md(e['name'])}: {total:.2f}",
            "",
            "| Criterion | Share of weight | Score | Contribution | Evidence |",
            "|---|---|---|---|---|",
        ]
        for c, shown in zip(e["contributions"], parts, strict=True):
            measured = (
                f" (knowledge {c['knowledge_score']:g}, {evidence_label(c.get('evidence_source'))} "
                f"{c['measured_score']:.2f})"
                if c["measured_score"] is not None
                else ""
            )
            out.append(
                f"| {md(c['name'])} | {_fmt_pct(c['weight'])} | {c['score']:.2f}{measured} | {shown:.2f} "
                f"| {md(c['evidence'])} |"
            )
        out.append(f"| **Total** | 100% | | **{total:.2f}** | |")
        out.append("")
    sens = report["sensitivity"]
    if sens:
        mc = sens["monte_carlo"]
        out += [
            "## Sensitivity",
            "",
            f"- Verdict: **{sens['verdict']}**"
            + (f" (tied with {', '.join(sens['tied_with'])})" if sens["tied_with"] else ""),
            f"- Lead over {sens['runner_up']}: {sens['gap']:.3f}" if sens["runner_up"] else "- Single candidate",
            f"- Monte Carlo ({mc['draws']} draws, weights x U(1 +/- {mc['spread']}), seed {mc['seed']}): win share "
            + ", ".join(f"{k} {_fmt_pct(v)}" for k, v in mc["win_share"].items() if v > 0),
        ]
        line = advice_change_line(report)
        if line:
            out.append(f"- {line}")
        out.append("")
    if report["exclusions"]:
        out += ["## Exclusions", ""]
        out += [f"- {md(x['framework'])}: {md('; '.join(x['reasons']))}" for x in report["exclusions"]] + [""]
    if report["warnings"]:
        out += ["## Warnings", ""] + [f"- \\[{md(w['code'])}\\] {md(w['message'])}" for w in report["warnings"]] + [""]
    m = report["machine"]
    out += [
        "## Machine",
        "",
        f"- CPU: {md(m['cpu'] or 'unknown')} ({m['logical_cores'] or '?'} logical cores)",
        f"- GPUs: {md(', '.join(m['gpus']) or 'none found')}",
        f"- Hardware: {md(', '.join(m['hardware']) or 'unknown (no probe)')}",
    ]
    if m["hostname"]:
        out.append(f"- Host: {md(m['hostname'])}")
    bench = report["benchmarks"]
    out.append(
        f"- Benchmarks: {len(bench.get('results') or [])} results ({md(bench.get('preset'))})"
        if bench
        else "- Benchmarks: not run"
    )
    kb = report["knowledge"]
    out += [
        "",
        f"_fwadvisor {report['tool']['version']}, knowledge {kb['version']} "
        f"({md(', '.join(p['name'] + ' ' + p['version'] for p in kb['packs']))}), {md(report['generated_at'])}_",
        "",
    ]
    return printable("\n".join(out))  # names and messages from input may carry ESC, BEL or NUL
