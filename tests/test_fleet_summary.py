"""The fleet summary: node types, the spread within a type, and what the fleet means for the recommendation.

One real node report is made here (a metadata-only probe of this machine); the other nodes of each fleet
are that report with a planted difference, since this machine cannot be a second host or hold a GPU.
Expectations are derived from the real report, never from this CPU.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from advisor.fleet import FindingCode, FleetSummary, NodeInput, NodeOptions, run_node, summarize
from advisor.fleet.launcher import explicit_launcher
from advisor.jsonio import model_json
from advisor.team import SavedKind, saved_report

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def base(kb) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return run_node(kb, explicit_launcher(0, 1), NodeOptions(preset=None, fast_probe=True)).model_dump(mode="json")


def _with_figure(report: dict[str, Any], value: float) -> dict[str, Any]:
    out = copy.deepcopy(report)
    out["benchmarks"] = {"results": [{"framework": "numpy", "benchmark": "gemm", "variant": "float32 1024",
                                      "device": "cpu", "value": value, "unit": "GFLOP/s", "higher_is_better": True}]}
    return out


def _nodes(*reports: dict[str, Any]) -> list[NodeInput]:
    return [NodeInput(f"node-{i:04d}", saved_report(r, f"node-{i:04d}", SavedKind.REPORT), i)
            for i, r in enumerate(reports)]


def _codes(summary: FleetSummary) -> dict[FindingCode, list[Any]]:
    out: dict[FindingCode, list[Any]] = {}
    for f in summary.findings:
        out.setdefault(f.code, []).append(f)
    return out


def test_a_slow_node_of_a_type_is_named_planted_second_and_third_host(kb, base) -> None:  # type: ignore[no-untyped-def]
    summary = summarize(kb, _nodes(_with_figure(base, 100.0), _with_figure(base, 97.0), _with_figure(base, 60.0)))
    assert len(summary.types) == 1 and summary.types[0].nodes == ["node-0000", "node-0001", "node-0002"]
    spread = summary.types[0].spread[0]
    assert (spread.worst_node, spread.median, spread.low, spread.high) == ("node-0002", 97.0, 60.0, 100.0)
    slow = _codes(summary)[FindingCode.SLOW_NODE]
    assert [(f.nodes, f.shortfall_pct) for f in slow] == [(["node-0002"], 39.1)]  # 60 against the others' median 98.5
    FleetSummary.from_json(model_json(summary))  # the JSON is the model's own


def test_a_setting_unlike_the_rest_of_its_type_is_named_planted_second_host(kb, base) -> None:  # type: ignore[no-untyped-def]
    odd = copy.deepcopy(base)
    odd["probe"]["software"]["env"] = {"OMP_NUM_THREADS": "1"}
    summary = summarize(kb, _nodes(base, base, odd))
    found = [f for f in _codes(summary)[FindingCode.MISCONFIGURED_NODE] if f.setting == "$OMP_NUM_THREADS"]
    assert [f.nodes for f in found] == [["node-0002"]]
    assert found[0].values["node-0002"] == "1" and found[0].values["node-0000"] == "unset"


def test_a_framework_missing_or_failing_on_some_nodes_planted_second_host(kb, base) -> None:  # type: ignore[no-untyped-def]
    installed = [f for f, e in base["probe"]["frameworks"].items() if e["installed"]]
    if len(installed) < 2:
        pytest.skip("needs two installed frameworks on this machine (the full venv has them)")
    lacking, failing = copy.deepcopy(base), copy.deepcopy(base)
    lacking["probe"]["frameworks"][installed[0]].update(installed=False, version=None, outcome="missing")
    failing["probe"]["frameworks"][installed[1]].update(outcome="crashed")
    summary = summarize(kb, _nodes(base, lacking, failing))
    codes = _codes(summary)
    assert [(f.framework, f.nodes) for f in codes[FindingCode.FRAMEWORK_MISSING]] == [(installed[0], ["node-0001"])]
    assert [(f.framework, f.nodes) for f in codes[FindingCode.FRAMEWORK_FAILING]] == [(installed[1], ["node-0002"])]
    # The same hardware with other framework versions is another node type, and said so.
    assert len(summary.types) == 2
    assert codes[FindingCode.VERSIONS_DIFFER][0].nodes == ["node-0001"]


def test_an_old_gpu_is_its_own_type_and_below_the_floor_planted_gpu(kb, base) -> None:  # type: ignore[no-untyped-def]
    floors = {f: s.gpu.min_compute_capability for f, s in kb.stewardship.items()
              if s.gpu and s.gpu.min_compute_capability}
    gpu = copy.deepcopy(base)
    gpu["probe"]["gpus"] = {"status": "ok", "devices": [{"name": "Tesla K80", "compute_capability": "3.7"}] * 2}
    summary = summarize(kb, _nodes(base, gpu))
    assert {(t.gpu, t.gpu_count) for t in summary.types} == {(None, 0), ("Tesla K80", 2)}
    below = _codes(summary).get(FindingCode.GPU_BELOW_FLOOR, [])
    assert {f.framework for f in below} == {f for f in floors if f in kb.frameworks}
    assert all(f.nodes == ["node-0001"] and f.reason == floors[f.framework] for f in below)


def test_failed_nodes_are_named_and_the_others_kept(kb, base) -> None:  # type: ignore[no-untyped-def]
    from advisor.fleet import FailedNode, FailureKind

    summary = summarize(kb, _nodes(base), failed=[FailedNode(label="node-0001", rank=1, kind=FailureKind.KILLED)],
                        expected=2)
    assert [n.label for n in summary.nodes] == ["node-0000"]
    assert [(f.code, f.nodes, f.reason) for f in summary.findings if f.code is FindingCode.NODE_FAILED] == [
        (FindingCode.NODE_FAILED, ["node-0001"], "killed")]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "advisor", "fleet", "summary", *args], env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_summary_command_reads_a_folder_and_names_a_corrupt_file(tmp_path: Path, base) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "node-0000.json").write_text(json.dumps(_with_figure(base, 100.0)))
    (tmp_path / "node-0001.json").write_text(json.dumps(_with_figure(base, 50.0)))
    (tmp_path / "node-0002.json").write_text('{"schema_version": "1.1", "probe": ')
    proc = _cli(str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = FleetSummary.from_json(json.loads(proc.stdout))
    codes = _codes(summary)
    assert codes[FindingCode.FILE_SKIPPED][0].nodes == ["node-0002"]
    assert codes[FindingCode.SLOW_NODE][0].nodes == ["node-0001"]
    from advisor.cli.fleet_text import summary_markdown

    markdown = summary_markdown(summary)
    assert "**node-0001** is 50% below the other nodes of its type" in markdown
    (tmp_path / "node-0000.json").write_text("[]")
    (tmp_path / "node-0001.json").write_text("not json")
    bad = _cli(str(tmp_path))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "no usable node report" in bad.stderr


def test_a_ray_tasks_answer_is_a_report_or_a_named_failure(base) -> None:  # type: ignore[no-untyped-def]
    from advisor.fleet import FailedNode, FailureKind
    from advisor.fleet.ray_run import read_answer

    ok = read_answer(2, {"rc": 0, "stdout": json.dumps(base).encode(), "stderr": b""})
    assert isinstance(ok, NodeInput) and (ok.label, ok.rank) == ("node-0002", 2)
    assert ok.text == json.dumps(base).encode()  # `fleet run --out` saves the node's report as it came
    cases = {
        FailureKind.KILLED: {"rc": -9, "stdout": b"", "stderr": b""},
        FailureKind.TIMED_OUT: {"rc": None, "timed_out": True, "stdout": b"", "stderr": b"gemm...\n"},
        FailureKind.FAILED: {"rc": 2, "stdout": b"", "stderr": b"fwadvisor: error: SLURM_PROCID: bad\n"},
        FailureKind.BAD_REPORT: {"rc": 0, "stdout": b'{"not": "a report"}', "stderr": b""},
    }
    for kind, answer in cases.items():
        got = read_answer(1, answer)
        assert isinstance(got, FailedNode) and got.kind is kind and got.label == "node-0001"
    assert "SIGKILL" in read_answer(1, cases[FailureKind.KILLED]).detail  # type: ignore[union-attr]
    assert "SLURM_PROCID" in read_answer(1, cases[FailureKind.FAILED]).detail  # type: ignore[union-attr]


def test_a_noisy_figure_never_calls_a_node_slow_planted_second_host(kb, base) -> None:  # type: ignore[no-untyped-def]
    noisy = _with_figure(base, 50.0)
    # As the bench writes a warning: the sentence in `warnings`, its code beside it in `warning_codes`.
    noisy["benchmarks"]["results"][0]["warnings"] = ["IQR 30% of the median"]
    noisy["benchmarks"]["results"][0]["warning_codes"] = [{"code": "unstable", "params": {"rel_iqr": 0.3}}]
    busy = _with_figure(base, 50.0)
    busy["benchmarks"]["environment"] = {"machine_state": {"busy": True}}
    for odd in (noisy, busy):
        summary = summarize(kb, _nodes(_with_figure(base, 100.0), odd))
        assert FindingCode.SLOW_NODE not in _codes(summary)
        assert summary.types[0].spread[0].worst_node == "node-0001"  # still shown in the spread
