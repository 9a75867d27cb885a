"""What the probe JSON says about the machine: backends, driver and CUDA versions, Python, a summary line.

The probe is read as plain JSON (the `fwadvisor.probe/1` shape, see `advisor/evidence/probe.py`),
defensively: a report from another version, or one with sections missing, yields "unknown".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from advisor.knowledge.schema import Hardware

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


def _get(data: Any, *keys: str) -> Any:
    """`data[k1][k2]...`, or None where any level is missing or not a mapping."""
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _version_tuple(value: Any) -> tuple[int, int] | None:
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
                return _version_tuple(int(m.group(1)))
            return int(m.group(1)), int(m.group(2) or 0)
    return None


def cuda_driver_version(probe: Mapping[str, Any]) -> tuple[int, int] | None:
    """The newest CUDA version the installed NVIDIA driver supports, from the probe; None if unknown."""
    gpus = _get(probe, "gpus") or {}
    devices = gpus.get("devices") if isinstance(gpus, Mapping) else None
    first = devices[0] if isinstance(devices, list) and devices and isinstance(devices[0], Mapping) else {}
    for holder in (gpus, first, _get(probe, "software") or {}):
        if not isinstance(holder, Mapping):
            continue
        for key in ("cuda_driver_version", "cuda_driver", "driver_cuda_version", "cuda_version"):
            found = _version_tuple(holder.get(key))
            if found:
                return found
    # Only the driver's own version: the oldest driver each CUDA major needs tells the newest major it runs.
    for holder in (gpus, first):
        if not isinstance(holder, Mapping):
            continue
        driver = holder.get("driver_version")
        if isinstance(driver, str):
            m = re.match(r"\s*(\d+)(?:\.(\d+))?", driver)
            if m:
                number = float(f"{m.group(1)}.{m.group(2) or 0}")
                for major, minimum in _DRIVER_MIN_FOR_CUDA:
                    if number >= minimum:
                        return major, 0
    return None


def driver_version(probe: Mapping[str, Any]) -> str | None:
    """The NVIDIA driver version string from the probe, if any."""
    gpus = _get(probe, "gpus") or {}
    devices = gpus.get("devices") if isinstance(gpus, Mapping) else None
    first = devices[0] if isinstance(devices, list) and devices and isinstance(devices[0], Mapping) else {}
    for holder in (gpus, first):
        if isinstance(holder, Mapping) and isinstance(holder.get("driver_version"), str):
            return str(holder["driver_version"])
    return None


def detect_backends(probe: Mapping[str, Any]) -> list[Detected]:
    """Every accelerator backend the probe found, in install-preference order; the CPU is always last."""
    found: dict[Hardware, str] = {}
    devices = _get(probe, "gpus", "devices")
    if isinstance(devices, list) and devices:
        names = [str(d.get("name", "NVIDIA GPU")) for d in devices if isinstance(d, Mapping)]
        found[Hardware.NVIDIA_CUDA] = _count_names(names) or f"{len(devices)} NVIDIA GPU(s)"
    for key, hw in _ACCEL_KEYS:
        entry = _get(probe, "accelerators", key)
        if isinstance(entry, Mapping) and entry.get("present") is True:
            found[hw] = str(entry.get("detail") or HARDWARE_LABELS[hw])
    ordered = [Detected(hw, found[hw]) for hw in _PREFERENCE if hw in found]
    model = _get(probe, "cpu", "model")
    ordered.append(Detected(Hardware.CPU, str(model) if model else "CPU"))
    return ordered


def _count_names(names: Sequence[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n}x {name}" if n > 1 else name for name, n in counts.items())


def python_version(probe: Mapping[str, Any]) -> str | None:
    """The Python minor version ("3.12") from the probe, or None if it is not there."""
    value = _get(probe, "software", "python")
    if isinstance(value, Mapping):
        value = value.get("version")
    if isinstance(value, str):
        m = re.match(r"\s*(?:CPython\s+|Python\s+)?(\d+)\.(\d+)", value, re.IGNORECASE)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def machine_summary(probe: Mapping[str, Any]) -> dict[str, Any]:
    """The facts about the machine a checklist (and the team table) shows; "unknown" where the probe is silent."""
    detected = detect_backends(probe)
    cuda = cuda_driver_version(probe)
    python_full = _get(probe, "software", "python")
    if isinstance(python_full, Mapping):
        python_full = python_full.get("version")
    return {
        "os": _str_or_unknown(_get(probe, "software", "os")),
        "python": _str_or_unknown(python_full),
        "cpu": _str_or_unknown(_get(probe, "cpu", "model")),
        "arch": _str_or_unknown(_get(probe, "cpu", "arch")),
        "usable_cores": _get(probe, "cpu", "usable_cores"),
        "memory_total_bytes": _get(probe, "memory", "total_bytes"),
        "accelerators": [{"backend": d.backend.value, "detail": d.detail} for d in detected[:-1]],
        "gpu_status": _get(probe, "gpus", "status"),
        "nvidia_driver": driver_version(probe),
        "cuda_driver": f"{cuda[0]}.{cuda[1]}" if cuda else None,
    }


def _str_or_unknown(value: Any) -> str:
    return str(value) if value not in (None, "") else "unknown"


def machine_line(machine: Mapping[str, Any]) -> str:
    """One line describing a machine summary (for Markdown)."""
    labels = {hw.value: label for hw, label in HARDWARE_LABELS.items()}
    accel = ", ".join(
        f"{a['detail']} ({labels[a['backend']]})"
        for a in machine.get("accelerators", [])
        if isinstance(a, Mapping) and a.get("backend") in labels
    )
    parts = [
        f"{machine.get('os', 'unknown')}",
        f"Python {machine.get('python', 'unknown')}",
        f"CPU {machine.get('cpu', 'unknown')}",
        accel or "no accelerator found",
    ]
    if machine.get("cuda_driver"):
        parts.append(f"driver supports CUDA {machine['cuda_driver']}")
    return "; ".join(parts)


def team_hardware_of(report: Mapping[str, Any]) -> list[str]:
    """The hardware ids a saved report's profile must run on: `must_run_on`, then its fleet's (untrusted JSON)."""
    known = {hw.value for hw in Hardware}
    profile = report.get("profile") if isinstance(report, Mapping) else None
    required = _get(profile, "constraints", "must_run_on")
    fleet = _get(profile, "as_written", "fleet")
    out = [h for h in required if isinstance(h, str)] if isinstance(required, list) else []
    if isinstance(fleet, list):
        out += [str(e.get("hardware")) for e in fleet if isinstance(e, Mapping) and isinstance(e.get("hardware"), str)]
    return [h for h in dict.fromkeys(out) if h in known]
