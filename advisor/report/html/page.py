"""The page shell: one HTML document with its CSS inline, a strict CSP, and no reference outside itself."""

from __future__ import annotations

from advisor.report.html.markup import Child, Safe, el, esc

# default-src 'none': the page may load nothing at all (no script, font, image or connection); the charts are
# inline SVG and the styles this one <style> block. A hostile string that slipped past escaping still could not run.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

CSS = """
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0a5bb5; --bg: #ffffff; --soft: #f4f7fb; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); background: var(--bg); }
main { max-width: 1060px; margin: 0 auto; padding: 16px 24px 48px; }
header.top { display: flex; justify-content: space-between; align-items: baseline; gap: 12px;
             border-bottom: 1px solid var(--line); padding-bottom: 6px; }
header.top h1 { font-size: 16px; margin: 0; color: var(--muted); font-weight: 600; }
header.top .meta { font-size: 12px; color: var(--muted); }
section.answer { background: var(--soft); border-left: 6px solid var(--accent); padding: 14px 20px; margin: 14px 0; }
section.answer .label { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
section.answer h2 { font-size: 30px; margin: 2px 0 6px; }
section.answer .summary { font-size: 17px; margin: 0 0 8px; }
section.answer ul { margin: 4px 0 0; padding-left: 20px; }
.badge { display: inline-block; font-size: 12px; padding: 1px 8px; border-radius: 10px; background: #dbe9f8;
         color: #0a3a73; margin-left: 8px; vertical-align: middle; font-weight: 600; }
.badge.tie, .badge.fragile, .badge.none { background: #fde2c8; color: #7a3b00; }
h2 { font-size: 20px; margin: 28px 0 8px; }
h3 { font-size: 16px; margin: 18px 0 6px; }
figure { margin: 8px 0; }
figure svg.chart { width: 100%; max-width: 880px; height: auto; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 8px 16px; }
.grid svg.chart { max-width: 560px; }
figcaption { font-size: 13px; color: var(--muted); }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
details { margin: 4px 0 12px; }
summary { cursor: pointer; color: var(--accent); font-size: 13px; }
.warn { color: #7a3b00; }
footer { margin-top: 32px; font-size: 12px; color: var(--muted); border-top: 1px solid var(--line); padding-top: 6px; }
@media print { details { display: block; } summary { display: none; } }
"""


def document(title: str, meta: str, answer: Safe, *sections: Child, footer: str = "") -> str:
    """The whole file: the answer first (above the fold at 1280x800), then the sections in order."""
    head = Safe(
        '<meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
    )
    body = el(
        "main",
        el("header", el("h1", title), el("span", meta, class_="meta"), class_="top"),
        answer,
        sections,
        el("footer", footer) if footer else None,
    )
    return "<!DOCTYPE html>\n" + el("html", el("head", head, el("title", title), el("style", Safe(CSS))),
                                    el("body", body), lang="en") + "\n"


def answer_box(label: str, headline: str, badge: str | None, summary: str, points: list[Child]) -> Safe:
    """The box at the top: what to do, how sure, and the few reasons why."""
    return el(
        "section",
        el("div", label, class_="label"),
        el("h2", headline, el("span", badge, class_=f"badge {badge}") if badge else None, id="answer"),
        el("p", summary, class_="summary"),
        el("ul", [el("li", p) for p in points]) if points else None,
        class_="answer",
        aria_labelledby="answer",
    )


def chart_block(svg: Child, caption: str, table: Safe) -> Safe:
    """A chart, its caption, and the same numbers as a table (folded, for screen readers and copying)."""
    return el("figure", svg, el("figcaption", caption),
              el("details", el("summary", "The numbers as a table"), table))


def section(title: str, *children: Child, id_: str | None = None) -> Safe:
    """One titled part of the page."""
    return el("section", el("h2", title), children, id=id_)
