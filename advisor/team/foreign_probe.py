"""A report file's probe section, of any version or shape, read once into the `ProbeReport` model.

`team merge`, `checklist --report` and the fleet summary read report files from other machines and
other advisor versions. A field that is missing or of the wrong type here becomes unknown (None, or
"unknown" for text), never an exception, so one odd field costs only that fact; `ProbeReport.from_json`
is the strict reader for the advisor's own saved reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from advisor.checklist.machine import version_tuple
from advisor.evidence.hardware.accelerators import AcceleratorStatus
from advisor.evidence.hardware.cpu import CpuInfo
from advisor.evidence.hardware.memory import MemoryInfo
from advisor.evidence.hardware.nvidia import GpuDevice, GpuReport
from advisor.evidence.hardware.software import SoftwareInfo
from advisor.evidence.probe import ProbeReport
from advisor.evidence.probe_frameworks import FrameworkProbe

#: Where older advisors and hand-written probes put the newest CUDA the driver supports, in the order read.
_CUDA_KEYS = ("cuda_driver_version", "cuda_driver", "driver_cuda_version", "cuda_version")


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str:
    """Text as the file has it; "unknown" where it has none."""
    return str(value) if value not in (None, "") else "unknown"


def _opt_text(value: Any) -> str | None:
    return str(value) if value else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cuda_text(value: Any) -> str | None:
    """"major.minor" from "12.4", NVML's integer 12040, or [12, 4]; None if unreadable."""
    found = version_tuple(value)
    return None if found is None else f"{found[0]}.{found[1]}"


def _gpus(raw: Mapping[str, Any], software: Mapping[str, Any]) -> GpuReport:
    listed = raw.get("devices")
    devices = listed if isinstance(listed, list) else []
    first = _map(devices[0]) if devices else {}
    cuda = next((c for holder in (raw, first, software) for key in _CUDA_KEYS
                 if (c := _cuda_text(holder.get(key))) is not None), None)
    driver = next((d for holder in (raw, first) if isinstance(d := holder.get("driver_version"), str)), None)
    return GpuReport(
        status=_text(raw.get("status")), message=_text(raw.get("message")),
        devices=[GpuDevice(index=i, cuda_index=None, pci_bus_id=None, name=_opt_text(_map(d).get("name")))
                 for i, d in enumerate(devices)],
        driver_version=driver, cuda_driver_version=cuda,
    )


def _python(software: Mapping[str, Any]) -> str:
    value = software.get("python")
    return _text(value.get("version") if isinstance(value, Mapping) else value)


def _framework(fid: str, raw: Mapping[str, Any]) -> FrameworkProbe:
    devices = raw.get("devices")
    accelerator_ok = raw.get("accelerator_ok")
    return FrameworkProbe(
        id=fid, installed=bool(raw.get("installed")), distribution=_opt_text(raw.get("distribution")),
        version=_opt_text(raw.get("version")), outcome=_text(raw.get("outcome")),
        devices=[dict(d) for d in devices if isinstance(d, Mapping)] if isinstance(devices, list) else [],
        accelerator_ok=accelerator_ok if isinstance(accelerator_ok, bool) else None,
    )


def lenient_probe(raw: Mapping[str, Any]) -> ProbeReport:
    """The probe JSON of a report file as the model; whatever is missing or malformed is unknown."""
    cpu, memory, software = _map(raw.get("cpu")), _map(raw.get("memory")), _map(raw.get("software"))
    gpus = raw.get("gpus")
    accelerators = _map(raw.get("accelerators"))
    frameworks = _map(raw.get("frameworks"))
    return ProbeReport(
        cpu=CpuInfo(vendor=_text(cpu.get("vendor")), model=_text(cpu.get("model")), arch=_text(cpu.get("arch")),
                    physical_cores=_count(cpu.get("physical_cores")), logical_cores=_count(cpu.get("logical_cores")),
                    usable_cores=_count(cpu.get("usable_cores")), affinity_cores=None, cgroup_quota_cpus=None,
                    usable_physical_cores=None, base_mhz=None, max_mhz=None, current_mhz=None),
        memory=MemoryInfo(total_bytes=_count(memory.get("total_bytes")), available_bytes=None,
                          cgroup_limit_bytes=None, swap_total_bytes=None, effective_bytes=None),
        # No NVIDIA section reads as `ProbeReport.from_json` reads it: status "unknown".
        gpus=_gpus(_map(gpus), software),
        accelerators={str(k): AcceleratorStatus(present=v.get("present") is True,
                                                detail=_opt_text(v.get("detail")) or "")
                      for k, v in accelerators.items() if isinstance(v, Mapping)},
        software=SoftwareInfo(os=_text(software.get("os")), kernel=None, libc=None, python=_python(software),
                              python_implementation="unknown", env_kind="unknown", pip=None, cuda_toolkit=None,
                              cudnn=None),
        frameworks={str(k): _framework(str(k), v) for k, v in frameworks.items() if isinstance(v, Mapping)},
        requirements=[], created=_text(raw.get("created")), fast=raw.get("fast") is True,
        identify=raw.get("identify") is True, wall_s=0.0,
    )
