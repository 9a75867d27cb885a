"""The full probe on this machine with the real frameworks (one shared `fwadvisor probe --json` run).

TensorFlow's import alone costs ~8 s, so one CLI subprocess serves every test in this module; it
also proves that `--json` prints nothing but JSON on stdout.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.probe import ProbeReport, probe_frameworks
from advisor.frameworks.builtin import JaxAdapter, PyTorchAdapter
from advisor.jsonio import model_json

ROOT = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).parent / "fixtures" / "broken"

pytestmark = pytest.mark.frameworks


def _nvml_loadable() -> bool:
    name = ctypes.util.find_library("nvidia-ml") or "libnvidia-ml.so.1"
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def full_probe(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """(parsed JSON, stderr) of one real `python -m advisor probe --json` run."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["FWADVISOR_CONFIG_DIR"] = str(tmp_path_factory.mktemp("cfg"))
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "probe", "--json", "--timeout", "180"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=400, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout), proc.stderr  # the whole of stdout must be one JSON document


def test_full_probe_frameworks_versions_devices(full_probe: tuple[dict[str, Any], str]) -> None:
    data, _ = full_probe
    import importlib.metadata as md

    for fid, dist in (("pytorch", "torch"), ("jax", "jax"), ("tensorflow", None)):
        fw = data["frameworks"][fid]
        assert fw["outcome"] == "ok", fw
        assert fw["installed"] is True
        assert fw["import_s"] is not None and fw["import_s"] > 0
        assert any(d["kind"] == "cpu" for d in fw["devices"])
        if dist:
            assert fw["version"].split("+")[0] == md.version(dist).split("+")[0]
    assert data["frameworks"]["pytorch"]["threads"]["intra_op"] >= 1
    assert "mkldnn" in data["frameworks"]["pytorch"]["build"]
    assert data["frameworks"]["jax"]["build"]["backend"] in ("cpu", "gpu", "cuda", "rocm", "tpu")
    assert "is_cuda_build" in data["frameworks"]["tensorflow"]["build"]


def test_mlx_is_probed_with_its_version_and_cpu_device(full_probe: tuple[dict[str, Any], str]) -> None:
    """MLX (pinned by CI as mlx[cpu]): imported in its own child, its version and the devices mlx.core reports."""
    data, _ = full_probe
    import importlib.metadata as md

    fw = data["frameworks"]["mlx"]
    assert fw["outcome"] == "ok", fw
    assert fw["installed"] is True and fw["distribution"] == "mlx"
    assert fw["version"] == md.version("mlx")
    assert fw["import_s"] is not None and fw["import_s"] > 0
    cpus = [d for d in fw["devices"] if d["kind"] == "cpu"]
    assert cpus and cpus[0]["id"] == "cpu:0" and cpus[0]["name"]
    assert fw["build"]["default_device"].startswith("Device(")
    # A GPU back end (Metal or CUDA) shows as a gpu/mps device with its matmul checked; the CPU build has none.
    gpus = [d for d in fw["devices"] if d["kind"] != "cpu"]
    assert len(fw["accelerator_checks"]) == len(gpus)
    assert (fw["build"]["gpu_backend"] is None) == (not gpus)
    assert all(c["ok"] for c in fw["accelerator_checks"]), fw["accelerator_checks"]


def test_keras_3_is_probed_with_the_backend_it_runs_on(full_probe: tuple[dict[str, Any], str]) -> None:
    data, _ = full_probe
    import importlib.metadata as md

    try:
        version = md.version("keras")
    except md.PackageNotFoundError:
        pytest.skip("keras is not installed here")
    fw = data["frameworks"]["keras"]
    assert fw["outcome"] == "ok", fw
    assert fw["version"] == version
    # The backend is the one keras chose (KERAS_BACKEND or its config), with that backend's own version.
    backend = fw["build"]["backend"]
    assert backend in ("tensorflow", "jax", "torch")
    names = {"tensorflow": "tensorflow", "jax": "jax", "torch": "pytorch"}
    assert fw["build"]["backend_version"] == data["frameworks"][names[backend]]["version"]
    # Probed in its backend's child, after it, so that the backend is imported once (not twice) per probe.
    assert fw["probed_after"] == names[backend]
    assert data["frameworks"][names[backend]]["probed_after"] is None
    assert any(d["kind"] == "cpu" for d in fw["devices"])


def test_full_probe_machine_sections(full_probe: tuple[dict[str, Any], str]) -> None:
    data, _ = full_probe
    assert data["schema"] == "fwadvisor.probe/1"
    cpu = data["cpu"]
    assert cpu["usable_cores"] >= 1 and cpu["usable_cores"] <= (os.cpu_count() or 1)
    if cpu["arch"] == "x86_64":
        assert cpu["peak"]["fp32_gflops"] > 0 and "GFLOP/s" in cpu["peak"]["formula"]
    assert data["memory"]["total_bytes"] > 0
    if not _nvml_loadable():
        assert data["gpus"]["status"] == "no_driver"
        assert data["gpus"]["message"].startswith("no NVIDIA driver")
    assert set(data["accelerators"]) == {"tpu", "rocm", "apple_mps", "intel_xpu", "ascend"}
    assert {r["framework"] for r in data["requirements"]} >= {"pytorch", "jax", "tensorflow", "mlx"}
    # Saved probes read back unchanged.
    assert model_json(ProbeReport.from_json(data)) == data


def test_full_probe_privacy(full_probe: tuple[dict[str, Any], str]) -> None:
    data, _ = full_probe
    import getpass
    import platform

    text = json.dumps(data)
    host = platform.node()
    if host and len(host) > 3:
        assert host not in text
    assert data["software"]["hostname"] is None and data["software"]["user"] is None
    user = getpass.getuser()
    if len(user) > 3:
        assert f"/{user}/" not in text
    assert set(data["software"]["env"]) <= {
        "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES", "XLA_FLAGS", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION",
        "JAX_PLATFORMS", "JAX_ENABLE_X64", "TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS",
        "TF_FORCE_GPU_ALLOW_GROWTH", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
        "OPENBLAS_CORETYPE", "TPU_ACCELERATOR_TYPE", "PJRT_DEVICE", "ASCEND_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
        "KERAS_BACKEND", "PYTORCH_ENABLE_MPS_FALLBACK",
    }


def test_broken_torch_does_not_stop_real_jax() -> None:
    class SegfaultingTorch(PyTorchAdapter):
        def installed(self) -> tuple[str, str] | None:
            return ("torch-standin", "0.0.0")

    results = probe_frameworks(
        [SegfaultingTorch(), JaxAdapter()], timeout=120, envs={"pytorch": {"PYTHONPATH": str(BROKEN / "segfault")}}
    )
    assert results["pytorch"].outcome == "crashed" and results["pytorch"].signal == "SIGSEGV"
    assert results["jax"].outcome == "ok" and results["jax"].devices
