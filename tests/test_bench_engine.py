"""The bench engine without frameworks: the real NumPy child, stub frameworks that crash/hang/raise, JSON, CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from advisor.errors import ReportError, UsageError
from advisor.evidence.bench import BenchEvent, BenchReport, Measurement, run_bench
from advisor.frameworks.base import FrameworkAdapter
from advisor.jsonio import model_json
from tests.conftest import ROOT

# A stub "framework" whose bench script runs the real driver (probes._bench.run_suite) with
# benchmarks that misbehave on purpose: one crashes the process, one hangs, one raises, one runs
# out of memory. It needs no deep-learning framework, so these tests run in the bare CI venv too.
STUB = textwrap.dedent(
    """
    import os, sys, time
    sys.path.insert(0, {root!r})
    from probes import _bench as B
    from probes._proto import done, emit

    def ok(ctx):
        s = B.summarize([0.01] * 5)
        ctx.emit_result(B.result(ctx.extra["name"], "v", s, value=1.0, unit="x"))

    def named(name, fn):
        def run(ctx):
            ctx.extra["name"] = name
            fn(ctx)
        return run

    def crash(ctx):
        os.abort()

    def hang(ctx):
        time.sleep(600)

    def boom(ctx):
        raise ValueError("broken kernel")

    def oom(ctx):
        raise MemoryError("cannot allocate")

    args = B.parse_args()
    emit("import", ok=True, module="stub", seconds=0.0)
    emit("env", framework="stub", version="0", threads={{"intra_op": 1}}, devices=[{{"kind": "cpu", "name": "c"}}])
    B.run_suite({{"gemm": named("gemm", ok), "elementwise": named("elementwise", crash),
                  "dispatch": named("dispatch", hang), "conv": named("conv", boom),
                  "train_mlp": named("train_mlp", oom), "agreement": named("agreement", ok)}},
                [("cpu", "c", None)], args, threads=1)
    done()
    """
)


def _adapter(root: Path, module: str, dist: str = "numpy") -> FrameworkAdapter:
    class Stub(FrameworkAdapter):
        id = "stub"
        display_name = "Stub"
        import_name = "stub"
        distributions: ClassVar[tuple[str, ...]] = (dist,)  # numpy: "installed" as far as metadata goes
        probe_module = "stubpkg.probe"
        bench_module = module

        def script_root(self) -> Path:
            return root

    return Stub()


@pytest.fixture(scope="module")
def stub_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stubfw")
    pkg = root / "stubpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bench_stub.py").write_text(STUB.format(root=str(ROOT)))
    (pkg / "bench_importfail.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom probes._proto import timed_import, done\n"
        "timed_import('no_such_framework_xyz')\ndone()\n"
    )
    (pkg / "bench_exitcrash.py").write_text(
        STUB.format(root=str(ROOT)).replace("\ndone()\n", "\ndone()\nos.abort()\n")
    )
    return root


@pytest.fixture(scope="module")
def stub_report(stub_root: Path) -> tuple[BenchReport, list[BenchEvent]]:
    events: list[BenchEvent] = []
    report = run_bench(preset="test", adapters={"stub": _adapter(stub_root, "stubpkg.bench_stub")},
                       baseline=False, on_event=events.append, bench_timeout_s=4.0,
                       only=["gemm", "elementwise", "dispatch", "conv", "train_mlp", "agreement"])
    return report, events


def test_stub_crash_hang_raise_oom_each_lose_one_benchmark(stub_report: tuple[BenchReport, list[BenchEvent]]) -> None:
    report, _ = stub_report
    by_bench = {f.benchmark: f for f in report.failures}
    assert by_bench["elementwise"].outcome == "crashed" and "SIGABRT" in by_bench["elementwise"].error
    assert by_bench["dispatch"].outcome == "timed_out"
    assert by_bench["conv"].outcome == "error" and "broken kernel" in by_bench["conv"].error
    assert by_bench["train_mlp"].outcome == "out_of_memory"
    # The benchmarks around the broken ones still ran (the child was restarted after the crash and the hang).
    assert {m.benchmark for m in report.results} == {"gemm", "agreement"}
    assert "*" not in by_bench


def test_stub_run_streams_progress_events(stub_report: tuple[BenchReport, list[BenchEvent]]) -> None:
    _, events = stub_report
    kinds = [e.kind for e in events]
    assert kinds[0] == "framework_start" and kinds[-1] == "framework_end"
    assert kinds.count("note") == 2  # two restarts: after the crash and after the hang
    assert [e.benchmark for e in events if e.kind == "bench_start"] == [
        "gemm", "elementwise", "dispatch", "conv", "train_mlp", "agreement"]


def test_import_failure_is_reported_once(stub_root: Path) -> None:
    report = run_bench(preset="test", adapters={"stub": _adapter(stub_root, "stubpkg.bench_importfail")},
                       baseline=False, only=["gemm"])
    assert [(f.benchmark, f.outcome) for f in report.failures] == [("*", "import_error")]
    assert "no_such_framework_xyz" in report.failures[0].error


def test_missing_framework_gets_no_child(stub_root: Path) -> None:
    adapter = _adapter(stub_root, "stubpkg.does_not_exist", dist="no-such-distribution-xyz")
    report = run_bench(preset="test", adapters={"stub": adapter}, baseline=False, only=["gemm"])
    assert [(f.framework, f.outcome) for f in report.failures] == [("stub", "missing")]
    assert report.results == ()


@pytest.fixture(scope="module")
def numpy_report() -> BenchReport:
    """The real NumPy baseline child, alone (no framework adapters)."""
    return run_bench(preset="test", adapters={}, only=["gemm", "elementwise", "dispatch", "agreement"])


def test_numpy_baseline_measures_for_real(numpy_report: BenchReport) -> None:
    gemm = numpy_report.select("gemm", "numpy")
    assert gemm and all(m.value > 0 and m.samples >= 2 and m.median_s for m in gemm)
    assert {m.variant for m in numpy_report.select("elementwise")} == {"axpy-fp32", "axpy-fp32-out"}
    assert numpy_report.select("dispatch")[0].unit == "us/op"
    env = numpy_report.environment
    assert env["threads"] >= 1 and "method" in env
    assert numpy_report.results[0].environment["version"]


def test_report_json_round_trip(numpy_report: BenchReport) -> None:
    data = json.loads(json.dumps(model_json(numpy_report)))
    assert data["schema"] == "fwadvisor.bench/1"
    again = BenchReport.from_json(data)
    assert again.results == numpy_report.results
    assert model_json(again) == data
    for key in ("framework", "device", "benchmark", "variant", "params", "metric", "value", "unit",
                "higher_is_better", "median_s", "iqr_s", "min_s", "samples", "compile_s", "pct_of_peak",
                "warnings", "warning_codes", "environment"):
        assert key in data["results"][0]


@dataclass
class _Peak:
    """A stand-in for the probe's PeakEstimate with a chosen figure."""

    fp32_gflops: float = 10.0
    bf16_gflops: float | None = None
    formula: str = "test"


