"""The real suite through every installed framework with a bench script (tiny "test" preset), shared by the module.

CI installs PyTorch, JAX, TensorFlow and MLX (.ci/frameworks.txt); the framework list comes from the adapters the
probe finds installed, so a framework added to the pins is measured here without editing this file.
"""

from __future__ import annotations

from importlib import metadata

import pytest

from advisor.evidence.bench import BenchEvent, BenchReport, run_bench
from advisor.frameworks.registry import adapters

pytestmark = pytest.mark.frameworks

#: The installed frameworks that have a benchmark script (Keras runs on its backend's figures).
FRAMEWORKS = tuple(a.id for a in adapters().values() if a.bench_module and a.installed() is not None)
PER_FRAMEWORK = ("gemm", "elementwise", "dispatch", "conv", "train_mlp", "train_transformer", "infer_latency")


@pytest.fixture(scope="module")
def suite() -> tuple[BenchReport, list[BenchEvent]]:
    """One run of everything: one child per framework, torchrun with 2 gloo ranks, JAX with 2 host devices."""
    assert {"pytorch", "jax"} <= set(FRAMEWORKS), FRAMEWORKS  # the all-reduce test below needs both
    events: list[BenchEvent] = []
    report = run_bench(preset="test", frameworks=list(FRAMEWORKS), nproc=2, on_event=events.append)
    return report, events


def test_every_framework_measures_every_benchmark_on_cpu(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    bad = [f for f in report.failures if f.outcome not in ("skipped",)]
    assert bad == []
    for fw in FRAMEWORKS:
        got = {m.benchmark for m in report.select(framework=fw, device="cpu")}
        missing = set(PER_FRAMEWORK) - got
        assert not missing, f"{fw} lacks {missing}"
        env = report.select(framework=fw)[0].environment
        assert env["version"] and env["threads"] >= 1


def test_figures_are_positive_and_carry_their_statistics(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    for m in report.results:
        if m.benchmark == "agreement":
            continue
        assert m.value > 0, m.key
        assert m.median_s and m.median_s > 0 and m.iqr_s is not None and m.min_s is not None, m.key
        assert m.min_s <= m.median_s, m.key
        assert m.samples >= 2, m.key


def test_gemm_has_fp32_and_bf16_and_percent_of_peak(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    for fw in FRAMEWORKS:
        variants = {m.variant for m in report.select("gemm", fw)}
        assert {"fp32-64", "bf16-64"} <= variants
    # A % of peak exists exactly where the probe has a peak for that dtype: a CPU without a bf16 unit (AVX2-only
    # x86, many Arm cores) has an fp32 peak and no bf16 one, and a CPU whose clock is unknown has neither.
    peak = report.environment.get("peak") or {}
    for m in report.select("gemm"):
        dtype_peak = peak.get("bf16_gflops") if m.variant.startswith("bf16") else peak.get("fp32_gflops")
        assert (m.pct_of_peak is not None) == bool(dtype_peak), (m.key, peak)


def test_eager_and_compiled_training_steps(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    for fw in FRAMEWORKS:
        mlp = {m.variant: m for m in report.select("train_mlp", fw)}
        assert set(mlp) == {"eager", "compiled"}
        assert mlp["compiled"].compile_s is not None and mlp["compiled"].compile_s > 0
        assert mlp["compiled"].params["speedup_vs_eager"] > 0
    for fw in set(FRAMEWORKS) - {"pytorch"}:  # torch.compile of the transformer is left to the standard preset on CPU
        assert {m.variant for m in report.select("train_transformer", fw)} == {"eager", "compiled"}
    torch_skips = {f.benchmark for f in report.failures if f.framework == "pytorch" and f.outcome == "skipped"}
    assert "train_transformer:compiled" in torch_skips


def test_inference_latency_percentiles(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    for m in report.select("infer_latency"):
        assert m.unit == "ms" and m.params["p50"] <= m.params["p90"] <= m.params["p99"]


def test_agreement_all_frameworks_match_numpy(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    rows = {m.framework: m for m in report.select("agreement")}
    assert set(rows) == set(FRAMEWORKS)
    for m in rows.values():
        assert m.params["passed"] is True, m.params
        assert m.params["reference"] == "numpy float64"
        assert m.params["reference_loss"] == pytest.approx(m.params["loss"], rel=1e-5)


def test_two_process_gloo_allreduce_and_jax_two_host_devices(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    torch_ar = report.select("allreduce", "pytorch")
    assert torch_ar and torch_ar[0].params["backend"] == "gloo" and torch_ar[0].params["world_size"] == 2
    jax_ar = report.select("allreduce", "jax")
    assert jax_ar and jax_ar[0].params["devices"] == 2
    assert all(m.value > 0 for m in torch_ar + jax_ar)


def test_transfer_is_skipped_with_a_reason_on_cpu(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = suite
    skips = [f for f in report.failures if f.benchmark == "transfer"]
    assert {f.framework for f in skips} == set(FRAMEWORKS)
    assert all("no accelerator" in f.error for f in skips)


def test_progress_streams_live(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    _, events = suite
    results = [e for e in events if e.kind == "result"]
    assert len(results) >= 20
    assert [e.framework for e in events if e.kind == "framework_start"] == ["numpy", *FRAMEWORKS]


def test_real_framework_crash_loses_only_that_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_BENCH_FAULT", "gemm:crash")
    report = run_bench(preset="test", frameworks=["pytorch"], only=["gemm", "dispatch"], baseline=False)
    assert [(f.benchmark, f.outcome) for f in report.failures] == [("gemm", "crashed")]
    assert [m.benchmark for m in report.results] == ["dispatch"]


def test_mlx_is_measured_where_it_is_installed(suite: tuple[BenchReport, list[BenchEvent]]) -> None:
    """MLX (pinned by CI as mlx[cpu]) yields figures through the same protocol (the tests above check them all)."""
    assert "mlx" in FRAMEWORKS, "mlx is not installed: pip install -r .ci/frameworks.txt"
    report, _ = suite
    figures = report.select(framework="mlx", device="cpu")
    assert {m.benchmark for m in figures} >= set(PER_FRAMEWORK)
    assert figures[0].environment["version"] == metadata.version("mlx")
    assert {m.variant for m in report.select("elementwise", "mlx")} == {"axpy-fp32", "axpy-fp32-compiled"}
    skipped = {f.benchmark: f for f in report.failures if f.framework == "mlx"}
    assert set(skipped) == {"transfer", "allreduce"}
    assert all(f.outcome == "skipped" and f.error for f in skipped.values())
