"""Saved reports are input: validated at the boundary (one line, exit 2), re-scored under the live allow-list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.cli import main

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json"
PROBE_H100 = ROOT / "tests" / "fixtures" / "evidence" / "probe_fake_nvidia_h100.json"
PROFILE = ROOT / "docs" / "examples" / "team" / "researcher.yaml"


@pytest.fixture(autouse=True)
def _no_user_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")


def _report_with_gpu_name(tmp_path: Path, name: str) -> Path:
    data: dict[str, Any] = json.loads(REPORT.read_text())
    data["probe"] = json.loads(PROBE_H100.read_text())  # a fake H100 probe: this machine has no such GPU
    for dev in data["probe"]["gpus"]["devices"]:
        dev["name"] = name
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("length", [81, 96])
def test_a_long_gpu_name_a_probe_may_hold_is_rescored(tmp_path: Path, length: int,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = _report_with_gpu_name(tmp_path, "N" * length)
    assert main(["report", "--from-json", str(path), "--json"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("command", [["report", "--from-json", "{path}"],
                                     ["team", "decide", "--from-json", "{path}", str(PROFILE)]])
def test_a_gpu_name_longer_than_any_probe_is_one_line(tmp_path: Path, command: list[str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _report_with_gpu_name(tmp_path, "N" * 97)
    code = main([c.format(path=path) for c in command])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "probe.gpus.devices[0].name" in err and str(path) in err


@pytest.mark.parametrize("identify", [[], ["--identify"]])
def test_rescoring_applies_the_live_allow_list_to_a_foreign_report(
    tmp_path: Path, identify: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    data: dict[str, Any] = json.loads(REPORT.read_text())
    planted = {"TF_VAR_db_password": "planted-secret-1", "AWS_SECRET_ACCESS_KEY": "planted-secret-2",
               "OMP_NUM_THREADS": "2", "CUDA_HOME": "/opt/cuda", "COUNT": "3"}
    data["probe"]["software"]["env"] = planted
    data["benchmarks"]["environment"]["env"] = dict(planted)
    data["benchmarks"]["environment"].setdefault("frameworks", {})["pytorch"] = {"env": dict(planted)}
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(data))
    assert main(["report", "--from-json", str(path), "--json", *identify]) == 0
    out = capsys.readouterr().out
    for leaked in ("TF_VAR_db_password", "planted-secret", "AWS_SECRET_ACCESS_KEY", "COUNT"):
        assert leaked not in out, f"{leaked} was carried forward"
    env = json.loads(out)["probe"]["software"]["env"]
    assert env["OMP_NUM_THREADS"] == "2"
    assert ("CUDA_HOME" in env) == bool(identify)  # a path: recorded only with --identify, as on a live run


def test_a_foreign_report_with_a_non_text_variable_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data: dict[str, Any] = json.loads(REPORT.read_text())
    data["probe"]["software"]["env"] = {"AWS_SECRET_ACCESS_KEY": "planted-secret", "COUNT": 3}
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(data))
    assert main(["report", "--from-json", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "probe.software.env.COUNT" in captured.err and "planted-secret" not in captured.err


@pytest.mark.parametrize(("yaml", "field"), [
    ("team:\n  horizon_months: 1e-300\n", "horizon_months"),
    ("team:\n  size: true\n", "size"),
    ("fleet:\n  - hardware: nvidia_cuda\n    compute_capability: '0.0'\n", "fleet"),
    ("fleet:\n  - hardware: cpu\n    compute_capability: '8.0'\n", "fleet"),
])
def test_absurd_but_well_typed_profile_values_are_one_line(tmp_path: Path, yaml: str, field: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(yaml)
    assert main(["profile", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and field in err and str(path) in err