def test_pct_of_peak_uses_the_given_peak() -> None:
    report = run_bench(preset="test", adapters={}, only=["gemm"], peak=_Peak())  # type: ignore[arg-type]
    m = report.select("gemm")[0]
    assert m.pct_of_peak == pytest.approx(100 * m.value / 10.0)
    assert report.environment["peak"]["fp32_gflops"] == 10.0


def test_from_json_rejects_other_documents() -> None:
    with pytest.raises(ReportError):
        BenchReport.from_json({"schema": "something/else"})
    with pytest.raises(ReportError):
        Measurement.from_json({"framework": "x"})


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"preset": "huge"}, "--preset"), ({"only": ["nope"]}, "--only"), ({"devices": ["fpga"]}, "--device"),
     ({"frameworks": ["nope"]}, "--framework"), ({"nproc": 0}, "--nproc")],
)
def test_bad_arguments_are_usage_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(UsageError) as info:
        run_bench(adapters={}, **kwargs)
    assert info.value.field == field


def test_cli_bad_flag_exits_2(cli_env: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "advisor", "bench", "--only", "bogus"], cwd=ROOT, env=cli_env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "--only" in proc.stderr and "bogus" in proc.stderr


def test_cli_rendezvous_pass_through() -> None:
    import argparse

    from advisor.cli.commands import bench as cmd

    p = argparse.ArgumentParser()
    cmd.configure(p)
    args = p.parse_args(["--nnodes", "2", "--node-rank", "1", "--rdzv-endpoint", "10.0.0.1:29400", "--rdzv-id", "j"])
    assert cmd.rendezvous_args(args) == ["--nnodes=2", "--node-rank=1", "--rdzv-endpoint=10.0.0.1:29400",
                                         "--rdzv-backend=c10d", "--rdzv-id=j"]
    assert cmd.rendezvous_args(p.parse_args([])) == []
    assert p.parse_args(["--standard"]).preset == "standard"


