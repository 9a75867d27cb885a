"""Accelerators other than NVIDIA GPUs: Google TPU, AMD (ROCm), Apple MPS, Intel XPU, Huawei Ascend.

Each check looks only for cheap markers (device files, tools on PATH, environment variables,
the platform); none imports a framework. Whether a framework can really use the device is the
framework probe's job (JAX lists TPU devices, PyTorch reports `torch.backends.mps`, ...). Every
accelerator answers `present` with the evidence it saw, or says plainly that it is not present.
"""

from __future__ import annotations

import glob
import os
import platform
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic.dataclasses import dataclass as model


@model
class AcceleratorStatus:
    """Whether one kind of accelerator is present, and what showed it (one entry of the probe's `accelerators`)."""

    present: bool
    detail: str
    evidence: list[str] = Field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AcceleratorStatus:
        """A saved entry (an older or hand-written one may lack `detail` or `evidence`)."""
        return cls(bool(data.get("present")), str(data.get("detail", "")), list(data.get("evidence") or []))


@dataclass
class Probe:
    """The seams the checks read the system through (tests replace them)."""

    root: Path = Path("/")
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    which: Callable[[str], str | None] = shutil.which
    system: str = field(default_factory=platform.system)
    machine: str = field(default_factory=platform.machine)

    def glob(self, pattern: str) -> list[str]:
        """Paths under `root` that match an absolute pattern, shown as absolute paths."""
        base = str(self.root).rstrip("/")
        return sorted(p[len(base) :] if base else p for p in glob.glob(base + pattern))

    def exists(self, path: str) -> bool:
        """Whether an absolute path exists under `root`."""
        return (self.root / path.lstrip("/")).exists()

    def read(self, path: str) -> str | None:
        """A small file's text under `root`, or None."""
        try:
            return (self.root / path.lstrip("/")).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None


def _status(evidence: list[str], name: str, absent: str) -> AcceleratorStatus:
    if evidence:
        return AcceleratorStatus(True, f"{name}: " + "; ".join(evidence[:4]), evidence)
    return AcceleratorStatus(False, absent, [])


def probe_tpu(p: Probe) -> AcceleratorStatus:
    """TPU VM markers: /dev/accel* or /dev/vfio devices with a Google TPU PCI id, TPU_* variables, libtpu."""
    evidence: list[str] = []
    accel = p.glob("/dev/accel*")
    if accel:
        evidence.append(f"device files {', '.join(accel[:4])}")
    # TPU v5e/v6e VMs expose the chips through VFIO; Google's PCI vendor id is 0x1ae0.
    google_pci = [
        d for d in p.glob("/sys/bus/pci/devices/*") if (p.read(d + "/vendor") or "").strip().lower() == "0x1ae0"
    ]
    if google_pci:
        evidence.append(f"{len(google_pci)} Google PCI device(s) (vendor 0x1ae0)")
    if p.glob("/dev/vfio/[0-9]*") and google_pci:
        evidence.append("VFIO device files")
    tpu_env = sorted(k for k in p.env if k.startswith("TPU_") or k == "PJRT_DEVICE" and p.env[k].upper() == "TPU")
    if tpu_env:
        evidence.append(f"environment {', '.join(tpu_env[:4])}")
    return _status(evidence, "TPU", "not present (no /dev/accel*, no Google TPU PCI device, no TPU_* variables)")


def probe_rocm(p: Probe) -> AcceleratorStatus:
    """AMD GPUs: the ROCm kernel interface /dev/kfd, amd-smi or rocm-smi on PATH."""
    evidence: list[str] = []
    if p.exists("/dev/kfd"):
        evidence.append("/dev/kfd (ROCm kernel driver)")
    for tool in ("amd-smi", "rocm-smi"):
        found = p.which(tool)
        if found:
            evidence.append(f"{tool} on PATH")
    # Tools alone (a ROCm install in a container without the device) do not make a GPU present.
    present = p.exists("/dev/kfd")
    if present:
        return AcceleratorStatus(True, "AMD GPU (ROCm): " + "; ".join(evidence), evidence)
    if evidence:
        return AcceleratorStatus(False, "not present: ROCm tools found but no /dev/kfd device", evidence)
    return AcceleratorStatus(False, "not present (no /dev/kfd, no amd-smi or rocm-smi)", [])


def probe_apple_mps(p: Probe) -> AcceleratorStatus:
    """Apple Silicon GPU (Metal / MPS): macOS on arm64; the PyTorch probe reports torch.backends.mps."""
    if p.system == "Darwin" and p.machine == "arm64":
        return AcceleratorStatus(True, "Apple Silicon GPU (Metal): macOS on arm64", ["platform Darwin arm64"])
    return AcceleratorStatus(False, f"not present (platform is {p.system} {p.machine}, not macOS on Apple Silicon)")


def probe_intel_xpu(p: Probe) -> AcceleratorStatus:
    """Intel GPUs: a /dev/dri render node whose PCI vendor is Intel (0x8086); frameworks confirm XPU use."""
    evidence: list[str] = []
    for card in p.glob("/sys/class/drm/renderD*"):
        vendor = (p.read(card + "/device/vendor") or "").strip().lower()
        if vendor == "0x8086":
            evidence.append(f"{card.rsplit('/', 1)[-1]} is an Intel GPU (PCI vendor 0x8086)")
    if p.which("xpu-smi"):
        evidence.append("xpu-smi on PATH")
    if any("Intel GPU" in e for e in evidence):
        return AcceleratorStatus(True, "Intel GPU: " + "; ".join(evidence), evidence)
    if p.glob("/dev/dri/renderD*"):
        return AcceleratorStatus(False, "not present: /dev/dri render nodes exist but none is an Intel GPU", evidence)
    return AcceleratorStatus(False, "not present (no Intel GPU render node in /dev/dri)", evidence)


def probe_ascend(p: Probe) -> AcceleratorStatus:
    """Huawei Ascend NPUs: /dev/davinci* device files, npu-smi on PATH."""
    evidence: list[str] = []
    devices = [d for d in p.glob("/dev/davinci*") if d.rsplit("davinci", 1)[-1].isdigit()]
    if devices:
        evidence.append(f"{len(devices)} /dev/davinci device(s)")
    if p.which("npu-smi"):
        evidence.append("npu-smi on PATH")
    if devices:
        return AcceleratorStatus(True, "Huawei Ascend NPU: " + "; ".join(evidence), evidence)
    if evidence:
        return AcceleratorStatus(False, "not present: npu-smi found but no /dev/davinci device", evidence)
    return AcceleratorStatus(False, "not present (no /dev/davinci*, no npu-smi)", [])


def probe_accelerators(probe: Probe | None = None) -> dict[str, AcceleratorStatus]:
    """All non-NVIDIA accelerators, keyed as the probe schema names them."""
    p = probe or Probe()
    checks = {
        "tpu": probe_tpu,
        "rocm": probe_rocm,
        "apple_mps": probe_apple_mps,
        "intel_xpu": probe_intel_xpu,
        "ascend": probe_ascend,
    }
    out: dict[str, AcceleratorStatus] = {}
    for key, check in checks.items():
        try:
            out[key] = check(p)
        except Exception as exc:  # noqa: BLE001 - one odd system file must not hide the others
            out[key] = AcceleratorStatus(False, f"unknown: the check failed ({type(exc).__name__}: {exc})")
    if sys.platform == "win32":
        for status in out.values():
            if not status.present:
                status.detail += " [device-file checks do not apply on Windows]"
    return out
