"""A warning is worded once, from its fields: every shell says `framework: message`, none reads the words back."""

from __future__ import annotations

import dataclasses
import datetime as dt
import html

import pytest
from _scoring_support import bench_fixture, load_small_kb, probe_fixture

from advisor.evidence.bench.results import BenchFailure
from advisor.profile import load_profile_text, resolve_profile
from advisor.report import build_report, to_markdown
from advisor.report.html.report_page import report_html
from advisor.report.words import warning_sentence
from advisor.sanitize import markdown_text
from advisor.scoring import assess
from advisor.tui.widgets.explain import warning_text


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
    for w in report.warnings:
        said = warning_sentence(w)
        assert said == (f"{w.framework}: {w.message}" if w.framework else w.message)
        assert warning_text(w) == said  # the TUI
        assert markdown_text(said) in md
        assert said in page


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
