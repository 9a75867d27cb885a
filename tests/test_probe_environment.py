"""Accelerator markers (against a fake filesystem root), software parsers, privacy, and the requirement checks."""

from __future__ import annotations

import json
from pathlib import Path

from advisor.evidence.hardware.accelerators import Probe, probe_accelerators
from advisor.evidence.hardware.nvidia import GpuReport
from advisor.evidence.hardware.requirements import (
    CUDA_MIN_DRIVER_SOURCE,
    Requirement,
    RequirementCode,
    check_all,
    check_cuda_driver,
    check_python,
    cuda_from_torch_version,
)
from advisor.evidence.hardware.software import ENV_REPORTED, parse_cudnn_header, parse_nvcc_version, probe_software
from advisor.evidence.probe import FrameworkProbe, ProbeReport, hardware_ids
from advisor.jsonio import json_text, model_json


def _probe(root: Path, tools: tuple[str, ...] = (), env: dict[str, str] | None = None, system: str = "Linux",
           machine: str = "x86_64") -> Probe:
    return Probe(root=root, env=env or {}, which=lambda t: f"/usr/bin/{t}" if t in tools else None, system=system,
                 machine=machine)


def _touch(root: Path, rel: str, text: str = "") -> None:
    path = root / rel.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_bare_root_reports_every_accelerator_absent(tmp_path: Path) -> None:
    found = probe_accelerators(_probe(tmp_path))
    assert set(found) == {"tpu", "rocm", "apple_mps", "intel_xpu", "ascend"}
    for status in found.values():
        assert status.present is False
        assert status.detail.startswith("not present")


def test_tpu_vm_markers(tmp_path: Path) -> None:
    _touch(tmp_path, "/dev/accel0")
    _touch(tmp_path, "/sys/bus/pci/devices/0000:00:04.0/vendor", "0x1ae0\n")
    tpu = probe_accelerators(_probe(tmp_path, env={"TPU_ACCELERATOR_TYPE": "v5litepod-8"}))["tpu"]
    assert tpu.present
    assert any("/dev/accel0" in e for e in tpu.evidence)
    assert any("TPU_ACCELERATOR_TYPE" in e for e in tpu.evidence)


def test_rocm_needs_the_device_not_just_tools(tmp_path: Path) -> None:
    tools_only = probe_accelerators(_probe(tmp_path, tools=("rocm-smi",)))["rocm"]
    assert not tools_only.present and "no /dev/kfd" in tools_only.detail
    _touch(tmp_path, "/dev/kfd")
    assert probe_accelerators(_probe(tmp_path, tools=("amd-smi",)))["rocm"].present


def test_intel_ascend_and_apple(tmp_path: Path) -> None:
    _touch(tmp_path, "/sys/class/drm/renderD128/device/vendor", "0x8086\n")
    _touch(tmp_path, "/dev/davinci0")
    _touch(tmp_path, "/dev/davinci_manager")
    found = probe_accelerators(_probe(tmp_path, tools=("npu-smi",), system="Darwin", machine="arm64"))
    assert found["intel_xpu"].present
    assert found["ascend"].present and "1 /dev/davinci device(s)" in found["ascend"].detail
    assert found["apple_mps"].present


def test_hardware_ids_mapping() -> None:
    accelerators = {"tpu": {"present": True}, "rocm": {"present": False}}
    probe = {"gpus": {"devices": [{"index": 0}]}, "accelerators": accelerators}
    # A hand-written probe with two sections only: the rest is read as unknown.
    assert hardware_ids(ProbeReport.from_json(probe)) == ["cpu", "nvidia_cuda", "google_tpu"]


def test_nvcc_and_cudnn_parsers() -> None:
    out = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, V13.0.88\n"
    assert parse_nvcc_version(out) == "13.0.88"
    assert parse_nvcc_version("Cuda compilation tools, release 12.4") == "12.4"
    header = "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"
    assert parse_cudnn_header(header) == "9.1.0"
    assert parse_cudnn_header("nothing") is None


