"""The probe: one honest picture of this machine and of each installed framework (`fwadvisor probe`).

Hardware and software facts are read in this process (no framework is ever imported here); each
framework is probed in its own child process, all of them in parallel threads, each with a
timeout, so a framework that hangs, crashes or prints garbage is reported as such and the others
still complete. Nothing leaves the machine.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import Field, field_serializer
from pydantic.dataclasses import dataclass

from advisor.evidence.hardware.accelerators import AcceleratorStatus, probe_accelerators
from advisor.evidence.hardware.cpu import CpuInfo, probe_cpu
from advisor.evidence.hardware.memory import MemoryInfo, probe_memory
from advisor.evidence.hardware.nvidia import GpuReport, normalize_bus_id, probe_nvidia
from advisor.evidence.hardware.requirements import Requirement, check_all
from advisor.evidence.hardware.software import SoftwareInfo, probe_software
from advisor.evidence.probe_frameworks import (  # noqa: F401 - re-exported: the probe's public names
    FrameworkProbe,
    ProbeEvent,
    from_child,
    probe_framework,
    probe_frameworks,
    probe_frameworks_cached,
    redact,
)

if TYPE_CHECKING:
    from advisor.frameworks.base import FrameworkAdapter
    from advisor.knowledge.base import KnowledgeBase

SCHEMA: Final = "fwadvisor.probe/1"


@dataclass
class ProbeReport:
    """The whole probe; its JSON form (`advisor.jsonio.model_json`) is the `probe` section of the report schema."""

    cpu: CpuInfo
    memory: MemoryInfo
    gpus: GpuReport
    accelerators: dict[str, AcceleratorStatus]
    software: SoftwareInfo
    frameworks: dict[str, FrameworkProbe]
    requirements: list[Requirement]
    created: str
    fast: bool
    identify: bool
    wall_s: float
    timings: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    schema: Literal["fwadvisor.probe/1"] = Field(default=SCHEMA, kw_only=True)

    @field_serializer("wall_s")
    def _wall(self, value: float) -> float:
        return round(value, 3)

    @field_serializer("timings")
    def _timings(self, value: dict[str, float]) -> dict[str, float]:
        return {k: round(v, 4) for k, v in value.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProbeReport:
        """Read a saved probe back; raises `ReportError` naming the field when it is not a probe of this schema.

        A section or field the file lacks (an older or hand-written probe) is read as unknown, see
        `advisor.evidence.hardware.saved`; a probe without a `schema` is taken as this schema.
        """
        from advisor.errors import ReportError

        if not isinstance(data, Mapping):
            raise ReportError(f"not a probe: expected an object, found {type(data).__name__}", field="probe")
        if data.get("schema", SCHEMA) != SCHEMA:
            raise ReportError(f"not a probe of schema {SCHEMA} (found {data.get('schema')!r})", field="probe.schema")
        name = "probe"
        try:
            name = "probe.cpu"
            cpu = CpuInfo.from_json(data.get("cpu") or {})
            name = "probe.memory"
            memory = MemoryInfo.from_json(data.get("memory") or {})
            name = "probe.gpus"
            gpus = GpuReport.from_json(data.get("gpus") or {"status": "unknown", "message": "not in the saved probe"})
            name = "probe.accelerators"
            accelerators = {k: AcceleratorStatus.from_json(v) for k, v in (data.get("accelerators") or {}).items()
                            if v is not None}
            name = "probe.software"
            software = SoftwareInfo.from_json(data.get("software") or {})
            name = "probe.frameworks"
            frameworks = {k: FrameworkProbe.from_json({"id": k, **v})
                          for k, v in (data.get("frameworks") or {}).items()}
            name = "probe.requirements"
            requirements = [Requirement.from_json(r) for r in data.get("requirements") or []]
            name = "probe"
            return cls(
                cpu=cpu, memory=memory, gpus=gpus, accelerators=accelerators, software=software,
                frameworks=frameworks, requirements=requirements,
                created=str(data.get("created", "")),
                fast=bool(data.get("fast")),
                identify=bool(data.get("identify")),
                wall_s=float(data.get("wall_s") or 0.0),
                timings={str(k): float(v) for k, v in (data.get("timings") or {}).items()},
                notes=[str(n) for n in data.get("notes") or []],
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReportError(f"malformed probe: {type(exc).__name__}: {exc}", field=name) from exc


def _select(frameworks: Sequence[str] | None) -> list[FrameworkAdapter]:
    from advisor.frameworks import adapters, get_adapter

    if frameworks:
        return [get_adapter(f) for f in dict.fromkeys(frameworks)]
    return list(adapters().values())


def _refine_cuda_order(gpus: GpuReport, frameworks: Mapping[str, FrameworkProbe]) -> None:
    """Where a framework listed its CUDA devices with PCI bus ids, take CUDA's numbering from it (it is exact)."""
    for fp in frameworks.values():
        seen = {
            normalize_bus_id(d["pci_bus_id"]): d["id"]
            for d in fp.devices
            if d.get("kind") == "gpu" and d.get("pci_bus_id") and str(d.get("id", "")).startswith("cuda:")
        }
        if not seen:
            continue
        for dev in gpus.devices:
            cuda_id = seen.get(dev.pci_bus_id or "")
            dev.cuda_index = int(cuda_id.split(":")[1]) if cuda_id else None
        gpus.cuda_order_basis = f"from {fp.id}'s CUDA device list, matched by PCI bus id"
        return


