"""Noise that is visible and cannot flip the advice: intervals, pooled rounds, outliers, busy machines, turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from advisor.evidence.bench import BenchEvent, BenchReport, run_bench
from advisor.evidence.bench.stats import busy_reason, is_outlier, median_ci, merge_rounds
from advisor.jsonio import model_json
from advisor.report.models import worded_recommendation
from advisor.report.words import warning_words
from advisor.scoring import evidence as ev
from advisor.scoring.engine import AssessmentWarning, WarningCode
from advisor.scoring.steps import StepCode
from tests.test_bench_engine import _adapter, numpy_report, stub_root  # noqa: F401 - shared module fixtures


def test_median_ci_brackets_the_median_and_narrows_with_more_samples() -> None:
    small = [float(i) for i in range(1, 11)]
    lo, hi = median_ci(small)
    assert lo <= 5.5 <= hi
    big = [float(i % 10 + 1) for i in range(1000)]
    blo, bhi = median_ci(big)
    assert bhi - blo < hi - lo
    assert median_ci([3.0, 1.0, 2.0]) == (1.0, 3.0)  # too few samples: the sample's range


def _round(median: float, times: list[float], value_k: float = 1.0) -> dict[str, Any]:
    return {"benchmark": "gemm", "variant": "fp32-64", "device": "cpu", "value": value_k / median, "unit": "GFLOP/s",
            "higher_is_better": True, "median_s": median, "iqr_s": 0.0, "times_s": times, "params": {},
            "warnings": [{"code": "few_samples", "message": "only 3 sample(s): the budget was too small for a stable "
                          "figure", "params": {"samples": 3}}],
            "machine": {"others_cores": 0.1, "steal_pct": 0.0, "own_share": 0.9, "load1": 1.0}}


def test_rounds_are_pooled_and_the_interval_covers_every_rounds_median() -> None:
    r1 = _round(1.0, [1.0] * 10)
    r2 = _round(1.2, [1.2] * 10)
    merged = merge_rounds([r1, r2])
    assert merged["samples"] == 20 and merged["rounds"] == 2
    lo, hi = merged["ci"]
    assert lo <= 1 / 1.2 + 1e-9 and hi >= 1.0 - 1e-9  # both rounds' values are inside the interval
    assert lo <= merged["value"] <= hi
    assert merged["params"]["round_values"] == [1.0, 1 / 1.2]
    # The rounds' own "only 3 samples" is replaced by the pooled figure's checks.
    codes = [w["code"] for w in merged["warnings"]]
    assert "few_samples" not in codes and "rounds_disagree" in codes
    assert is_outlier(merged, None)  # wide pooled spread, and rounds 20% apart
    assert is_outlier(merge_rounds([r1]), 120.0) == "120% of the estimated peak"


def test_busy_thresholds() -> None:
    assert busy_reason({"others_cores": 0.2, "steal_pct": 0.0}, cores=2) is None
    assert "other processes" in str(busy_reason({"others_cores": 1.5, "steal_pct": 0.0}, cores=2))
    assert "steal" in str(busy_reason({"others_cores": 0.0, "steal_pct": 20.0}, cores=2))
    assert busy_reason({}, cores=2) is None  # nothing readable: no claim either way


def _bench(a: dict[str, Any], b: dict[str, Any], busy: bool = False) -> BenchReport:
    base = {"device": "cpu", "benchmark": "gemm", "variant": "fp32-256", "unit": "GFLOP/s", "higher_is_better": True,
            "median_s": 1.0, "iqr_s": 0.01}
    return BenchReport.from_json({
        "environment": {"machine_state": {"busy": busy, "figures": 2, "busy_figures": 2 if busy else 0,
                                          "reasons": ["other processes used up to 1.8 of 2 cores"],
                                          "others_cores_max": 1.8, "cores": 2}},
        "results": [{**base, "framework": "pytorch", **a}, {**base, "framework": "jax", **b}]})


def test_differences_inside_the_intervals_count_as_equal() -> None:
    overlap = ev.benchmark_ratios(_bench({"value": 100.0, "ci": [90.0, 110.0]}, {"value": 95.0, "ci": [85.0, 100.0]}))
    assert overlap["jax"][0].within_ci and overlap["jax"][0].ratio_used == 1.0
    apart = ev.benchmark_ratios(_bench({"value": 100.0, "ci": [99.0, 101.0]}, {"value": 81.0, "ci": [80.0, 82.0]}))
    row = apart["jax"][0]
    assert not row.within_ci and abs(row.ratio_used - 82.0 / 99.0) < 1e-9
    assert abs(row.ratio_to_best - 0.81) < 1e-9
    legacy = ev.benchmark_ratios(_bench({"value": 100.0}, {"value": 50.0}))  # saved reports without intervals
    assert legacy["jax"][0].ratio_used == 0.5


def test_a_busy_machine_gives_knowledge_only_and_says_so() -> None:
    bench = _bench({"value": 100.0}, {"value": 50.0}, busy=True)
    busy = ev.machine_busy(bench)
    assert busy == {"figures": 2, "busy_figures": 2, "others_cores_max": 1.8, "cores": 2}
    message = warning_words(AssessmentWarning(code=WarningCode.MACHINE_BUSY, params=busy))
    assert "too busy" in message and "2 of 2 figures" in message and "1.8 of 2 cores" in message
    # A file written before the figures were kept: its causes in its own words.
    old = BenchReport.from_json({"environment": {"machine_state": {
        "busy": True, "figures": 2, "busy_figures": 2, "reasons": ["CPU steal up to 40%"]}}, "results": []})
    assert "CPU steal up to 40%" in warning_words(
        AssessmentWarning(code=WarningCode.MACHINE_BUSY, params=ev.machine_busy(old) or {}))
    measured = ev.performance_evidence("jax", ev.benchmark_ratios(bench), bench)
    assert measured.score is None and measured.weight == 0.0
    assert ev.machine_busy(_bench({"value": 100.0}, {"value": 50.0})) is None


def test_real_figures_carry_an_interval_and_the_machine_state(numpy_report: BenchReport) -> None:  # noqa: F811
    for m in numpy_report.results:
        if m.benchmark == "agreement":
            continue
        assert m.ci is not None and m.ci[0] <= m.value <= m.ci[1], m.key
        assert 0 <= m.machine["own_share"] and m.machine["rounds"] >= 1, m.key
    state = numpy_report.environment["machine_state"]
    assert state["figures"] >= 1 and set(state["thresholds"]) == {"others_share_of_cores", "steal_pct",
                                                                  "busy_figures_share"}
    assert isinstance(state["busy"], bool)


def test_rounds_interleave_the_frameworks_and_rotate(stub_root: Path) -> None:  # noqa: F811
    events: list[BenchEvent] = []
    report = run_bench(preset="quick", adapters={"stub": _adapter(stub_root, "stubpkg.bench_stub")}, only=["gemm"],
                       budget_s=0.2, on_event=events.append)
    order = [e.framework for e in events if e.kind == "bench_start"]
    assert order[:4] == ["numpy", "stub", "stub", "numpy"]  # round 1, then round 2 in the other order
    stub = report.select("gemm", "stub")[0]
    assert stub.rounds >= 2 and stub.samples == 5 * stub.rounds
    # Both children were started before either measured: their framework_start events come first.
    kinds = [e.kind for e in events]
    assert kinds[:2] == ["framework_start", "framework_start"]


def test_tables_read_well_at_80_columns(numpy_report: BenchReport) -> None:  # noqa: F811
    import io
    from dataclasses import replace

    from rich.console import Console

    from advisor.cli.commands.bench import render_report
    from advisor.evidence.bench import BenchWarning, BenchWarningCode

    extra = []
    for fw in ("tensorflow", "pytorch"):
        for variant, value, compile_s in (("eager", 3.5, None), ("compiled", 1.25, 12.5)):
            extra.append(replace(numpy_report.results[0], framework=fw, benchmark="train_transformer",
                                 variant=variant, unit="ms/step", value=value, compile_s=compile_s,
                                 higher_is_better=False, warnings=(BenchWarning(
                                     BenchWarningCode.UNSTABLE, "unstable: IQR is 31% of the median",
                                     {"rel_iqr": 0.31}),)))
    report = replace(numpy_report, results=(*numpy_report.results, *extra))
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(render_report(report))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text  # no header or name cut short
    for header in ("framework", "variant", "GFLOP/s", "±95%", "% peak", "workload", "compiled", "speed-up",
                   "compile s", "tensorflow", "block step"):
        assert header in text, header


def test_a_report_on_a_busy_machine_says_so_instead_of_using_the_figures(kb) -> None:  # type: ignore[no-untyped-def]
    from advisor.profile import Profile, resolve_profile
    from advisor.scoring import assess

    bench = _bench({"value": 100.0}, {"value": 10.0}, busy=True)  # a tenfold gap that must not count
    got = assess(kb, resolve_profile(Profile(), kb), bench=bench)
    assert any(w.code == "machine_busy" for w in got.warnings)
    assert StepCode.BUSY in [s.code for s in got.recommendation.steps]
    assert any("busy machine" in step for step in worded_recommendation(got.recommendation).next_steps)
    perf = {b.framework: next(c for c in b.contributions if c.criterion == "performance") for b in got.ranking}
    assert perf["jax"].measured_score is None and perf["pytorch"].measured_score is None


def test_a_case_slower_than_a_round_is_measured_in_its_first_round_only() -> None:
    import time

    from probes import _bench as B

    preset = B.PRESETS["test"]

    def ctx(round_: int) -> B.Context:
        return B.Context(preset=preset, device="cpu", device_name="cpu", budget_s=0.02, threads=1, round=round_)

    first = ctx(0).measure_case("gemm:slow-1", lambda: time.sleep(0.05))  # one call: 2.5x the round's budget
    assert first is not None and first.samples >= 2
    slow = [w for w in first.warnings if w["code"] == "one_round"]
    assert len(slow) == 1 and "measured in one round only" in slow[0]["message"]
    assert ctx(1).measure_case("gemm:slow-1", lambda: time.sleep(0.05)) is None  # later rounds leave it out
    assert ctx(1).done_with("gemm:slow-1") and not ctx(0).done_with("gemm:slow-1")  # and its set-up (arrays, compile)
    assert not ctx(1).done_with("gemm:fast-1")
    fast = ctx(1).measure_case("gemm:fast-1", lambda: None)  # a case that fits keeps its every round
    assert fast is not None and "one_round" not in [w["code"] for w in fast.warnings]


def test_a_call_over_ten_rounds_budget_is_timed_once_with_its_warm_up() -> None:
    """PyTorch's bf16-2048 GEMM on a CPU without bf16 units: ~57 s a call, four calls cost the standard preset
    four minutes. A first call over `once_over_s` is the figure, and the note says so (no "budget too small")."""
    import time

    from advisor.evidence.bench.stats import merge_rounds
    from probes import _bench as B
    from probes._timing import measure

    calls: list[float] = []

    def slow() -> None:
        calls.append(time.perf_counter())
        time.sleep(0.12)

    stats = measure(slow, budget_s=0.01, once_over_s=0.1)
    assert len(calls) == 1 and stats.samples == 1 and stats.median_s >= 0.12
    assert [(w["code"], w["message"]) for w in stats.warnings] == [
        ("timed_once", "one call takes 0.1 s: timed once, its warm-up included")]
    fast = measure(lambda: None, budget_s=0.01, once_over_s=0.1)  # under the limit: sampled as before
    assert fast.samples >= 2 and "timed_once" not in [w["code"] for w in fast.warnings]

    ctx = B.Context(preset=B.PRESETS["test"], device="cpu", device_name="cpu", budget_s=0.005, threads=1, round=0)
    got = ctx.measure_case("gemm:once-1", slow, once_over_s=0.1)
    assert got is not None and got.samples == 1
    assert [w["message"] for w in got.warnings if w["code"] in ("timed_once", "one_round")] == [
        "one call takes 0.1 s: timed once, its warm-up included, in one round only"]
    pooled = merge_rounds([{"median_s": got.median_s, "value": 1.0, "times_s": list(got.times_s), "samples": 1,
                            "warnings": list(got.warnings)}])
    assert "few_samples" not in [w["code"] for w in pooled["warnings"]]


def test_a_real_gpu_only_run_reads_whole_at_80_columns_with_its_gpu_peak() -> None:
    """The quick bench recorded on a real H200 (GPU only), shown with the peak NVML gave there (16896 cores)."""
    import io
    import json
    from dataclasses import replace
    from pathlib import Path

    from rich.console import Console

    from advisor.cli.commands.bench import render_report
    from advisor.evidence.bench.figures import _measurement
    from advisor.evidence.bench.results import BenchReport

    data = json.loads((Path(__file__).parent / "fixtures" / "evidence" / "bench_real_h200_quick_gpu.json").read_text())
    gpu_peak = {"name": "NVIDIA H200", "fp32_gflops": 66908.2, "bf16_gflops": None,
                "formula": "16896 CUDA cores x 2 FLOP (FMA) x 1980 MHz (highest SM clock) = 66908 GFLOP/s fp32"}
    data["environment"]["gpu_peak"] = gpu_peak
    report = BenchReport.from_json(data)
    report = replace(report, results=tuple(
        _measurement(m.framework, {**model_json(m), "pct_of_peak": None}, m.environment, None, gpu_peak)
        for m in report.results))
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(render_report(report))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80 and "…" not in text
    assert "estimated GPU peak (NVIDIA H200): 66,908 GFLOP/s" in " ".join(text.split())
    assert "75%" in text  # PyTorch's fp32-4096 GEMM there
    assert "est. peak" not in text  # no CPU bars for a run that measured no CPU


def test_a_gemm_far_below_its_reference_says_whose_part_it_is() -> None:
    """NumPy's figure is the reference on the CPU; without one (bf16, a GPU) the best other framework's is."""
    from advisor.cli.bench_tables import short
    from advisor.evidence.bench.diagnose import explain_gemm
    from advisor.evidence.bench.results import Measurement

    def gemm(fw: str, device: str, variant: str, value: float, threads: int = 2) -> Measurement:
        return Measurement(fw, device, "gemm", variant, "throughput", value, "GFLOP/s", True,
                           ci=(value * 0.98, value * 1.02), environment={"threads": threads})

    # Figures of the 2-core Xeon with AMX this was built on (quick preset); the H200's are from its recorded run.
    notes = {(m.framework, m.device, m.variant): m.warnings for m in explain_gemm([
        gemm("numpy", "cpu", "fp32-256", 253.6), gemm("jax", "cpu", "fp32-256", 157.2),
        gemm("pytorch", "cpu", "fp32-256", 389.3, threads=1),
        gemm("pytorch", "cpu", "bf16-1024", 1544.9), gemm("jax", "cpu", "bf16-1024", 322.3),
        gemm("pytorch", "gpu", "bf16-1024", 125516.3), gemm("jax", "gpu", "bf16-1024", 46851.3),
        gemm("pytorch", "gpu", "bf16-8192", 670826.6), gemm("jax", "gpu", "bf16-8192", 697055.9),
    ], threads=2, cores=2)}
    got = {k: tuple(w.message for w in v) for k, v in notes.items()}
    assert got[("jax", "cpu", "fp32-256")] == (
        "62% of NumPy's: framework: same sizes, threads, warm-up and rounds as NumPy",)
    assert got[("pytorch", "cpu", "fp32-256")] == ()  # above NumPy: nothing to explain, one thread or not
    assert got[("jax", "cpu", "bf16-1024")] == (
        "21% of pytorch's: framework: same sizes, threads, warm-up and rounds as pytorch",)
    assert got[("jax", "gpu", "bf16-1024")][0].startswith("37% of pytorch's: ")
    assert got[("pytorch", "gpu", "bf16-8192")] == got[("jax", "gpu", "bf16-8192")] == ()  # 4% apart
    assert got[("pytorch", "cpu", "bf16-1024")] == got[("numpy", "cpu", "fp32-256")] == ()
    below = notes[("jax", "cpu", "bf16-1024")][0]
    assert below.code == "below_reference" and below.params["reference"] == "pytorch"
    assert abs(below.params["share"] - 322.3 / 1544.9) < 1e-12
    assert short(below) == "21% pytorch †"


def test_figures_above_the_peak_together_blame_the_estimate_not_the_figures() -> None:
    """One figure above the estimated peak is measured again; two of the same size say the estimate is low."""
    from advisor.evidence.bench.interleave import remeasure
    from advisor.evidence.bench.runner import _Run
    from advisor.evidence.hardware.cpu import PeakEstimate

    peak = PeakEstimate(fp32_gflops=100.0, bf16_gflops=None, formula="2 x 1 GHz x 50 = 100 GFLOP/s", cores=2,
                        clock_ghz=1.0, clock_source="test", vector_bits=256, fma_units=2, fp32_flops_per_cycle=50,
                        bf16_flops_per_cycle=None, bf16_source=None)
    run = _Run(peak=peak, on_event=None, cores=2)

    def rounds(fid: str, variant: str, gflops: float) -> list[dict[str, Any]]:
        median = 1.0 / gflops  # value = 1 GFLOP / median_s, steady over two rounds
        return [{"framework": fid, "device": "cpu", "benchmark": "gemm", "variant": variant, "value": gflops,
                 "median_s": median, "higher_is_better": True, "params": {"dtype": "fp32"},
                 "times_s": [median] * 20, "iqr_s": 0.0, "machine": {}} for _ in range(2)]

    collected = {("numpy", "cpu", "fp32-1024"): rounds("numpy", "fp32-1024", 115.0),
                 ("pytorch", "cpu", "fp32-1024"): rounds("pytorch", "fp32-1024", 123.0),
                 ("pytorch", "cpu", "fp32-256"): rounds("pytorch", "fp32-256", 130.0),
                 ("jax", "cpu", "fp32-256"): rounds("jax", "fp32-256", 80.0)}
    again = remeasure(run, collected, set())
    assert again == {("pytorch", "cpu"): "130% of the estimated peak"}  # fp32-1024's two above: the estimate
