"""NVIDIA GPUs through NVML (nvidia-ml-py): devices, clocks, PCIe, NVLink, the GPU-to-GPU topology, MIG.

NVML is the driver's own management library; reading it never initialises CUDA, so the parent
process stays CUDA-free. Three failures are kept apart because they need different fixes: the
Python bindings are missing (`no_library`), `libnvidia-ml.so` cannot be loaded or the kernel
module is not running (`no_driver`), or the driver works and sees no GPU (`no_gpu`). A value one
device cannot report (not supported, no permission) comes back as None, not as an error.

NVML numbers GPUs in PCI bus order; CUDA numbers them fastest-first unless
`CUDA_DEVICE_ORDER=PCI_BUS_ID`, and `CUDA_VISIBLE_DEVICES` filters and reorders them. Devices are
listed in NVML order (`order: "nvml_pci"`) and each carries its `cuda_index` where it can be told.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import Field
from pydantic.dataclasses import dataclass

from advisor.evidence.hardware.nvidia_topology import Topology, topology
from advisor.evidence.hardware.saved import known_fields

_REMOTE_TYPES = {0: "gpu", 1: "ibmnpu", 2: "switch"}  # NVML_NVLINK_DEVICE_TYPE_*
_NOT_LOADABLE = 12  # NVML_ERROR_LIBRARY_NOT_FOUND
_DRIVER_NOT_LOADED = 9  # NVML_ERROR_DRIVER_NOT_LOADED


@dataclass
class NvLink:
    """One active NVLink of a device and what is on its other end."""

    link: int
    remote_pci_bus_id: str | None
    remote_index: int | None  # NVML index of the peer GPU, None for an NVSwitch or unknown peer
    remote_type: str | None = None  # "gpu", "switch", "ibmnpu" or None when NVML does not say


@dataclass
class GpuDevice:
    """One NVIDIA GPU as NVML reports it; None wherever the device does not say."""

    index: int  # NVML index (PCI bus order)
    cuda_index: int | None  # what CUDA programs in this environment call it; None when unknown or hidden
    pci_bus_id: str | None
    name: str | None
    uuid: str | None = None  # only with --identify
    serial: str | None = None  # only with --identify
    memory_total_bytes: int | None = None
    memory_free_bytes: int | None = None
    compute_capability: str | None = None
    sm_clock_mhz: int | None = None
    sm_clock_max_mhz: int | None = None
    memory_clock_max_mhz: int | None = None
    power_limit_w: float | None = None
    pcie_gen_max: int | None = None
    pcie_width_max: int | None = None
    pcie_gen_current: int | None = None
    pcie_width_current: int | None = None
    nvlinks: list[NvLink] = Field(default_factory=list)
    mig_mode: str | None = None  # "enabled", "disabled", None when not supported
    mig_devices: int | None = None
    utilization_gpu_pct: int | None = None
    utilization_memory_pct: int | None = None
    cuda_cores: int | None = None
    # CUDA cores x 2 (an FMA) x the highest SM clock: the plain fp32 peak, which a true-fp32 GEMM can approach
    # (an H200: 16896 x 2 x 1.98 GHz = 66.9 TFLOP/s; PyTorch and JAX reached 49-51 there). Tensor-core peaks
    # (TF32, bf16, fp8) differ by generation and are not derived here.
    peak_fp32_gflops: float | None = None

    def peak_formula(self) -> str | None:
        """How `peak_fp32_gflops` was estimated, with every input named."""
        if self.peak_fp32_gflops is None:
            return None
        return (f"{self.cuda_cores} CUDA cores x 2 FLOP (FMA) x {self.sm_clock_max_mhz} MHz (highest SM clock) = "
                f"{self.peak_fp32_gflops:.0f} GFLOP/s fp32")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GpuDevice:
        """A saved device; a field an older probe lacks is unknown (see `advisor.evidence.hardware.saved`)."""
        fields_ = known_fields(cls, data)
        fields_["nvlinks"] = [NvLink(**n) for n in data.get("nvlinks") or []]
        return cls(**fields_)


@dataclass
class GpuReport:
    """The NVIDIA section of the probe (its `gpus`): an outcome, a plain message and the devices."""

    status: str  # ok | no_library | no_driver | no_gpu | error
    message: str
    devices: list[GpuDevice] = Field(default_factory=list)
    driver_version: str | None = None
    cuda_driver_version: str | None = None  # the newest CUDA the driver supports, e.g. "12.4"
    nvml_version: str | None = None
    order: str = "nvml_pci"  # devices are listed in NVML (PCI bus) order
    cuda_order_basis: str | None = None  # how cuda_index was decided
    topology: Topology | None = None  # `nvidia-smi topo -m` as data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GpuReport:
        """A saved `gpus` section; a field an older probe lacks is unknown."""
        fields_ = known_fields(cls, data)
        # A device without its NVML index (a hand-written probe) takes its place in the list.
        fields_["devices"] = [GpuDevice.from_json({"index": i, **d}) for i, d in enumerate(data.get("devices") or [])]
        return cls(**fields_)


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def normalize_bus_id(value: Any) -> str:
    """A PCI bus id in one spelling ("0000:17:00.0", lower case, 4-digit domain) so NVML and CUDA ids match."""
    text = _text(value).strip().lower()
    parts = text.split(":")
    try:
        if len(parts) == 3:
            return f"{int(parts[0], 16):04x}:{int(parts[1], 16):02x}:{parts[2]}"
        if len(parts) == 2:
            return f"0000:{int(parts[0], 16):02x}:{parts[1]}"
    except ValueError:
        pass
    return text


def _bus_id(info: Any) -> str | None:
    for attr in ("busId", "busIdLegacy"):
        value = getattr(info, attr, None)
        if value:
            return normalize_bus_id(value)
    return None


def _cuda_version(value: int | None) -> str | None:
    if not value:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def cuda_order(
    devices: list[GpuDevice], env: Mapping[str, str]
) -> tuple[dict[int, int | None], str]:
    """Map NVML indices to CUDA indices from PCI bus ids, `CUDA_DEVICE_ORDER` and `CUDA_VISIBLE_DEVICES`.

    CUDA's default order is fastest-first with ties broken by PCI bus id; on a machine whose GPUs
    are all the same model that equals PCI order. On a mixed machine without
    `CUDA_DEVICE_ORDER=PCI_BUS_ID` the order cannot be told without initialising CUDA, so the
    mapping is left unknown (a framework probe that reports PCI bus ids can fill it in).
    """
    by_pci = sorted(devices, key=lambda d: d.pci_bus_id or f"~{d.index:04d}")
    names = {d.name for d in devices}
    if env.get("CUDA_DEVICE_ORDER", "").upper() == "PCI_BUS_ID":
        basis = "CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA order is PCI bus order"
        ordered: list[GpuDevice] = by_pci
    elif len(names) <= 1:
        basis = "all GPUs are the same model: CUDA's fastest-first order equals PCI bus order"
        ordered = by_pci
    else:
        return {d.index: None for d in devices}, (
            "mixed GPU models and CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA's fastest-first order is unknown here"
        )
    visible = env.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        chosen: list[GpuDevice] = []
        for token in (t.strip() for t in visible.split(",")):
            if not token:
                break
            match: GpuDevice | None = None
            if token.isdigit():
                n = int(token)
                match = ordered[n] if n < len(ordered) else None
            elif token.startswith("GPU-"):
                match = next((d for d in ordered if d.uuid and d.uuid.startswith(token)), None)
            if match is None:
                break  # CUDA stops at the first entry it cannot resolve
            if match not in chosen:
                chosen.append(match)
        ordered = chosen
        basis += f"; CUDA_VISIBLE_DEVICES={visible!r} applied"
    mapping: dict[int, int | None] = {d.index: None for d in devices}
    for cuda_idx, dev in enumerate(ordered):
        mapping[dev.index] = cuda_idx
    return mapping, basis


def probe_nvidia(
    *, identify: bool = False, nvml: Any | None = None, env: Mapping[str, str] | None = None
) -> GpuReport:
    """Ask NVML about every NVIDIA GPU; `nvml` is the bindings module (a fake one in tests), imported if None."""
    env = os.environ if env is None else env
    if nvml is None:
        try:
            # Deferred import: the bindings are optional (extra "gpu") and cost ~50 ms to import.
            import pynvml as nvml_module
        except ImportError:
            return GpuReport(
                "no_library", "NVML bindings not installed (pip install nvidia-ml-py); NVIDIA GPUs not checked"
            )
        nvml = nvml_module
    error_type: type[BaseException] = getattr(nvml, "NVMLError", Exception)
    try:
        nvml.nvmlInit()
    except error_type as exc:
        code = getattr(exc, "value", None)
        if code == _NOT_LOADABLE:
            return GpuReport("no_driver", "no NVIDIA driver (libnvidia-ml.so could not be loaded)")
        if code == _DRIVER_NOT_LOADED:
            return GpuReport("no_driver", "no NVIDIA driver loaded (the NVIDIA kernel module is not running)")
        return GpuReport("error", f"NVML failed to start: {exc}")
    except OSError as exc:
        return GpuReport("no_driver", f"no NVIDIA driver ({exc})")
    try:
        return _read_all(nvml, error_type, identify, env)
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:  # noqa: BLE001, S110 - shutting down cannot change what was read
            pass


def _read_all(nvml: Any, error_type: type[BaseException], identify: bool, env: Mapping[str, str]) -> GpuReport:
    def get(name: str, *args: Any) -> Any:
        fn = getattr(nvml, name, None)
        if fn is None:  # older bindings lack the call
            return None
        try:
            return fn(*args)
        except error_type:
            return None

    driver = get("nvmlSystemGetDriverVersion")
    cuda_v = get("nvmlSystemGetCudaDriverVersion_v2") or get("nvmlSystemGetCudaDriverVersion")
    nvml_v = get("nvmlSystemGetNVMLVersion")
    try:
        count = int(nvml.nvmlDeviceGetCount())
    except error_type as exc:
        return GpuReport("error", f"NVML could not count GPUs: {exc}", driver_version=_opt_text(driver))
    report = GpuReport(
        "ok",
        "",
        driver_version=_opt_text(driver),
        cuda_driver_version=_cuda_version(cuda_v),
        nvml_version=_opt_text(nvml_v),
    )
    if count == 0:
        report.status = "no_gpu"
        report.message = "NVIDIA driver loaded but it sees no GPU"
        return report
    handles: list[Any] = []
    for i in range(count):
        handle = get("nvmlDeviceGetHandleByIndex", i)
        handles.append(handle)
        if handle is None:
            report.devices.append(GpuDevice(index=i, cuda_index=None, pci_bus_id=None, name=None))
            continue
        report.devices.append(_read_device(nvml, get, i, handle, identify))
    bus_to_index = {d.pci_bus_id: d.index for d in report.devices if d.pci_bus_id}
    for d in report.devices:
        for link in d.nvlinks:
            link.remote_index = bus_to_index.get(link.remote_pci_bus_id) if link.remote_pci_bus_id else None
            if link.remote_type is None and link.remote_index is not None:
                link.remote_type = "gpu"
    report.topology = topology(get, handles, report.devices)
    mapping, basis = cuda_order(report.devices, env)
    for d in report.devices:
        d.cuda_index = mapping.get(d.index)
    report.cuda_order_basis = basis
    names = sorted({d.name or "unknown" for d in report.devices})
    report.message = f"{count} NVIDIA GPU{'s' if count != 1 else ''}: {', '.join(names)}"
    if not identify:
        # cuda_order needed UUIDs only to resolve CUDA_VISIBLE_DEVICES entries; drop them now.
        for d in report.devices:
            d.uuid = None
    return report


def _opt_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _read_device(nvml: Any, get: Callable[..., Any], i: int, handle: Any, identify: bool) -> GpuDevice:
    pci = get("nvmlDeviceGetPciInfo", handle)
    dev = GpuDevice(index=i, cuda_index=None, pci_bus_id=_bus_id(pci) if pci is not None else None,
                    name=_opt_text(get("nvmlDeviceGetName", handle)))
    # The UUID is read even without --identify so CUDA_VISIBLE_DEVICES=GPU-... can be resolved; it is
    # dropped from the report afterwards. The serial number is read only when asked for.
    dev.uuid = _opt_text(get("nvmlDeviceGetUUID", handle))
    if identify:
        dev.serial = _opt_text(get("nvmlDeviceGetSerial", handle))
    mem = get("nvmlDeviceGetMemoryInfo", handle)
    if mem is not None:
        dev.memory_total_bytes = int(mem.total)
        dev.memory_free_bytes = int(mem.free)
    cc = get("nvmlDeviceGetCudaComputeCapability", handle)
    if cc:
        dev.compute_capability = f"{cc[0]}.{cc[1]}"
    sm, mem_clock = getattr(nvml, "NVML_CLOCK_SM", 1), getattr(nvml, "NVML_CLOCK_MEM", 2)
    dev.sm_clock_mhz = get("nvmlDeviceGetClockInfo", handle, sm)
    dev.sm_clock_max_mhz = get("nvmlDeviceGetMaxClockInfo", handle, sm)
    dev.memory_clock_max_mhz = get("nvmlDeviceGetMaxClockInfo", handle, mem_clock)
    cores = get("nvmlDeviceGetNumGpuCores", handle)
    dev.cuda_cores = int(cores) if isinstance(cores, int) and cores > 0 else None
    if dev.cuda_cores and isinstance(dev.sm_clock_max_mhz, int) and dev.sm_clock_max_mhz > 0:
        dev.peak_fp32_gflops = round(dev.cuda_cores * 2 * dev.sm_clock_max_mhz / 1000, 1)
    power_mw = get("nvmlDeviceGetEnforcedPowerLimit", handle) or get("nvmlDeviceGetPowerManagementLimit", handle)
    dev.power_limit_w = round(power_mw / 1000, 1) if power_mw else None
    dev.pcie_gen_max = get("nvmlDeviceGetMaxPcieLinkGeneration", handle)
    dev.pcie_width_max = get("nvmlDeviceGetMaxPcieLinkWidth", handle)
    dev.pcie_gen_current = get("nvmlDeviceGetCurrPcieLinkGeneration", handle)
    dev.pcie_width_current = get("nvmlDeviceGetCurrPcieLinkWidth", handle)
    util = get("nvmlDeviceGetUtilizationRates", handle)
    if util is not None:
        dev.utilization_gpu_pct = int(util.gpu)
        dev.utilization_memory_pct = int(util.memory)
    mig = get("nvmlDeviceGetMigMode", handle)
    if mig is not None:
        current = mig[0] if isinstance(mig, list | tuple) else mig
        dev.mig_mode = "enabled" if current == getattr(nvml, "NVML_DEVICE_MIG_ENABLE", 1) else "disabled"
        if dev.mig_mode == "enabled":
            slots = get("nvmlDeviceGetMaxMigDeviceCount", handle) or 0
            dev.mig_devices = sum(
                1 for k in range(int(slots)) if get("nvmlDeviceGetMigDeviceHandleByIndex", handle, k) is not None
            )
    enabled = getattr(nvml, "NVML_FEATURE_ENABLED", 1)
    for link in range(int(getattr(nvml, "NVML_NVLINK_MAX_LINKS", 18))):
        state = get("nvmlDeviceGetNvLinkState", handle, link)
        if state != enabled:
            continue
        remote = get("nvmlDeviceGetNvLinkRemotePciInfo", handle, link)
        rtype = get("nvmlDeviceGetNvLinkRemoteDeviceType", handle, link)
        dev.nvlinks.append(
            NvLink(link, _bus_id(remote) if remote is not None else None, None, _REMOTE_TYPES.get(rtype))
        )
    return dev