#: Framework device kinds that confirm an accelerator section (kind -> accelerators key).
_KIND_TO_ACCELERATOR = {"tpu": "tpu", "mps": "apple_mps", "xpu": "intel_xpu", "npu": "ascend"}


def _merge_framework_devices(
    accelerators: dict[str, AcceleratorStatus], frameworks: Mapping[str, FrameworkProbe]
) -> None:
    """A framework that lists a TPU, MPS, XPU or NPU device is the strongest evidence there is: record it."""
    for fp in frameworks.values():
        for dev in fp.devices:
            key = _KIND_TO_ACCELERATOR.get(str(dev.get("kind")))
            if key is None or key not in accelerators:
                continue
            status = accelerators[key]
            line = f"{fp.id} lists device {dev.get('id')} ({dev.get('name')})"
            if line in status.evidence:
                continue
            status.evidence.append(line)
            if not status.present:
                status.present = True
                status.detail = f"present: {line}"
            else:
                status.detail += f"; {line}"


def _python_versions(kb: KnowledgeBase | None, fast: bool, notes: list[str]) -> dict[str, list[str]] | None:
    if kb is None and fast:
        # Loading and validating the knowledge base costs most of a second, which --fast cannot afford.
        notes.append("--fast: knowledge base not loaded, so the Python-version checks are undecided")
        return None
    if kb is None:
        try:
            from advisor.knowledge import load_knowledge

            kb = load_knowledge()
        except Exception as exc:  # noqa: BLE001 - the probe is still useful without the knowledge base
            notes.append(f"knowledge base not loaded, requirement checks undecided: {exc}")
            return None
    return {fid: list(fw.python_versions) for fid, fw in kb.frameworks.items()}


