"""Unit tests of probes/_bench.py: statistics, warnings, adaptive timing, presets, agreement data (no frameworks)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from probes import _bench as B
from probes.bench_numpy import reference_step


class FakeClock:
    """A clock that advances by a fixed cost per call of the timed function (deterministic timing)."""

    def __init__(self, per_call: float, jitter: list[float] | None = None) -> None:
        self.now = 0.0
        self.per_call = per_call
        self.jitter = itertools.cycle(jitter or [0.0])
        self.calls = 0

    def __call__(self) -> float:
        return self.now

    def fn(self) -> None:
        self.calls += 1
        self.now += self.per_call * (1.0 + next(self.jitter))


def test_summarize_median_iqr_min() -> None:
    s = B.summarize([1.0, 2.0, 3.0, 4.0, 5.0], number=10)
    assert s.median_s == 3.0
    assert s.iqr_s == pytest.approx(2.0)  # numpy linear percentiles: 4 - 2
    assert s.min_s == 1.0
    assert s.samples == 5
    assert s.number == 10
    assert s.rel_iqr == pytest.approx(2 / 3)


def test_summarize_rejects_empty() -> None:
    with pytest.raises(ValueError):
        B.summarize([])


def test_warnings_for_unstable_few_and_short() -> None:
    s = B.summarize([1e-5, 2e-5, 3e-5], number=1)
    assert [w["code"] for w in s.warnings] == ["unstable", "few_samples", "short_blocks"]
    assert s.warnings[1]["params"] == {"samples": 3} and "only 3 sample" in s.warnings[1]["message"]


def test_no_warnings_for_a_tight_long_run() -> None:
    s = B.summarize([0.0200, 0.0201, 0.0200, 0.0199, 0.0200, 0.0201], number=1)
    assert s.warnings == ()


def test_wide_spread_warning_when_median_far_above_min() -> None:
    s = B.summarize([0.010, 0.020, 0.020, 0.020, 0.021, 0.020], number=1)
    assert [w["code"] for w in s.warnings] == ["wide_spread"]
    assert s.warnings[0]["params"]["ratio"] == pytest.approx(2.0) and "minimum" in s.warnings[0]["message"]


def test_measure_batches_calls_until_blocks_are_long_enough() -> None:
    clock = FakeClock(per_call=1e-6)
    s = B.measure(clock.fn, budget_s=0.5, clock=clock, warmup=1)
    assert s.number * s.median_s >= B.MIN_BLOCK_S  # blocks reach the minimum length
    assert s.median_s == pytest.approx(1e-6)
    assert s.samples >= B.MIN_SAMPLES
    assert s.warnings == ()


def test_measure_stops_early_when_stable_and_respects_budget() -> None:
    stable = FakeClock(per_call=0.02)
    s = B.measure(stable.fn, budget_s=10.0, clock=stable)
    assert s.samples < 20  # stable: stops once IQR/median is small, long before the budget
    noisy = FakeClock(per_call=0.02, jitter=[0.0, 0.5, -0.3, 0.9, 0.1])
    s2 = B.measure(noisy.fn, budget_s=0.5, clock=noisy, max_samples=1000)
    assert s2.total_s <= 0.5 + 0.1  # the budget bounds a noisy run (one block of overshoot)
    assert "unstable" in [w["code"] for w in s2.warnings]


def test_measure_calls_sync_once_per_block() -> None:
    clock = FakeClock(per_call=0.004)
    synced: list[object] = []
    s = B.measure(lambda: clock.fn() or "r", sync=synced.append, budget_s=0.2, clock=clock)
    assert synced and all(r == "r" for r in synced)
    assert len(synced) < clock.calls  # batched: fewer syncs than calls
    assert s.number >= 3


def test_measure_latencies_and_percentiles() -> None:
    clock = FakeClock(per_call=0.001, jitter=[0.0, 0.1, 0.2, 0.3])
    times = B.measure_latencies(clock.fn, budget_s=0.05, min_calls=30, clock=clock)
    assert len(times) >= 30
    pct = B.percentiles(times)
    assert pct["p50"] <= pct["p90"] <= pct["p99"]
    assert pct["p99"] == pytest.approx(0.0013, rel=0.01)


def test_result_helpers_compute_rates() -> None:
    s = B.summarize([0.01] * 5, number=1)
    g = B.gemm_result(100, "fp32", s)
    assert g["value"] == pytest.approx(2 * 100**3 / 0.01 / 1e9)
    assert g["unit"] == "GFLOP/s" and g["variant"] == "fp32-100"
    e = B.elementwise_result(1000, 4, s)
    assert e["value"] == pytest.approx(12000 / 0.01 / 1e9)
    lat = B.latency_result("eager", [0.001] * 120, {"batch": 1})
    assert lat["value"] == pytest.approx(1.0) and lat["params"]["p99"] == pytest.approx(1.0)
    assert B.rate(1.0, 0.0) == 0.0


def test_presets_and_benchmarks_match_the_engine() -> None:
    from advisor.evidence import bench

    assert tuple(B.BENCHMARKS) == bench.BENCHMARKS
    assert set(B.PRESETS) == set(bench.PRESETS)
    q, s = B.PRESETS["quick"], B.PRESETS["standard"]
    assert q.budget_s < s.budget_s and max(q.gemm_sizes) <= max(s.gemm_sizes)


def test_agreement_data_is_deterministic() -> None:
    a, b = B.agreement_data(), B.agreement_data()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert all(v.dtype == np.float32 for v in a.values())


def test_numpy_reference_gradients_match_finite_differences() -> None:
    data = B.agreement_data()
    ref = reference_step(data)

    def loss(d: dict[str, np.ndarray]) -> float:
        return float(reference_step(d)["loss"])  # type: ignore[arg-type]

    eps = 1e-6
    for name in B.AGREEMENT_PARAMS:
        flat_grad = np.asarray(ref["grads"][name])  # type: ignore[index]
        for idx in (0, flat_grad.size - 1):
            d_plus = {k: v.astype(np.float64) for k, v in data.items()}
            d_minus = {k: v.astype(np.float64) for k, v in data.items()}
            d_plus[name].reshape(-1)[idx] += eps
            d_minus[name].reshape(-1)[idx] -= eps
            numeric = (loss(d_plus) - loss(d_minus)) / (2 * eps)
            assert numeric == pytest.approx(flat_grad[idx], rel=1e-5, abs=1e-8)


def test_fault_hook_raises_only_for_its_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_BENCH_FAULT", "conv:raise,train_mlp:oom")
    B._fault("gemm", "cpu")  # untouched
    with pytest.raises(RuntimeError):
        B._fault("conv", "cpu")
    with pytest.raises(MemoryError):
        B._fault("train_mlp", "cpu")


def test_measure_extends_past_budget_for_min_samples_after_a_slowdown() -> None:
    clock = FakeClock(per_call=0.001)
    calls = {"n": 0}

    def fn() -> None:
        calls["n"] += 1
        if calls["n"] > 20:  # after calibration the machine gets 3x slower (another process arrives)
            clock.per_call = 0.003
        clock.fn()

    s = B.measure(fn, budget_s=0.1, clock=clock, target_rel_iqr=0.0, warmup_s=0.0)
    assert s.samples >= B.MIN_SAMPLES
    assert s.total_s <= 0.3 + 0.05


def test_measure_warms_up_for_a_minimum_time_before_timing() -> None:
    # The first calls are slow (a thread pool spinning up, a cache filling): 30 calls at 10x the steady time.
    clock = FakeClock(per_call=0.001)
    calls = {"n": 0}

    def fn() -> None:
        calls["n"] += 1
        clock.per_call = 0.01 if calls["n"] <= 30 else 0.001
        clock.fn()

    s = B.measure(fn, budget_s=0.2, clock=clock, warmup_s=0.35)
    assert s.median_s == pytest.approx(0.001)  # the slow start was spent in warm-up, not measured
    cold = {"n": 0}

    def fn_cold() -> None:
        cold["n"] += 1
        clock.per_call = 0.01 if cold["n"] <= 30 else 0.001
        clock.fn()

    s_cold = B.measure(fn_cold, budget_s=0.2, clock=clock, warmup_s=0.0, warmup=1)
    assert s_cold.median_s > s.median_s  # without the timed warm-up the slow start is measured


def test_an_accelerator_times_gemms_large_enough_for_the_math_not_the_dispatch() -> None:
    """On an H200 a 1024 bf16 product is ~4 us of math against 7-40 us of a framework's dispatch per call."""
    for name in ("quick", "standard", "thorough"):
        p = B.PRESETS[name]
        cpu = B.Context(preset=p, device="cpu", device_name="cpu", budget_s=p.budget_s, threads=1)
        gpu = B.Context(preset=p, device="gpu", device_name="NVIDIA H200", budget_s=p.budget_s, threads=1)
        assert cpu.gemm_sizes() == (p.gemm_sizes, p.gemm_low_precision_sizes)
        fp32, low = gpu.gemm_sizes()
        # At ~800 TFLOP/s (bf16) and ~60 (fp32), the largest product of each list takes over 100 us.
        assert 2 * max(low) ** 3 / 800e12 > 100e-6 and 2 * max(fp32) ** 3 / 60e12 > 100e-6, (name, fp32, low)
        # ... and the largest one fits a 16 GiB card (a, b and the product, in fp32).
        assert 3 * 4 * max(*fp32, *low) ** 2 < 16 << 30
