"""What the probe says about the machine: backends, driver and CUDA versions, Python, a summary line.

The probe is the `ProbeReport` model: a live probe, or a report file read at its edge
(`advisor.team.saved_report`), where what an older or foreign file lacks became unknown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict  # pydantic reads it on Python 3.11 (the checklist model holds one)

from advisor.knowledge.schema import Hardware

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport

HARDWARE_LABELS: dict[Hardware, str] = {
    Hardware.CPU: "CPU",
    Hardware.NVIDIA_CUDA: "NVIDIA CUDA",
    Hardware.AMD_ROCM: "AMD ROCm",
    Hardware.GOOGLE_TPU: "Google TPU",
    Hardware.APPLE_METAL: "Apple Metal",
    Hardware.HUAWEI_ASCEND: "Huawei Ascend",
    Hardware.INTEL_GPU: "Intel GPU",
    Hardware.AWS_NEURON: "AWS Trainium/Inferentia (Neuron)",
    Hardware.NVIDIA_JETSON: "NVIDIA Jetson (JetPack)",
}

#: What the verify step should see, in words a newcomer recognises.
DEVICE_NOUNS: dict[Hardware, str] = {
    Hardware.CPU: "CPU",
    Hardware.NVIDIA_CUDA: "NVIDIA GPU",
    Hardware.AMD_ROCM: "AMD GPU",
    Hardware.GOOGLE_TPU: "TPU",
    Hardware.APPLE_METAL: "Apple GPU (Metal)",
    Hardware.HUAWEI_ASCEND: "Ascend NPU",
    Hardware.INTEL_GPU: "Intel GPU",
    Hardware.AWS_NEURON: "Neuron device (Trainium/Inferentia)",
    Hardware.NVIDIA_JETSON: "Jetson GPU",
}

#: Probe accelerator keys -> hardware ids (the mapping in docs/contracts: scoring uses the same one).
_ACCEL_KEYS: tuple[tuple[str, Hardware], ...] = (
    ("tpu", Hardware.GOOGLE_TPU),
    ("rocm", Hardware.AMD_ROCM),
    ("apple_mps", Hardware.APPLE_METAL),
    ("intel_xpu", Hardware.INTEL_GPU),
    ("ascend", Hardware.HUAWEI_ASCEND),
)

#: Which backend to install for when a machine has several: the dedicated accelerator first.
_PREFERENCE: tuple[Hardware, ...] = (
    Hardware.GOOGLE_TPU,
    Hardware.AWS_NEURON,
    Hardware.NVIDIA_CUDA,
    Hardware.NVIDIA_JETSON,
    Hardware.AMD_ROCM,
    Hardware.APPLE_METAL,
    Hardware.HUAWEI_ASCEND,
    Hardware.INTEL_GPU,
)

#: Oldest Linux driver (R-series) that supports each CUDA major, from NVIDIA's CUDA toolkit release notes
#: (table 3, "CUDA Toolkit and Minimum Required Driver Version"). Used only when the probe reports the
#: driver version but not the CUDA version the driver supports.
_DRIVER_MIN_FOR_CUDA: tuple[tuple[int, float], ...] = ((13, 580.0), (12, 525.60), (11, 450.80))


@dataclass(frozen=True)
class Detected:
    """A hardware backend the probe found, with what it saw."""

    backend: Hardware
    detail: str


def version_tuple(value: Any) -> tuple[int, int] | None:
    """(major, minor) from "12.4", "12040" (NVML's integer form), 12040 or (12, 4); None if unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value) or value < 0:  # json.loads accepts Infinity and NaN
            return None
        number = int(value)
        return (number // 1000, (number % 1000) // 10) if number >= 1000 else (number, 0)
    if isinstance(value, list | tuple) and value and all(isinstance(v, int) for v in value):
        return int(value[0]), int(value[1]) if len(value) > 1 else 0
    if isinstance(value, str):
        m = re.match(r"\s*(\d+)(?:\.(\d+))?", value)
        if m:
            if m.group(2) is None and len(m.group(1)) >= 4:
                return version_tuple(int(m.group(1)))
            return int(m.group(1)), int(m.group(2) or 0)
    return None


class SeenAccelerator(TypedDict):
    """One accelerator backend in a machine summary: its hardware id and what the probe saw."""

    backend: str
    detail: str


class MachineSummary(TypedDict):
    """The facts about a machine a checklist and the team table show; "unknown" or None where the probe is silent."""

    os: str
    python: str
    cpu: str
    arch: str
    usable_cores: int | None
    memory_total_bytes: int | None
    accelerators: list[SeenAccelerator]
    gpu_status: str | None
    nvidia_driver: str | None
    cuda_driver: str | None


#: `GpuReport.status` of a probe without an NVIDIA section (see `ProbeReport.from_json`).
_NO_GPU_SECTION = "unknown"


def cuda_driver_version(probe: ProbeReport | None) -> tuple[int, int] | None:
    """The newest CUDA version the installed NVIDIA driver supports, from the probe; None if unknown."""
    if probe is None:
        return None
    found = version_tuple(probe.gpus.cuda_driver_version)
    if found:
        return found
    # Only the driver's own version: the oldest driver each CUDA major needs tells the newest major it runs.
    driver = probe.gpus.driver_version
    if isinstance(driver, str):
        m = re.match(r"\s*(\d+)(?:\.(\d+))?", driver)
        if m:
            number = float(f"{m.group(1)}.{m.group(2) or 0}")
            for major, minimum in _DRIVER_MIN_FOR_CUDA:
                if number >= minimum:
                    return major, 0
    return None


def driver_version(probe: ProbeReport | None) -> str | None:
    """The NVIDIA driver version string from the probe, if any."""
    return None if probe is None else probe.gpus.driver_version


def detect_backends(probe: ProbeReport | None) -> list[Detected]:
    """Every accelerator backend the probe found, in install-preference order; the CPU is always last."""
    found: dict[Hardware, str] = {}
    if probe is not None:
        devices = probe.gpus.devices
        if devices:
            names = [d.name or "NVIDIA GPU" for d in devices]
            found[Hardware.NVIDIA_CUDA] = _count_names(names) or f"{len(devices)} NVIDIA GPU(s)"
        for key, hw in _ACCEL_KEYS:
            entry = probe.accelerators.get(key)
            if entry is not None and entry.present:
                found[hw] = entry.detail or HARDWARE_LABELS[hw]
    ordered = [Detected(hw, found[hw]) for hw in _PREFERENCE if hw in found]
    model = None if probe is None else probe.cpu.model
    ordered.append(Detected(Hardware.CPU, model if model and model != "unknown" else "CPU"))
    return ordered


def _count_names(names: Sequence[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n}x {name}" if n > 1 else name for name, n in counts.items())


def python_version(probe: ProbeReport | None) -> str | None:
    """The Python minor version ("3.12") from the probe, or None if it is not there."""
    if probe is None:
        return None
    m = re.match(r"\s*(?:CPython\s+|Python\s+)?(\d+)\.(\d+)", probe.software.python, re.IGNORECASE)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def machine_summary(probe: ProbeReport | None) -> MachineSummary:
    """The facts about the machine a checklist (and the team table) shows; "unknown" where the probe is silent."""
    if probe is None:
        return MachineSummary(os="unknown", python="unknown", cpu="unknown", arch="unknown", usable_cores=None,
                              memory_total_bytes=None, accelerators=[], gpu_status=None, nvidia_driver=None,
                              cuda_driver=None)
    detected = detect_backends(probe)
    cuda = cuda_driver_version(probe)
    status = probe.gpus.status
    return MachineSummary(
        os=_str_or_unknown(probe.software.os),
        python=_str_or_unknown(probe.software.python),
        cpu=_str_or_unknown(probe.cpu.model),
        arch=_str_or_unknown(probe.cpu.arch),
        usable_cores=probe.cpu.usable_cores,
        memory_total_bytes=probe.memory.total_bytes,
        accelerators=[SeenAccelerator(backend=d.backend.value, detail=d.detail) for d in detected[:-1]],
        gpu_status=None if status == _NO_GPU_SECTION else status,
        nvidia_driver=driver_version(probe),
        cuda_driver=f"{cuda[0]}.{cuda[1]}" if cuda else None,
    )


def _str_or_unknown(value: str | None) -> str:
    return value or "unknown"


def machine_line(machine: MachineSummary) -> str:
    """One line describing a machine summary (for Markdown)."""
    labels = {hw.value: label for hw, label in HARDWARE_LABELS.items()}
    accel = ", ".join(
        f"{a['detail']} ({labels[a['backend']]})" for a in machine["accelerators"] if a["backend"] in labels
    )
    parts = [
        machine["os"],
        f"Python {machine['python']}",
        f"CPU {machine['cpu']}",
        accel or "no accelerator found",
    ]
    if machine["cuda_driver"]:
        parts.append(f"driver supports CUDA {machine['cuda_driver']}")
    return "; ".join(parts)
