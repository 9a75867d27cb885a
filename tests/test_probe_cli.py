"""`fwadvisor probe` as a real subprocess: --fast --json is valid JSON with the contract's keys, errors exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KEYS = {"schema", "cpu", "memory", "gpus", "accelerators", "software", "frameworks", "requirements"}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "advisor", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
        check=False,
    )


def test_fast_json_has_contract_keys(cli_env: dict[str, str]) -> None:
    proc = _run(["probe", "--fast", "--json"], cli_env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # all of stdout is one JSON document
    assert KEYS <= set(data)
    assert data["schema"] == "fwadvisor.probe/1"
    assert {"vendor", "model", "arch", "physical_cores", "logical_cores", "usable_cores", "flags", "peak"} <= set(
        data["cpu"]
    )
    assert {"total_bytes", "available_bytes", "cgroup_limit_bytes", "swap_total_bytes"} <= set(data["memory"])
    assert data["gpus"]["status"] in {"ok", "no_library", "no_driver", "no_gpu", "error"}
    assert isinstance(data["gpus"]["message"], str) and isinstance(data["gpus"]["devices"], list)
    for acc in data["accelerators"].values():
        assert isinstance(acc["present"], bool) and acc["detail"]
    assert {"os", "libc", "python", "env_kind", "cuda_toolkit", "cudnn", "env"} <= set(data["software"])
    for fw in data["frameworks"].values():
        assert fw["outcome"] in {"skipped", "missing"}  # --fast imports nothing
        assert {"installed", "distribution", "version", "error", "import_s", "devices", "accelerator_ok", "build",
                "threads"} <= set(fw)
    for req in data["requirements"]:
        assert {"framework", "check", "ok", "detail"} <= set(req)


def test_unknown_framework_is_bad_usage(cli_env: dict[str, str]) -> None:
    proc = _run(["probe", "--json", "--framework", "notaframework"], cli_env)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "notaframework" in proc.stderr and proc.stderr.count("\n") == 1


def test_bad_timeout_is_bad_usage(cli_env: dict[str, str]) -> None:
    proc = _run(["probe", "--timeout", "0"], cli_env)
    assert proc.returncode == 2 and "--timeout" in proc.stderr


def test_tables_render_without_a_terminal(cli_env: dict[str, str]) -> None:
    proc = _run(["probe", "--fast"], {**cli_env, "COLUMNS": "160"})
    assert proc.returncode == 0, proc.stderr
    for title in ("CPU", "Memory", "NVIDIA GPUs", "Other accelerators", "Software", "Frameworks"):
        assert title in proc.stdout
    assert "GFLOP/s" in proc.stdout


def test_identify_adds_host_details(cli_env: dict[str, str]) -> None:
    plain = json.loads(_run(["probe", "--fast", "--json"], cli_env).stdout)
    named = json.loads(_run(["probe", "--fast", "--json", "--identify"], cli_env).stdout)
    assert plain["software"]["hostname"] is None and plain["software"]["python_executable"] is None
    assert named["identify"] is True and named["software"]["python_executable"]
