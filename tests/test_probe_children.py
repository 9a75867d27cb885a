"""Reliability: frameworks whose import raises, segfaults, prints garbage or hangs are reported, and the rest complete.

Each case runs the real child script (`python -m probes.fw_torch`) with a deliberately broken
stand-in `torch` package first on its PYTHONPATH (tests/fixtures/broken/<case>/torch). No real
framework is needed, so these tests also run in the bare CI venv.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from advisor.evidence.child import run_child
from advisor.evidence.probe import FrameworkProbe, ProbeEvent, probe_frameworks
from advisor.frameworks.builtin import PyTorchAdapter
from advisor.paths import probes_root

BROKEN = Path(__file__).parent / "fixtures" / "broken"


class StandInTorch(PyTorchAdapter):
    """PyTorch's adapter under another id, 'installed' whatever the metadata says (the stand-ins have none)."""

    def __init__(self, case: str) -> None:
        self.id = f"torch_{case}"  # type: ignore[misc]

    def installed(self) -> tuple[str, str] | None:
        return ("torch-standin", "0.0.0")


def _env(case: str) -> dict[str, str]:
    return {"PYTHONPATH": str(BROKEN / case)}


@pytest.fixture(scope="module")
def broken_run() -> tuple[dict[str, FrameworkProbe], list[ProbeEvent]]:
    """All five broken stand-ins probed at once, in parallel, as `fwadvisor probe` does."""
    cases = ["raises", "segfault", "garbage", "noisy", "hangs"]
    events: list[ProbeEvent] = []
    lock = threading.Lock()

    def record(ev: ProbeEvent) -> None:
        with lock:
            events.append(ev)

    results = probe_frameworks(
        [StandInTorch(c) for c in cases], timeout=6, on_event=record, envs={f"torch_{c}": _env(c) for c in cases}
    )
    return results, events


def test_import_raises_is_import_error(broken_run: tuple[dict[str, FrameworkProbe], list[ProbeEvent]]) -> None:
    fp = broken_run[0]["torch_raises"]
    assert fp.outcome == "import_error"
    assert fp.error and "libtorch_cpu.so" in fp.error and fp.error.startswith("OSError")
    assert fp.installed and fp.import_s is None


def test_segfault_is_crashed_with_signal(broken_run: tuple[dict[str, FrameworkProbe], list[ProbeEvent]]) -> None:
    fp = broken_run[0]["torch_segfault"]
    assert fp.outcome == "crashed"
    assert fp.signal == "SIGSEGV"
    assert fp.error == "killed by SIGSEGV"


def test_garbage_then_exit_is_bad_output(broken_run: tuple[dict[str, FrameworkProbe], list[ProbeEvent]]) -> None:
    fp = broken_run[0]["torch_garbage"]
    assert fp.outcome == "bad_output"
    assert fp.noise_lines == 3
    assert fp.error and "stray stdout lines" in fp.error


def test_garbage_but_working_is_ok_with_noise(broken_run: tuple[dict[str, FrameworkProbe], list[ProbeEvent]]) -> None:
    fp = broken_run[0]["torch_noisy"]
    assert fp.outcome == "ok"
    assert fp.version == "0.0.0+standin"
    assert fp.noise_lines == 1
    assert any("stray stdout" in w for w in fp.warnings)
    # The stand-in lacks torch.version, torch.cuda, ...: each missing API is a listed warning, not a crash.
    assert any(w.startswith("torch.version.cuda") for w in fp.warnings)
    assert fp.devices == [{"kind": "cpu", "name": "cpu", "id": "cpu"}]


def test_hang_is_timed_out_and_others_completed(
    broken_run: tuple[dict[str, FrameworkProbe], list[ProbeEvent]],
) -> None:
    results, events = broken_run
    assert results["torch_hangs"].outcome == "timed_out"
    assert "6 s" in (results["torch_hangs"].error or "")
    # Every other probe finished with its own state while one hung.
    assert {k: v.outcome for k, v in results.items() if k != "torch_hangs"} == {
        "torch_raises": "import_error", "torch_segfault": "crashed", "torch_garbage": "bad_output", "torch_noisy": "ok",
    }
    finished = [e.name for e in events if e.kind == "framework_done"]
    assert sorted(finished) == sorted(results)
    assert finished[-1] == "torch_hangs"  # the others were reported before the hung one was killed


def test_cancel_stops_a_hanging_child() -> None:
    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    start = time.perf_counter()
    results = probe_frameworks([StandInTorch("hangs")], timeout=60, cancel=cancel, envs={"torch_hangs": _env("hangs")})
    timer.cancel()
    assert results["torch_hangs"].outcome == "cancelled"
    assert time.perf_counter() - start < 30  # far below the 60 s timeout; generous for slow CI


def test_missing_framework_needs_no_child() -> None:
    class NotThere(PyTorchAdapter):
        id = "nothere"
        distributions = ("surely-not-an-installed-distribution",)

    fp = probe_frameworks([NotThere()])["nothere"]
    assert fp.outcome == "missing" and not fp.installed and fp.version is None


def test_fast_mode_reads_metadata_only() -> None:
    fp = probe_frameworks([StandInTorch("hangs")], fast=True, envs={"torch_hangs": _env("hangs")})["torch_hangs"]
    assert fp.outcome == "skipped" and fp.version == "0.0.0" and fp.import_s is None


def test_run_child_streams_events_from_stand_in() -> None:
    seen: list[dict[str, object]] = []
    result = run_child("probes.fw_torch", root=probes_root(), timeout=30, on_event=seen.append, env=_env("noisy"))
    assert [e["event"] for e in seen][:2] == ["import", "info"]
    assert seen[-1] == {"event": "done"}
    assert result.outcome.value == "ok"