def test_software_env_is_allow_listed() -> None:
    env = {"CUDA_VISIBLE_DEVICES": "0", "HOME": "/home/someone", "AWS_SECRET_ACCESS_KEY": "x", "CUDA_HOME": "/opt/c"}
    plain = probe_software(env=env)
    assert plain.env == {"CUDA_VISIBLE_DEVICES": "0"}
    assert plain.hostname is None and plain.user is None
    named = probe_software(env=env, identify=True)
    assert named.env == {"CUDA_VISIBLE_DEVICES": "0", "CUDA_HOME": "/opt/c"}
    assert "HOME" not in ENV_REPORTED


def test_python_requirement() -> None:
    assert check_python("jax", "3.12.3", ["3.11", "3.12"]).ok is True
    bad = check_python("jax", "3.10.1", ["3.11", "3.12"])
    assert bad.ok is False and "NOT" in bad.detail
    assert bad.code is RequirementCode.PYTHON and bad.facts == {"python": "3.10", "supported": "3.11, 3.12"}
    assert check_python("jax", "3.12.0", None).ok is None
    assert check_python("jax", "3.12.0", None, kb_loaded=False).detail.startswith("not checked")


def test_cuda_driver_requirement() -> None:
    assert cuda_from_torch_version("2.8.0+cu128") == "12.8"
    assert cuda_from_torch_version("2.9.0+cu130") == "13.0"
    assert cuda_from_torch_version("2.13.0+cpu") is None
    assert check_cuda_driver("pytorch", None, "no_driver", None, None) is None  # CPU build: nothing to check
    ok = check_cuda_driver("pytorch", "12.8", "ok", "570.86.15", "12.8")
    assert ok is not None and ok.ok is True and CUDA_MIN_DRIVER_SOURCE in ok.detail
    old = check_cuda_driver("pytorch", "13.0", "ok", "570.86.15", "12.8")
    assert old is not None and old.ok is False and ">= 580" in old.detail
    assert old.code is RequirementCode.CUDA_DRIVER and old.facts == {"cuda_build": "13.0", "need": 580,
                                                                    "driver": "570.86.15"}
    # Saved and read back, the codes and facts come back; a file from before them keeps its words.
    assert Requirement.from_json(json.loads(json_text(model_json(old)))) == old
    saved = Requirement.from_json({"framework": "jax", "check": "python", "ok": False, "detail": "old words"})
    assert saved.code is RequirementCode.NOTE and saved.detail == "old words"
    # Facts that do not fit their code (an edited file) read as its saved words, not as a traceback later.
    edited = Requirement.from_json({"framework": "jax", "check": "python", "ok": False, "detail": "kept",
                                    "code": "python", "facts": {}})
    assert edited.code is RequirementCode.NOTE and edited.facts == {} and edited.detail == "kept"
    no_driver = check_cuda_driver("jax", "12", "no_driver", None, None)
    assert no_driver is not None and no_driver.ok is False and "CPU only" in no_driver.detail
    minor = check_cuda_driver("pytorch", "12.8", "ok", "535.104.05", "12.2")
    assert minor is not None and minor.ok is True and "newer CUDA features" in minor.detail


def test_check_all_skips_missing_frameworks() -> None:
    frameworks = {
        "pytorch": FrameworkProbe("pytorch", True, "torch", "2.7.0", "ok", cuda_build="12.8"),
        "jax": FrameworkProbe("jax", False, None, None, "missing"),
    }
    gpus = GpuReport("ok", "", driver_version="570.86.15", cuda_driver_version="12.8")
    reqs = check_all(frameworks, "3.12.1", {"pytorch": ["3.12"]}, gpus)
    assert [(r.framework, r.check, r.ok) for r in reqs] == [
        ("pytorch", "python", True),
        ("pytorch", "cuda_driver", True),
    ]