def test_cli_renders_a_real_report(numpy_report: BenchReport) -> None:
    from rich.console import Console

    from advisor.cli.commands.bench import render_report

    console = Console(width=120, record=True, file=io.StringIO())
    console.print(render_report(numpy_report))
    text = console.export_text()
    assert "GEMM (square matmul)" in text and "numpy" in text and "GFLOP/s" in text


def test_device_filter_with_no_such_device_is_reported(stub_root: Path) -> None:
    report = run_bench(preset="test", adapters={"stub": _adapter(stub_root, "stubpkg.bench_stub")},
                       baseline=False, only=["gemm"], devices=["gpu"])
    assert report.results == ()
    assert [(f.benchmark, f.outcome) for f in report.failures] == [("*", "skipped")]
    assert "no gpu device" in report.failures[0].error


def test_cancel_stops_a_running_child(stub_root: Path) -> None:
    import threading
    import time

    cancel = threading.Event()
    threading.Timer(1.5, cancel.set).start()
    t0 = time.monotonic()
    report = run_bench(preset="test", adapters={"stub": _adapter(stub_root, "stubpkg.bench_stub")},
                       baseline=False, only=["dispatch"], cancel=cancel, bench_timeout_s=120)
    assert time.monotonic() - t0 < 60  # stopped by the cancel, not by the 120 s watchdog
    assert [(f.benchmark, f.outcome) for f in report.failures] == [("*", "cancelled")]


def test_crash_after_reporting_done_keeps_the_results(stub_root: Path) -> None:
    events: list[BenchEvent] = []
    report = run_bench(preset="test", adapters={"stub": _adapter(stub_root, "stubpkg.bench_exitcrash")},
                       baseline=False, only=["gemm", "agreement"], on_event=events.append)
    assert {m.benchmark for m in report.results} == {"gemm", "agreement"}
    assert report.failures == ()
    assert any(e.kind == "note" and "SIGABRT" in e.message for e in events)


def test_figures_above_an_underestimated_peak_are_flagged_once_under_the_table() -> None:
    # A real NumPy GEMM against a peak far below what any CPU reaches (1 GFLOP/s): every figure is above 100%.
    from rich.console import Console

    from advisor.cli.commands.bench import render_measurements

    low = _Peak(fp32_gflops=1.0, formula="1 core x 0.5 GHz x 2 FLOP/cycle = 1 GFLOP/s")
    report = run_bench(preset="test", adapters={}, only=["gemm"], peak=low)  # type: ignore[arg-type]
    rows = report.select("gemm")
    assert rows and all(m.pct_of_peak and m.pct_of_peak > 100 for m in rows)
    for m in rows:
        above = [w for w in m.warnings if w.code == "above_peak"]
        assert len(above) == 1 and above[0].params["assumes"] == "1 core x 0.5 GHz x 2 FLOP/cycle"
        assert "the estimate is too low" in above[0].message and above[0].params["pct"] == m.pct_of_peak
    # Wide enough that no cell wraps whatever the figures are: a wrapped mark would split the counted text.
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(render_measurements(rows, "GEMM", peak=True))
    text = " ".join(console.export_text().split())  # the footnote wraps wherever the table's width puts it
    assert text.count("above est. peak *") == len(rows)
    assert text.count("* above 100% of the estimated peak") == 1 and "0.5 GHz" in text
