"""The first lines of a report's Markdown: answer, margin, why, what would change it, what was measured here."""

from __future__ import annotations

from advisor.report.models import RankingEntry, Report
from advisor.report.words import break_even_statement, warning_items
from advisor.sanitize import markdown_text as md
from advisor.scoring.sensitivity import advice_change_sentence

#: The summary a reviewer reads before anything is unfolded: a pull-request comment's first screen.
MAX_SUMMARY_LINES = 15
#: How many criteria the "why" line names.
WHY_CRITERIA = 3


def names_of(report: Report) -> dict[str, str]:
    """Display names of the report's frameworks and criteria, by id."""
    names: dict[str, str] = {}
    for entry in report.ranking:
        names[entry.framework] = entry.name
        names.update({c.criterion: c.name for c in entry.contributions})
    return names


def change_text(report: Report) -> str | None:
    """Which single weight (0-5) changes the advice; the winner's smallest change for reports made before that."""
    sens = report.sensitivity
    if sens is None:
        return None
    names = names_of(report)
    if "advice_change" in sens.model_fields_set:
        return advice_change_sentence(sens.advice_change, names)
    t = sens.smallest_change
    if t is None:
        return "No single weight changes the winner."
    return f"{names.get(t.new_winner, t.new_winner)} wins if the share of {names.get(t.criterion, t.criterion)} " \
           f"goes from {100 * t.current_weight:.0f}% to {100 * t.threshold_weight:.0f}%."


def _margin(report: Report, first: RankingEntry, second: RankingEntry | None) -> str:
    sens = report.sensitivity
    if second is None:
        return f"- Margin: {md(first.name)} is the only candidate ({first.total:.2f} of 5)."
    line = (f"- Margin: {md(first.name)} {first.total:.2f} of 5 against {md(second.name)} {second.total:.2f}: "
            f"a lead of {first.total - second.total:.2f}")
    if sens is not None:
        mc = sens.monte_carlo
        share = mc.win_share.get(sens.winner, 0.0)
        line += (f" ({sens.verdict}; {md(first.name)} wins {100 * share:.0f}% of {mc.draws} draws with weights "
                 f"+/-{100 * mc.spread:.0f}%)")
    return line + "."


def _why(first: RankingEntry, second: RankingEntry | None) -> str:
    theirs = {c.criterion: c.contribution for c in second.contributions} if second else {}
    gains = sorted(((c.contribution - theirs.get(c.criterion, 0.0), c.name) for c in first.contributions),
                   reverse=True)
    top = [(g, n) for g, n in gains if g > 0][:WHY_CRITERIA]
    if second is None or not top:
        strongest = sorted(first.contributions, key=lambda c: -c.contribution)[:WHY_CRITERIA]
        listed = ", ".join(f"{md(c.name)} {c.contribution:.2f}" for c in strongest)
        return f"- Why: its largest contributions: {listed}."
    return (f"- Why: ahead of {md(second.name)} most on " + ", ".join(f"{md(n)} (+{g:.2f})" for g, n in top) + ".")


def _measured(report: Report, first: RankingEntry | None) -> list[str]:
    m = report.machine
    probe = "not probed" if report.probe is None else (
        f"{md(m.cpu or 'unknown CPU')}, {m.logical_cores or '?'} cores, "
        f"{md(', '.join(m.gpus)) if m.gpus else 'no GPU found'}")
    bench = report.benchmarks
    figures = len(bench.results or []) if bench else 0
    measured = f"benchmarks {figures} figures ({md(bench.preset or 'unknown preset')})" if bench else "no benchmarks"
    lines = [f"- Measured here: {probe}; {measured}."]
    if first is not None:
        known = sum(1 for c in first.contributions if c.measured_score is None)
        lines.append(f"- From the knowledge base: {known} of {len(first.contributions)} criteria of "
                     f"{md(first.name)}; the rest from this machine, its probe or your profile.")
    return lines


def summary_lines(report: Report) -> list[str]:
    """The title and at most `MAX_SUMMARY_LINES` lines in all; everything else is folded below them."""
    rec = report.recommendation
    ranking = report.ranking
    first = ranking[0] if ranking else None
    second = ranking[1] if len(ranking) > 1 else None
    out = ["# fwadvisor report", "", f"**{md(rec.summary)}**", ""]
    if first is not None:
        out += [_margin(report, first, second), _why(first, second)]
        change = change_text(report)
        if change:
            out.append(f"- What would change it: {md(change)}")
    if rec.break_even is not None:
        out.append(f"- Stay or move: {md(break_even_statement(rec.break_even))}")
    out += _measured(report, first)
    if report.warnings:
        codes = ", ".join(dict.fromkeys(w.code for w in report.warnings))
        out.append(f"- Warnings: {len(warning_items(report.warnings))} ({md(codes)}), listed under Warnings below.")
    if report.exclusions:
        out.append(f"- Excluded: {md(', '.join(x.framework for x in report.exclusions))} (see Exclusions below).")
    room = MAX_SUMMARY_LINES - len(out) - 1  # one blank line closes the summary
    # The break-even is said above: its step is found by its index, never by its words.
    steps = [step for i, step in enumerate(rec.next_steps) if rec.break_even is None or i != rec.break_even_at]
    out += [f"- Next: {md(step)}" for step in steps[:max(room, 0)]]
    return out[:MAX_SUMMARY_LINES - 1] + [""]
