"""Constraints, measured evidence (recorded probe/bench JSON) and the assessment as a whole, on the test pack."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from _scoring_support import bench_fixture, load_small_kb, probe_fixture

from advisor.evidence.bench.results import BenchFailure, BenchReport
from advisor.knowledge.schema import Hardware
from advisor.profile import load_profile_text, resolve_profile
from advisor.report.models import worded_recommendation
from advisor.report.words import exclusion_reasons, warning_words
from advisor.scoring import assess
from advisor.scoring import evidence as ev
from advisor.scoring import setup_evidence as setup
from advisor.scoring.constraints import ExclusionCode, apply_constraints, licence_allowed
from advisor.scoring.engine import AssessmentWarning, WarningCode
from advisor.scoring.steps import HeadlineCode, StepCode


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    return load_small_kb()


def _resolve(small, text: str):  # type: ignore[no-untyped-def]
    return resolve_profile(load_profile_text(text), small)


def test_constraints_exclude_with_reasons(small) -> None:  # type: ignore[no-untyped-def]
    r = _resolve(small, "constraints:\n  must_run_on: [huawei_ascend]\n  must_deploy_to: [mobile]\n")
    out = apply_constraints(small, r)
    assert out.candidates == ["mindspore", "pytorch"]  # pytorch reaches Ascend through a community plugin
    reasons = {x.framework: exclusion_reasons(x) for x in out.exclusions}
    assert reasons["jax"] == ["must run on huawei_ascend (profile): JAX's support is 'none'"]
    jax = next(x for x in out.exclusions if x.framework == "jax")  # what programs read: the code and its parameters
    assert [(c.code, c.by, c.params) for c in jax.causes] == [
        (ExclusionCode.HARDWARE, "profile", {"hardware": "huawei_ascend", "framework": "JAX", "support": "none"})
    ]
    out = apply_constraints(small, _resolve(small, "constraints:\n  must_deploy_to: [browser]\n"))
    reasons = {x.framework: exclusion_reasons(x) for x in out.exclusions}
    assert reasons["mlx"] == ["must deploy to browser (profile): route 'Fixture route mlx->browser' is 'none'"]
    assert "pytorch" in out.candidates  # a community route (ONNX Runtime Web) is usable


def test_licence_expression_ignores_commentary() -> None:
    assert licence_allowed("Apache-2.0", ["apache-2.0"])
    assert not licence_allowed("BSD-3-Clause (own); wheels bundle Apache-2.0 AND MIT", ["Apache-2.0"])
    assert licence_allowed("MIT OR Apache-2.0", ["Apache-2.0"])
    assert not licence_allowed("MIT AND Apache-2.0", ["Apache-2.0"])


def test_policy_and_consider_list(small) -> None:  # type: ignore[no-untyped-def]
    r = _resolve(small, "frameworks: [pytorch, jax]\nconstraints:\n  licenses: [Apache-2.0]\n  exclude: [tensorflow]\n")
    out = apply_constraints(small, r)
    assert out.candidates == ["jax"]
    kinds = {x.framework: x.kind for x in out.exclusions}
    assert kinds == {"mindspore": "not_considered", "mlx": "not_considered", "pytorch": "constraint",
                     "tensorflow": "not_considered"}


def test_present_hardware_from_fake_probes() -> None:
    assert set(ev.present_hardware(probe_fixture())) == {Hardware.CPU}
    assert Hardware.NVIDIA_CUDA in ev.present_hardware(probe_fixture("probe_fake_nvidia_h100.json"))
    assert Hardware.GOOGLE_TPU in ev.present_hardware(probe_fixture("probe_fake_tpu_v5e.json"))


def test_hardware_evidence_cpu_only_adds_nothing(small) -> None:  # type: ignore[no-untyped-def]
    m = ev.hardware_evidence(small, "mlx", probe_fixture())
    assert m.score is None and "knowledge only" in m.summary


def test_fake_tpu_probe_hardware_fit_and_cap(small) -> None:  # type: ignore[no-untyped-def]
    probe = probe_fixture("probe_fake_tpu_v5e.json")
    jax = ev.hardware_evidence(small, "jax", probe)
    torch = ev.hardware_evidence(small, "pytorch", probe)
    assert jax.score == 5.0 and jax.figures[0]["verified_here"] is True  # JAX's own probe used the TPU
    # PyTorch's route was not used here: the knowledge's word, in the figures, is no measurement.
    route = torch.figures[0]["value"]
    status = small.frameworks["pytorch"].hardware[Hardware.GOOGLE_TPU].status
    assert torch.score is None and route == ev.SUPPORT_VALUE[status]
    cap, routes = ev.hardware_cap(small, "pytorch", probe)
    assert cap == route and routes.startswith("google_tpu community")
    assert ev.hardware_cap(small, "jax", probe) == (None, "")


def test_required_hardware_counts_without_a_probe(small) -> None:  # type: ignore[no-untyped-def]
    m = ev.hardware_evidence(small, "mlx", None, [Hardware.APPLE_METAL])
    # Listed with its route value, but nothing was measured without the hardware here.
    assert m.score is None and m.figures[0]["detail"] == "required by the profile" and m.figures[0]["value"] == 5.0


def test_benchmark_ratios_from_recorded_bench() -> None:
    bench = bench_fixture()
    ratios = ev.benchmark_ratios(bench, {"pytorch", "jax", "tensorflow"})
    assert "numpy" not in ratios  # the NumPy baseline is context, not a candidate
    for rows in ratios.values():
        for row in rows:
            assert 0 < row.ratio_to_best <= 1.0
            assert row.benchmark != "agreement"
    # Every shared group has one framework at exactly 1.
    groups: dict[tuple[str, str, str], list[float]] = {}
    for rows in ratios.values():
        for row in rows:
            groups.setdefault((row.device, row.benchmark, row.variant), []).append(row.ratio_to_best)
    assert groups and all(max(v) == 1.0 and len(v) >= 2 for v in groups.values())


def _row(fw: str, device: str, bench: str, variant: str, value: float, higher: bool) -> dict[str, object]:
    return {"framework": fw, "device": device, "benchmark": bench, "variant": variant, "value": value,
            "higher_is_better": higher}


def test_performance_evidence_math() -> None:
    rows = [
        _row("a", "cpu", "gemm", "x", 100.0, True), _row("b", "cpu", "gemm", "x", 25.0, True),
        _row("a", "cpu", "step", "y", 2.0, False), _row("b", "cpu", "step", "y", 1.0, False),
        _row("c", "gpu", "gemm", "x", 9e9, True),
    ]
    bench = BenchReport.from_json({"results": rows})
    ratios = ev.benchmark_ratios(bench)
    a = ev.performance_evidence("a", ratios, bench)
    b = ev.performance_evidence("b", ratios, bench)
    # a: ratios 1 and 0.5 -> geometric mean sqrt(0.5); b: 0.25 and 1 -> 0.5.
    assert a.score == pytest.approx(5 * 0.5**0.25) and b.score == pytest.approx(5 * 0.5**0.5)
    assert a.weight == pytest.approx(ev.BENCH_WEIGHT * 2 / ev.BENCH_FULL_AT)
    rows.append(_row("a", "cpu", "tiny", "z", 1.0, True))
    rows.append(_row("b", "cpu", "tiny", "z", 1000.0, True))  # a 1000x gap: clipped, warned
    bench = BenchReport.from_json({"results": rows})
    ratios = ev.benchmark_ratios(bench)
    a3 = ev.performance_evidence("a", ratios, bench)
    assert a3.score == pytest.approx(5 * (0.5 * ev.RATIO_FLOOR) ** (1 / 6))
    (fid, gap), = ev.implausible_gaps(ratios)
    assert fid == "a" and gap == {"benchmark": "tiny", "variant": "z", "ratio": 0.001, "floor": ev.RATIO_FLOOR}
    assert "0.1% of the best" in warning_words(AssessmentWarning(code=WarningCode.BENCHMARK_OUTLIER, params=gap))
    c = ev.performance_evidence("c", ratios, bench)  # alone on its device: nothing to compare with
    assert c.score is None and "no benchmark shared" in c.summary
    d = ev.performance_evidence("d", ratios, bench)
    assert d.score is None and "not measured here" in d.summary


def test_noisy_measurements_are_left_out_and_warned() -> None:
    bench = BenchReport.from_json({"results": [
        {"framework": "a", "device": "cpu", "benchmark": "g", "variant": "x", "value": 1.0, "higher_is_better": True,
         "median_s": 1.0, "iqr_s": 0.9},
        {"framework": "b", "device": "cpu", "benchmark": "g", "variant": "x", "value": 2.0, "higher_is_better": True,
         "median_s": 1.0, "iqr_s": 0.2},
    ]})
    assert ev.benchmark_ratios(bench) == {}
    warned = dict(ev.spread_warnings(bench))
    assert warned["a"] == {"benchmark": "g", "variant": "x", "spread": 0.9, "left_out": 1, "measurements": 1}
    assert warned["b"]["spread"] == 0.2 and warned["b"]["left_out"] == 0
    said = warning_words(AssessmentWarning(code=WarningCode.BENCHMARK_SPREAD, params=warned["a"]))
    assert "g/x: wide spread (90% IQR/median), left out of the ratios" in said


def test_migration_evidence_uses_the_effort_model(small) -> None:  # type: ignore[no-untyped-def]
    def mig(text: str, fw: str) -> float | None:
        return setup.migration_evidence(small, fw, load_profile_text(text))[0].score

    base = "team: {current: [pytorch], size: 4}\n"
    assert mig(base, "pytorch") == 5.0
    assert mig(base + "codebase: {size: small}\n", "jax") > mig(base + "codebase: {size: medium}\n", "jax")
    assert mig(base + "codebase: {size: large}\n", "jax") < mig(base + "codebase: {size: medium}\n", "jax")
    assert mig(base + "codebase: {size: none}\n", "jax") == 5.0
    expert = "team: {current: [pytorch], size: 4, experience: {jax: expert}}\n"
    assert mig(expert, "jax") > mig(base, "jax")
    # Greenfield: no code to move, so no framework gains or loses on migration (the general ease of adoption
    # is the learning curve's, and counting it here favoured one framework in every greenfield case).
    assert {mig("team: {current: []}\n", fw) for fw in ("jax", "pytorch", "tensorflow")} == {5.0}
    m, notes = setup.migration_evidence(small, "mlx", load_profile_text("team: {current: [jax]}\n"))
    assert m.score is None and notes == [("jax", "no migration entry jax -> mlx in the knowledge base")]


def test_assessment_with_recorded_evidence(small) -> None:  # type: ignore[no-untyped-def]
    r = _resolve(small, "team: {current: [pytorch]}\n")
    a = assess(small, r, probe=probe_fixture(), bench=bench_fixture(), today=dt.date(2026, 12, 1))
    by = {b.framework: b for b in a.ranking}
    assert by["pytorch"].status == "measured here"
    assert by["mlx"].status.startswith("not measured here") and by["mlx"].installed is None
    perf = next(c for c in by["jax"].contributions if c.criterion == "performance")
    assert perf.measured_score is not None and perf.figures and perf.evidence_weight > 0
    assert perf.score == pytest.approx((1 - perf.evidence_weight) * perf.knowledge_score
                                       + perf.evidence_weight * perf.measured_score)
    codes = {w.code for w in a.warnings}
    assert {"stale_fact", "benchmark_spread"} <= codes
    bench = dataclasses.replace(bench_fixture(), failures=(
        BenchFailure("jax", "conv", "cpu", "timed_out", "no result in 60 s"),
        BenchFailure("jax", "transfer", "cpu", "skipped", "no accelerator")))
    failed = [w for w in assess(small, r, bench=bench).warnings if w.code == "bench_failure"]
    # Skips are not failures; the framework is the warning's own field, its message does not repeat it.
    assert [(w.framework, warning_words(w)) for w in failed] == [("jax", "cpu/conv: timed_out: no result in 60 s")]
    stale = [w for w in a.warnings if w.code == "stale_fact"]
    assert stale[0].framework == "mindspore" and "community (2025-09-01)" in warning_words(stale[0])
    for b in a.ranking:
        assert sum(c.contribution for c in b.contributions) == b.total
    assert [b.total for b in a.ranking] == sorted((b.total for b in a.ranking), reverse=True)
    assert a.sensitivity is not None and a.sensitivity.winner == a.ranking[0].framework
    assert a.recommendation.framework == a.ranking[0].framework and a.recommendation.steps


def test_fake_nvidia_probe_warns_about_cpu_only_builds(small) -> None:  # type: ignore[no-untyped-def]
    a = assess(small, _resolve(small, ""), probe=probe_fixture("probe_fake_nvidia_h100.json"))
    hw = [w for w in a.warnings if w.code == "hardware" and w.framework == "jax"]
    assert hw and "CPU-only" in warning_words(hw[0])
    fit = next(c for c in next(b for b in a.ranking if b.framework == "pytorch").contributions
               if c.criterion == "hardware_fit")
    assert fit.figures[0]["verified_here"] is True and fit.measured_score == 5.0


def test_import_failures_are_warnings(small) -> None:  # type: ignore[no-untyped-def]
    probe = probe_fixture()
    probe.frameworks["tensorflow"] = dataclasses.replace(
        probe.frameworks["tensorflow"], outcome="import_error", error="ImportError: libfoo.so")
    a = assess(small, _resolve(small, ""), probe=probe)
    assert any(w.code == "import_failure" and "libfoo" in warning_words(w) for w in a.warnings)


def test_nothing_left_gives_a_clear_recommendation(small) -> None:  # type: ignore[no-untyped-def]
    r = _resolve(small, "constraints:\n  must_run_on: [google_tpu]\n  licenses: [MIT]\n")
    a = assess(small, r)
    assert a.ranking == [] and a.sensitivity is None
    assert a.recommendation.verdict == "none" and a.recommendation.headline.code is HeadlineCode.NONE
    assert "constraint" in worded_recommendation(a.recommendation).summary


def test_multi_backend_winner_asks_for_a_backend(small) -> None:  # type: ignore[no-untyped-def]
    # Pretend PyTorch were a multi-backend layer (like Keras 3): the advice must name a backend to pair it with.
    frameworks = dict(small.frameworks)
    frameworks["pytorch"] = frameworks["pytorch"].model_copy(update={"kind": "multi_backend"})
    layered = dataclasses.replace(small, frameworks=frameworks)
    a = assess(layered, _resolve(layered, "scenario: research\n"))
    assert a.recommendation.framework == "pytorch"
    step = next(s for s in worded_recommendation(a.recommendation).next_steps if "multi-backend" in s)
    assert StepCode.MULTI_BACKEND in [s.code for s in a.recommendation.steps]
    assert a.ranking[1].name in step
