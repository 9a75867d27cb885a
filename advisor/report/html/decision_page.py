"""A team decision as a self-contained HTML page: the team's answer and its fragility, consensus, disagreements."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.report.html import charts, parts
from advisor.report.html.markup import Child, Safe, el, table, texter
from advisor.report.html.page import answer_box, chart_block, document, section
from advisor.report.words import fragility_statement, left_out_words, team_warning_sentence

if TYPE_CHECKING:  # the team package builds on the report package, not the other way round
    from advisor.team.decision_schema import TeamDecisionDoc


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def decision_html(doc: TeamDecisionDoc, *, identify: bool = False) -> str:
    """The page for a team decision document; every string from it is scrubbed (unless `identify`) and escaped."""
    tx = texter(identify)
    team, cons, frag = doc.team, doc.consensus, doc.fragility
    rec = team.recommendation
    names = {k: tx(v) for k, v in parts.names_of(team.ranking).items()}
    points: list[Child] = [tx(fragility_statement(frag))]
    if cons.winner_share is not None:
        line = (f"{len(cons.agreeing)} of {len(doc.members)} member(s) ({_pct(cons.winner_share)}) have it as "
                "their own winner")
        if cons.disagreeing:
            line += "; " + ", ".join(f"{tx(k)} prefers {names.get(v, tx(v)) if v else 'nothing'}"
                                     for k, v in cons.disagreeing.items())
        points.append(line + ".")
    if cons.kendall_w is not None:
        points.append(f"Consensus: Kendall's W = {cons.kendall_w:.2f} (1 = identical rankings, 0 = no agreement).")
    points += parts.why(rec, team.ranking, team.sensitivity, tx)[:2]
    answer = answer_box("Team answer", tx(rec.name) if rec.name else "No framework fits every member's constraints",
                        frag.verdict, tx(rec.summary), points)
    members = doc.members
    left = (el("p", f"Left out ({len(doc.left_out)}): ",
               "; ".join(f"{tx(x.file)} ({tx(left_out_words(x))})" for x in doc.left_out),
               ". The answer does not include them.", class_="warn") if doc.left_out else None)
    return document(
        "fwadvisor team decision",
        tx(f"{doc.generated_at} · {len(members)} member(s) · knowledge {doc.knowledge.version}"),
        answer,
        left,
        _consensus(doc, names, tx),
        _disagreements(doc, tx),
        _fragility(doc, names, tx),
        parts.scores(team.ranking, tx),
        parts.sensitivity(team.sensitivity, team.ranking, tx),
        parts.notes(team.exclusions, team.warnings, tx),
        section("Team warnings",
                el("ul", [el("li", tx(team_warning_sentence(w)), class_="warn") for w in doc.warnings]))
        if doc.warnings else None,
        footer=tx(f"fwadvisor {doc.tool.version}, knowledge {doc.knowledge.version}, evidence: "
                  f"{doc.evidence.get('source', 'unknown')}, {doc.generated_at}"),
    )


def _consensus(doc: TeamDecisionDoc, names: dict[str, str], tx: parts.Tx) -> Safe:
    """Each member's own score of each team candidate against the team's: agreement at a glance."""
    team = doc.team
    cands = [e.framework for e in team.ranking]
    series: list[tuple[str, list[float]]] = [("team", [e.total for e in team.ranking])]
    for m in doc.members:
        own = {r.framework: r.total for r in m.ranking}
        series.append((tx(m.label), [own.get(f, 0.0) for f in cands]))
    labels = [names.get(f, tx(f)) for f in cands]
    svg = charts.dots("consensus", "Each member's own score of each candidate, and the team's (grey bar)",
                      labels, series, "score (0-5) under each member's own weights; grey bar: the team's", "team")
    head = ["Framework", "Team"] + [tx(m.label) for m in doc.members]
    rows: list[list[Child]] = [[lab, parts.num(series[0][1][i])] + [parts.num(s[1][i]) for s in series[1:]]
                               for i, lab in enumerate(labels)]
    answers: list[list[Child]] = [[tx(m.label), m.input, names.get(m.winner, tx(m.winner)) if m.winner else "none",
                                   parts.num(m.ahp.consistency_ratio if m.ahp else None)] for m in doc.members]
    return section(
        "Consensus",
        chart_block(svg, "Dots close to the grey bar: that member agrees with the team on that framework "
                         "(0 where a member's constraints leave it out).", table(head, rows)),
        table(["Member", "Input", "Own winner", "Consistency ratio"], answers),
        id_="consensus",
    )


def _disagreements(doc: TeamDecisionDoc, tx: parts.Tx) -> Safe:
    """Each member's share of each criterion, with the team's: where they weigh things differently."""
    agg = doc.aggregation
    members = doc.members
    crits = [c for c, w in sorted(agg.team_weights.items(), key=lambda kv: -kv[1])
             if w > 0 or any(m.normalized_weights.get(c, 0.0) > 0 for m in members)]
    series = [("team", [agg.team_weights[c] for c in crits])]
    series += [(tx(m.label), [m.normalized_weights.get(c, 0.0) for c in crits]) for m in members]
    svg = charts.dots("disagreements", "Each member's share of each criterion's weight, and the team's",
                      [tx(c) for c in crits], series, "share of the weight; grey bar: the team's", "team")
    rows: list[list[Child]] = [[tx(c), _pct(agg.team_weights[c])] + [_pct(m.normalized_weights.get(c, 0.0))
                                                                       for m in members] for c in crits]
    spread = [el("li", el("strong", tx(d.name)), f" (spread {_pct(d.spread)}): lowest {_pct(d.low)} ",
                 f"({', '.join(tx(x) for x in d.low_members)}), highest {_pct(d.high)} ",
                 f"({', '.join(tx(x) for x in d.high_members)})") for d in doc.disagreements]
    return section(
        "Where the members disagree",
        el("ul", spread) if spread else el("p", "No criterion is weighed very differently."),
        chart_block(svg, "Dots far apart on a row: the members weigh that criterion differently.",
                    table(["Criterion", "Team"] + [tx(m.label) for m in members], rows)),
        id_="disagreements",
    )


def _fragility(doc: TeamDecisionDoc, names: dict[str, str], tx: parts.Tx) -> Safe:
    frag = doc.fragility
    rows: list[list[Child]] = [[tx(f.member), names.get(f.criterion, tx(f.criterion)), _pct(f.from_share),
                                _pct(f.to_share), names.get(f.new_winner, tx(f.new_winner))] for f in frag.flips]
    return section(
        "Who could change the answer alone",
        el("p", tx(fragility_statement(frag))),
        table(["Member", "Criterion", "Their share now", "Changes the answer at", "Then"], rows) if rows else None,
        el("p", "No single weight of ", ", ".join(tx(u) for u in frag.unmoved), " can change the answer.")
        if frag.unmoved else None,
        id_="fragility",
    )
