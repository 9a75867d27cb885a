"""A warning is worded once, from its fields: every shell says `framework: message`, none reads the words back."""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
from pathlib import Path

import pytest
from _scoring_support import bench_fixture, load_small_kb, probe_fixture

from advisor.evidence.bench.results import BenchFailure
from advisor.profile import load_profile_text, resolve_profile
from advisor.report import build_report, to_markdown
from advisor.report.html.report_page import report_html
from advisor.report.words import team_warning_words, warning_items, warning_sentence
from advisor.sanitize import markdown_text
from advisor.scoring import assess
from advisor.tui.widgets.explain import warning_lines


def _report():  # type: ignore[no-untyped-def]
    kb = load_small_kb()
    probe = probe_fixture()
    probe.frameworks["tensorflow"] = dataclasses.replace(
        probe.frameworks["tensorflow"], outcome="import_error", error="ImportError: libfoo.so")
    bench = dataclasses.replace(bench_fixture(), failures=(BenchFailure("jax", "conv", "cpu", "timed_out", "60 s"),))
    a = assess(kb, resolve_profile(load_profile_text(""), kb), probe=probe, bench=bench, today=dt.date(2026, 12, 1))
    return build_report(a, kb, probe=probe, bench=bench, profile_source="p.yaml", identify=True)


def test_a_warning_message_never_repeats_its_framework() -> None:
    report = _report()
    about = [w for w in report.warnings if w.framework]
    # Stale facts, spread, an import failure and a bench failure: each kind that names a framework.
    assert {"stale_fact", "benchmark_spread", "import_failure", "bench_failure"} <= {w.code for w in about}
    for w in about:
        assert not w.message.startswith((f"{w.framework}:", f"{w.framework}/")), w


def test_every_shell_words_a_warning_the_same() -> None:
    report = _report()
    md, page = to_markdown(report), html.unescape(report_html(report, identify=True))
    for w in report.warnings:  # the file: each warning's own words
        assert warning_sentence(w) == (f"{w.framework}: {w.message}" if w.framework else w.message)
    lines = warning_items(report.warnings)
    assert [text for _code, text in lines] == warning_lines(report.warnings)  # the TUI
    for _code, said in lines:
        assert markdown_text(said) in md
        assert said in page


def test_a_frameworks_per_figure_warnings_are_said_in_one_line() -> None:
    report = _report()
    spread = [w for w in report.warnings if w.code == "benchmark_spread"]
    assert spread and all("benchmark" in w.params for w in spread)  # the model: one per figure
    lines = [text for code, text in warning_items(report.warnings) if code == "benchmark_spread"]
    assert len(lines) == len({w.framework for w in spread})  # the words: one line per framework
    for w in spread:
        assert f"{w.params['benchmark']}/{w.params['variant']}" in next(t for t in lines if t.startswith(
            f"{w.framework}: "))


def test_the_cli_summary_says_measured_from_the_status_code_not_its_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from advisor.cli.commands.report import summary

    monkeypatch.setenv("COLUMNS", "200")
    report = _report()
    measured = [e for e in report.ranking if e.status_code == "measured"]
    assert measured, "the bench fixture measures at least one framework"
    # The words of the status are free to change (a translation, a reworded sentence): the column follows the code.
    reworded = report.model_copy(
        update={"ranking": [e.model_copy(update={"status": "gemessen"}) for e in report.ranking]}
    )
    summary(reworded)
    rows = {line.split("│")[2].strip(): line for line in capsys.readouterr().out.splitlines() if line.count("│") > 3}
    for e in measured:
        assert "measured" in rows[e.name], rows


def test_a_team_warning_names_its_member_once_in_every_page(tmp_path: Path) -> None:
    from advisor.report.html.decision_page import decision_html
    from advisor.report.words import team_warning_sentence
    from advisor.team.decision_markdown import to_markdown_decision
    from advisor.team.session import decide_files
    from advisor.team.warnings import TeamWarningCode

    kb = load_small_kb()
    good, bad = tmp_path / "ana.yaml", tmp_path / "bad.yaml"
    good.write_text("member: ana\nweights: {performance: 5}\n")
    bad.write_text("weights: [not, a, mapping]\n")
    doc = decide_files(kb, [good, bad], probe=None, bench=None, evidence="none").document
    about = [w for w in doc.warnings if w.member]
    assert {TeamWarningCode.MEMBER_LEFT_OUT} <= {w.code for w in about}
    md, page = to_markdown_decision(doc), html.unescape(decision_html(doc, identify=True))
    for w in about:
        assert not team_warning_words(w).startswith(f"{w.member}:"), w  # the member is a field, not in the words
        said = team_warning_sentence(w)
        assert said.startswith(f"{w.member}: ") and markdown_text(said) in md and said in page