def run_probe(
    *,
    fast: bool = False,
    identify: bool = False,
    frameworks: Sequence[str] | None = None,
    timeout: float = 60,
    on_event: Callable[[ProbeEvent], None] | None = None,
    cancel: threading.Event | None = None,
    kb: KnowledgeBase | None = None,
    fresh: bool = False,
    cache: bool = True,
    prober: Callable[..., dict[str, FrameworkProbe]] | None = None,
) -> ProbeReport:
    """Probe the machine and the frameworks; framework children run while the hardware is read.

    The framework part comes from the probe cache (`advisor.evidence.probe_cache`) where an entry
    matches this machine, environment and package versions; `fresh` probes again (and refreshes the
    cache), `cache=False` neither reads nor writes it.

    `frameworks` limits the framework probes to these ids (unknown ids raise `UsageError`);
    `timeout` bounds each child; `cancel` stops the children early (reported as `cancelled`).
    `kb` supplies the knowledge base for the requirement checks; when None it is loaded, except
    with `fast`, where the checks that need it are left undecided (loading it costs most of a second).
    `prober` replaces the framework children (and the cache) when not `fast`: called with the adapters and
    `timeout`, `on_event`, `cancel` (`bench.shared.SharedChildren.probe`: children that stay up to benchmark).
    """
    start = time.perf_counter()
    emit = on_event or (lambda _e: None)
    adapters = _select(frameworks)
    # An event of our own when none is given, so an interrupt (Ctrl-C) can still stop the children.
    cancel = cancel if cancel is not None else threading.Event()
    timings: dict[str, float] = {}
    notes: list[str] = []
    fw_result: dict[str, FrameworkProbe] = {}

    def run_frameworks() -> None:
        t = time.perf_counter()
        if prober is not None and not fast:
            fw_result.update(prober(adapters, timeout=timeout, on_event=on_event, cancel=cancel))
        elif fast or not cache:
            fw_result.update(probe_frameworks(adapters, fast=fast, timeout=timeout, on_event=on_event, cancel=cancel))
        else:
            fw_result.update(
                probe_frameworks_cached(adapters, fresh=fresh, timeout=timeout, on_event=on_event, cancel=cancel,
                                        notes=notes)
            )
        if not identify:
            for fp in fw_result.values():
                redact(fp)
        timings["frameworks"] = time.perf_counter() - t

    # Children start first: they are the slow part, and the hardware is read while they import.
    fw_thread = threading.Thread(target=run_frameworks, name="fwprobe-all", daemon=True)
    fw_thread.start()

    def section(name: str, fn: Callable[[], Any], fallback: Callable[[], Any]) -> Any:
        emit(ProbeEvent("section", name, f"reading {name}"))
        t = time.perf_counter()
        try:
            value = fn()
        except Exception as exc:  # noqa: BLE001 - one unreadable section must not cost the whole probe
            notes.append(f"{name}: the probe failed ({type(exc).__name__}: {exc}); values are unknown")
            value = fallback()
        timings[name] = time.perf_counter() - t
        return value

    try:
        cpu = section("cpu", probe_cpu, _unknown_cpu)
        memory = section("memory", probe_memory, lambda: MemoryInfo(None, None, None, None, None))
        gpus = section(
            "gpus", lambda: probe_nvidia(identify=identify), lambda: GpuReport("error", "the NVIDIA probe failed")
        )
        accelerators = section("accelerators", probe_accelerators, dict)
        software = section("software", lambda: probe_software(identify=identify), _unknown_software)
        versions = section("knowledge", lambda: _python_versions(kb, fast, notes), lambda: None)
        while fw_thread.is_alive():
            # In slices: a signal the kernel hands to another thread does not wake a lock wait, and Python runs
            # its handler (which ends the children) only when the main thread gets back to bytecode.
            fw_thread.join(0.1)
    except BaseException:
        cancel.set()  # Ctrl-C or a failure here: kill the children rather than wait for their timeouts
        fw_thread.join(timeout=10)
        raise
    _refine_cuda_order(gpus, fw_result)
    _merge_framework_devices(accelerators, fw_result)
    requirements = check_all(fw_result, software.python, versions, gpus)
    if gpus.devices:
        notes.append("GPU devices are listed in NVML order (PCI bus order); cuda_index is the number CUDA programs use")
    if fast:
        notes.append("--fast: frameworks were not imported; versions come from package metadata")
    cached = [fid for fid, fp in fw_result.items() if fp.cached_age_s is not None]
    if cached:
        oldest = max(fw_result[f].cached_age_s or 0.0 for f in cached)
        notes.append(f"frameworks from the probe cache (up to {oldest / 60:.0f} min old): {', '.join(cached)}; "
                     "--fresh probes them again")
    return ProbeReport(
        cpu=cpu,
        memory=memory,
        gpus=gpus,
        accelerators=accelerators,
        software=software,
        frameworks=fw_result,
        requirements=requirements,
        created=dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        fast=fast,
        identify=identify,
        wall_s=time.perf_counter() - start,
        timings=timings,
        notes=notes,
    )


def _unknown_cpu() -> CpuInfo:
    import os
    import platform

    return CpuInfo("unknown", "unknown", platform.machine() or "unknown", None, os.cpu_count(), os.cpu_count() or 1,
                   None, None, None, None, None, None)


def _unknown_software() -> SoftwareInfo:
    import platform

    return SoftwareInfo("unknown", None, None, platform.python_version(), platform.python_implementation(),
                        "unknown", None, None, None)


def hardware_ids(probe: ProbeReport) -> list[str]:
    """Knowledge-base hardware ids present in a probe (the mapping scoring uses)."""
    found = ["cpu"]
    if probe.gpus.devices:
        found.append("nvidia_cuda")
    for key, hw in (("tpu", "google_tpu"), ("rocm", "amd_rocm"), ("apple_mps", "apple_metal"),
                    ("intel_xpu", "intel_gpu"), ("ascend", "huawei_ascend")):
        status = probe.accelerators.get(key)
        if status is not None and status.present:
            found.append(hw)
    return found
