"""'measured' is said only beside a figure measured on this machine: not of a route the base describes, not of
benchmarks the scoring discarded because the machine was busy."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from advisor.evidence.bench.results import BenchReport
from advisor.evidence.probe import ProbeReport
from advisor.profile import load_profile_text, resolve_profile
from advisor.report.build import build_report
from advisor.report.markdown import to_markdown
from advisor.scoring.engine import assess

EVIDENCE = Path(__file__).resolve().parent / "fixtures" / "evidence"


def _load(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((EVIDENCE / name).read_text())  # type: ignore[no-any-return]


def _probe(name: str) -> ProbeReport:
    return ProbeReport.from_json(_load(name))


def _hardware_fit(a, fw: str):  # type: ignore[no-untyped-def]
    b = next(b for b in a.ranking if b.framework == fw)
    return next(c for c in b.contributions if c.criterion == "hardware_fit")


def test_a_route_required_by_the_profile_is_knowledge_not_measured(kb) -> None:  # type: ignore[no-untyped-def]
    """The profile needs an Ascend chip this CPU-only machine lacks: its route's support is the base's word."""
    text = "constraints: {must_run_on: [huawei_ascend]}\n"
    a = assess(kb, resolve_profile(load_profile_text(text), kb), probe=_probe("probe_cpu_only.json"), draws=100)
    for b in a.ranking:
        hw = _hardware_fit(a, b.framework)
        # The route's status and tier are the knowledge score on the team's hardware; nothing was measured.
        assert hw.measured_score is None and hw.evidence_source is None
        assert "huawei_ascend" in hw.evidence
    report = build_report(a, kb, probe=_probe("probe_cpu_only.json"), bench=None, profile_source="<test>")
    md = to_markdown(report)
    fit_rows = [ln for ln in md.splitlines() if ln.startswith("| Hardware fit")]
    assert fit_rows and all("measured" not in ln for ln in fit_rows)


def test_benchmarks_on_a_busy_machine_are_not_called_measured(kb) -> None:  # type: ignore[no-untyped-def]
    bench = BenchReport.from_json(_load("bench_quick_cpu.json"))
    probe = _probe("probe_cpu_only.json")
    resolved = resolve_profile(load_profile_text("{}"), kb)
    quiet = assess(kb, resolved, probe=probe, bench=bench, draws=100)
    benched = {r.framework for r in bench.results}
    assert benched and all(b.status_code == "measured" for b in quiet.ranking if b.framework in benched)
    busy_state = {"busy": True, "figures": 10, "busy_figures": 9, "reasons": ["load"]}
    bench = dataclasses.replace(bench, environment={**bench.environment, "machine_state": busy_state})
    busy = assess(kb, resolved, probe=probe, bench=bench, draws=100)
    for b in busy.ranking:
        assert b.status_code != "measured" and not b.status.startswith("measured")
        assert all(c.evidence_source != "benchmark" for c in b.contributions)
    report = build_report(busy, kb, probe=probe, bench=bench, profile_source="<test>")
    assert {e.status_code for e in report.ranking if e.framework in benched} == {"discarded"}
