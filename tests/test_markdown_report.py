"""`report --markdown` for a pull request: a summary of at most 15 lines first, everything else under <details>."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _made_reports import make_reports
from _scoring_support import run_cli
from markdown_it import MarkdownIt

from advisor.report import Report, to_markdown
from advisor.report.markdown_summary import MAX_SUMMARY_LINES
from advisor.sanitize import markdown_text

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json"  # a real report with 44 benchmark figures
LEAD = ROOT / "docs" / "examples" / "team" / "lead.yaml"  # an incumbent: the advice is stay or move


@pytest.fixture(scope="module")
def default(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, str]:
    """The default report (real probe, no benchmarks, shipped knowledge) and its Markdown, made by the CLI."""
    (path,) = make_reports(tmp_path_factory.mktemp("default"), ("generic",))
    proc = run_cli(["report", "--from-json", str(path), "--markdown"], base=None)
    assert proc.returncode == 0, proc.stderr
    return Report.model_validate_json(path.read_text()), proc.stdout


def summary_of(markdown: str) -> list[str]:
    """The lines before the first section heading."""
    lines = markdown.splitlines()
    return lines[: next(i for i, line in enumerate(lines) if line.startswith("## "))]


def _line(summary: list[str], head: str) -> str:
    return next(line for line in summary if line.startswith(head))


def test_default_report_starts_with_the_summary(default: tuple[Report, str]) -> None:
    report, markdown = default
    summary = summary_of(markdown)
    assert len(summary) <= MAX_SUMMARY_LINES and summary[0] == "# fwadvisor report"
    assert not any("<details>" in line for line in summary)
    assert f"**{markdown_text(report.recommendation.summary)}**" in summary
    first, second = report.ranking[0], report.ranking[1]
    margin = _line(summary, "- Margin: ")
    assert f"{first.name} {first.total:.2f} of 5 against {second.name} {second.total:.2f}" in margin
    assert f"a lead of {first.total - second.total:.2f}" in margin and report.sensitivity is not None
    assert report.sensitivity.verdict in margin
    theirs = {c.criterion: c.contribution for c in second.contributions}
    best = max(first.contributions, key=lambda c: c.contribution - theirs[c.criterion])
    assert markdown_text(best.name) in _line(summary, "- Why: ")
    change = report.sensitivity.advice_change
    expected = "No single weight" if change is None else f"to {change.value:.2f} (now {change.value_now:.2f})"
    assert expected in _line(summary, "- What would change it: ")
    measured = _line(summary, "- Measured here: ")
    assert markdown_text(report.machine.cpu) in measured and "no benchmarks" in measured
    known = sum(1 for c in first.contributions if c.measured_score is None)
    assert f"{known} of {len(first.contributions)} criteria of {first.name}" in _line(summary, "- From the knowledge")
    if report.warnings:
        assert f"- Warnings: {len(report.warnings)} (" in markdown


def test_every_section_is_folded_in_well_formed_details(default: tuple[Report, str]) -> None:
    _report, markdown = default
    lines = markdown.splitlines()
    rest = lines[len(summary_of(markdown)):]
    depth, opened = 0, 0
    for i, line in enumerate(rest):
        if line.startswith("<details>"):
            assert depth == 0 and re.fullmatch(r"<details><summary>[^<>]+</summary>", line), line
            assert rest[i + 1] == "" and rest[i - 1] == "" and rest[i - 2].startswith("## ")
            depth, opened = 1, opened + 1
        elif line == "</details>":
            assert depth == 1 and rest[i - 1] == ""
            depth = 0
        elif depth == 0:  # outside a fold: only the section headings, blank lines and the closing byline
            assert not line or line.startswith("## ") or line.startswith("_fwadvisor "), line
    assert depth == 0 and opened == sum(1 for line in rest if line.startswith("## "))
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    assert html.count("<details>") == html.count("</details>") == opened
    assert "<table>" in html  # Markdown inside a fold still renders (the blank lines around the body)


def test_a_report_with_benchmarks_and_an_incumbent_says_what_was_measured(tmp_path: Path) -> None:
    out = tmp_path / "lead.json"
    proc = run_cli(["report", "--from-json", str(QUICK), "--profile", str(LEAD), "--json", "-o", str(out)], base=None)
    assert proc.returncode == 0, proc.stderr
    report = Report.model_validate_json(out.read_text())
    assert report.benchmarks is not None and report.recommendation.break_even is not None
    summary = summary_of(to_markdown(report))
    assert len(summary) <= MAX_SUMMARY_LINES
    figures = len(report.benchmarks.results or [])
    assert f"benchmarks {figures} figures ({report.benchmarks.preset})" in _line(summary, "- Measured here: ")
    statement = markdown_text(report.recommendation.break_even.statement)
    assert _line(summary, "- Stay or move: ") == f"- Stay or move: {statement}"
    if report.exclusions:
        assert all(x.framework in _line(summary, "- Excluded: ") for x in report.exclusions)


def test_many_next_steps_and_warnings_still_fit_in_15_lines(default: tuple[Report, str]) -> None:
    report, _ = default
    data = json.loads(report.model_dump_json())
    data["recommendation"]["steps"] = [{"code": "gpu_floor", "params": {"detail": f"step {i}"}} for i in range(40)]
    data["warnings"] = [{"code": "method", "params": {"topsis_first": f"a{i}", "weighted_first": "b"}}
                        for i in range(30)]
    data["exclusions"] = [{"framework": "x", "kind": "constraint", "reasons": ["r"]}]
    markdown = to_markdown(Report.model_validate(data))
    summary = summary_of(markdown)
    assert len(summary) <= MAX_SUMMARY_LINES and summary[-1] == ""
    assert "- Next: Step 0." in summary and "- Step 39." in markdown  # the rest is under Recommendation
