"""Benchmark warnings are codes with parameters: the children send them, the tables decide on them, files keep them."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import pytest
from rich.console import Console

from advisor.cli.bench_tables import render_measurements, short
from advisor.evidence.bench import BenchReport, BenchWarning, BenchWarningCode, Measurement, run_bench
from advisor.evidence.bench.figures import _measurement
from advisor.jsonio import model_json
from probes import _bench as B
from probes import _timing


@pytest.fixture(scope="module")
def report() -> BenchReport:
    """The real NumPy child on the test preset (its tiny budgets make the spread checks speak)."""
    return run_bench(preset="test", adapters={}, only=["gemm", "dispatch"])


def test_every_warning_of_a_real_run_arrives_with_its_code(report: BenchReport) -> None:
    warnings = [w for m in report.results for w in m.warnings]  # how many depends on this machine's timing
    assert all(isinstance(w, BenchWarning) and w.code is not BenchWarningCode.NOTE for w in warnings)
    assert all(w.message for w in warnings)


def test_a_childs_result_event_becomes_coded_warnings() -> None:
    """The event a child prints (probes/_bench.result), read as the parent reads it."""
    stats = _timing.summarize([1e-5, 2e-5, 3e-5], number=1)  # unstable, few samples, short blocks: by construction
    event = json.loads(json.dumps(B.result("gemm", "fp32-64", stats, value=1.0, unit="GFLOP/s")))
    m = _measurement("numpy", {**event, "device": "cpu"}, {}, None)
    assert [(w.code, w.params) for w in m.warnings] == [
        (BenchWarningCode.UNSTABLE, {"rel_iqr": stats.rel_iqr}),
        (BenchWarningCode.FEW_SAMPLES, {"samples": 3}),
        (BenchWarningCode.SHORT_BLOCKS, {"block_ms": pytest.approx(0.02)}),
    ]


def test_the_childrens_codes_are_the_parents() -> None:
    """probes/_timing.py cannot import the advisor: its codes must be members of the parent's enum."""
    stats = _timing.summarize([1e-5, 2e-5, 3e-5], number=1)
    sent = [w["code"] for w in stats.warnings] + [_timing.timed_once(1.0)["code"]]
    assert [BenchWarningCode(c) for c in sent] == [
        BenchWarningCode.UNSTABLE,
        BenchWarningCode.FEW_SAMPLES,
        BenchWarningCode.SHORT_BLOCKS,
        BenchWarningCode.TIMED_ONCE,
    ]


def test_codes_survive_the_saved_json(report: BenchReport) -> None:
    m = replace(
        report.results[0],
        warnings=(BenchWarning(BenchWarningCode.ROUNDS_DISAGREE, "rounds disagree: 40%", {"spread": 0.4}),),
    )
    data = json.loads(json.dumps(model_json(replace(report, results=(m,)))))
    assert data["results"][0]["warnings"] == ["rounds disagree: 40%"]  # the sentence, for every reader
    assert data["results"][0]["warning_codes"] == [{"code": "rounds_disagree", "params": {"spread": 0.4}}]
    assert BenchReport.from_json(data).results[0].warnings == m.warnings


def test_a_file_from_before_codes_keeps_its_sentences_as_notes(report: BenchReport) -> None:
    data = model_json(report)
    for r in data["results"]:
        r["warnings"], _ = ["only 3 sample(s): the budget was too small"], r.pop("warning_codes")
    got = BenchReport.from_json(data).results[0].warnings
    assert [(w.code, w.message) for w in got] == [(BenchWarningCode.NOTE, "only 3 sample(s): the budget was too small")]
    assert short(got[0]) == "only 3 sample(s): the bu"  # shown, never read for its meaning


def test_tables_are_drawn_from_codes_not_from_the_words() -> None:
    """Reworded sentences change nothing: the short cell and the captions come from the code and its params."""
    base = Measurement("jax", "cpu", "gemm", "fp32-256", "throughput", 157.2, "GFLOP/s", True)
    worded = [
        (BenchWarning(BenchWarningCode.UNSTABLE, "noisy figure", {"rel_iqr": 0.31}), "unstable 31%"),
        (BenchWarning(BenchWarningCode.FEW_SAMPLES, "too few", {"samples": 3}), "3 samples"),
        (BenchWarning(BenchWarningCode.FEW_CALLS, "too few", {"calls": 40}), "40 calls"),
        (BenchWarning(BenchWarningCode.WIDE_SPREAD, "spread", {"ratio": 1.5}), "median 1.50x min"),
        (BenchWarning(BenchWarningCode.ROUNDS_DISAGREE, "drift", {"spread": 0.2}), "rounds 20%"),
        (BenchWarning(BenchWarningCode.BELOW_REFERENCE, "slow", {"share": 0.62, "reference": "NumPy"}), "62% NumPy †"),
        (BenchWarning(BenchWarningCode.ABOVE_PEAK, "fast", {"pct": 130.0, "assumes": "2 GHz"}), "above est. peak *"),
    ]
    assert [short(w) for w, _ in worded] == [want for _, want in worded]
    rows = [replace(base, warnings=tuple(w for w, _ in worded))]
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(render_measurements(rows, "GEMM", peak=True))
    text = console.export_text()
    assert "* above 100% of the estimated peak: the estimate is too low for this device (it assumes 2 GHz)" in text
    assert "† below the named reference's figure" in text
