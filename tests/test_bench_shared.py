"""One child per framework probes and then benchmarks (`bench.shared`): real children, real stand-ins."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from advisor.evidence.bench import run_bench
from advisor.evidence.bench.figures import _peak_from_probe
from advisor.evidence.bench.session import ChildSession
from advisor.evidence.bench.shared import SharedChildren
from advisor.frameworks.registry import adapters
from tests.test_probe_children import StandInTorch, _env

TORCH = adapters()["pytorch"]
needs_torch = pytest.mark.skipif(TORCH.installed() is None, reason="PyTorch is not installed")


@pytest.mark.parametrize("fid", ["pytorch", "mlx"])
def test_the_probe_child_is_the_bench_child(fid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = adapters()[fid]
    if adapter.installed() is None:
        pytest.skip(f"{adapter.display_name} is not installed")
    launched: list[str] = []
    real_start = ChildSession.start

    def spy(self: ChildSession, *args: object, **kw: object) -> object:
        launched.append(self.module)
        return real_start(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ChildSession, "start", spy)
    shared = SharedChildren(preset="test", threads=1, bench_ids=[fid])
    probed = shared.probe([adapter], timeout=120, on_event=None, cancel=None)
    assert probed[fid].outcome == "ok" and probed[fid].import_s
    member = shared.members.pop(fid)
    assert member.session is not None and member.session.alive
    report = run_bench(preset="test", frameworks=[fid], only=["gemm"], baseline=False, started={fid: member})
    assert launched == ["probes.probe_bench"]  # one child for probe and bench: no second import
    assert any(m.framework == fid and m.benchmark == "gemm" for m in report.results)
    assert not report.failures
    assert not member.session.alive  # the run closed the child it adopted


def test_a_probe_that_crashes_or_hangs_is_reported_and_leaves_no_child() -> None:
    shared = SharedChildren(preset="test", threads=1, bench_ids=["torch_segfault", "torch_hangs"],
                            envs={"torch_segfault": _env("segfault"), "torch_hangs": _env("hangs")})
    start = time.perf_counter()
    probed = shared.probe([StandInTorch("segfault"), StandInTorch("hangs")], timeout=6, on_event=None, cancel=None)
    assert probed["torch_segfault"].outcome == "crashed" and probed["torch_segfault"].signal == "SIGSEGV"
    assert probed["torch_hangs"].outcome == "timed_out" and "6 s" in (probed["torch_hangs"].error or "")
    assert shared.members == {}
    assert time.perf_counter() - start < 60


def test_cancel_ends_a_shared_child_during_its_probe() -> None:
    cancel = threading.Event()
    shared = SharedChildren(preset="test", threads=1, bench_ids=["torch_hangs"], envs={"torch_hangs": _env("hangs")})
    threading.Timer(1.0, cancel.set).start()
    start = time.perf_counter()
    probed = shared.probe([StandInTorch("hangs")], timeout=60, on_event=None, cancel=cancel)
    assert probed["torch_hangs"].outcome == "cancelled"
    assert shared.members == {} and time.perf_counter() - start < 30


@needs_torch
@pytest.mark.parametrize("bf16_units", [False, True])
def test_the_fleet_preset_runs_bf16_on_the_cpu_only_where_the_probe_found_units(bf16_units: bool) -> None:
    peak = _peak_from_probe()
    if peak is None:
        pytest.skip("the probe estimates no CPU peak here")
    # The expectation follows the peak handed in (what a node's probe would report), never this CPU.
    peak = dataclasses.replace(peak, bf16_gflops=2 * peak.fp32_gflops if bf16_units else None)
    report = run_bench(preset="fleet", frameworks=["pytorch"], only=["gemm"], baseline=False, peak=peak,
                       devices=["cpu"])
    variants = {m.variant for m in report.results if m.framework == "pytorch" and m.benchmark == "gemm"}
    assert "fp32-1024" in variants
    assert any(v.startswith("bf16") for v in variants) is bf16_units
    assert ("skipped_dtypes" in report.environment) is not bf16_units
