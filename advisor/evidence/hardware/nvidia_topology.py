"""The GPU-to-GPU matrix of `nvidia-smi topo -m` from NVML: NVLink counts, NVSwitch fabrics, the PCIe path."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only from Python 3.12

if TYPE_CHECKING:
    from advisor.evidence.hardware.nvidia import GpuDevice

#: `nvmlDeviceGetTopologyCommonAncestor` levels in the spelling of `nvidia-smi topo -m`.
TOPOLOGY_NAMES = {0: "X", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}
TOPOLOGY_LEGEND = {
    "X": "self",
    "NV#": "connected by # bonded NVLinks",
    "PIX": "at most one PCIe bridge between them",
    "PXB": "several PCIe bridges, no host bridge",
    "PHB": "through a PCIe host bridge (one CPU)",
    "NODE": "across host bridges within one NUMA node",
    "SYS": "across the CPU interconnect (QPI/UPI/Infinity Fabric) between NUMA nodes",
}


class Topology(TypedDict):
    """`nvidia-smi topo -m` as data: GPU labels, the matrix of their cells (NV#, PIX ... SYS), what each means."""

    labels: list[str]
    matrix: list[list[str]]
    legend: dict[str, str]
    nvswitch: bool  # an all-to-all NVLink fabric through NVSwitches


def _switch_links(dev: GpuDevice) -> int:
    """Active links that end on an NVSwitch (or on a peer that is not one of the listed GPUs)."""
    # NVML lists every GPU, so a peer with a PCI address that is none of them is a switch (or an NPU).
    return sum(
        1
        for n in dev.nvlinks
        if n.remote_type == "switch" or (n.remote_type is None and n.remote_pci_bus_id and n.remote_index is None)
    )


def topology(get: Callable[..., Any], handles: list[Any], devices: list[GpuDevice]) -> Topology | None:
    """The GPU-to-GPU matrix of `nvidia-smi topo -m`: NV# where NVLinks join two GPUs, else the PCIe path.

    Direct links (NVLink bridges) are counted per pair. On an NVSwitch system every GPU's links end
    on switches, which join all GPUs to all: a pair whose GPUs both reach the switch fabric shows
    NV# with the smaller of their switch-link counts, as `nvidia-smi topo -m` does.
    """
    if len(devices) < 2:
        return None
    labels = [f"GPU{d.index}" for d in devices]
    matrix: list[list[str]] = []
    for a, da in enumerate(devices):
        row: list[str] = []
        for b, db in enumerate(devices):
            if a == b:
                row.append("X")
                continue
            links = sum(1 for n in da.nvlinks if n.remote_index == db.index)
            if not links and _switch_links(da) and _switch_links(db):
                links = min(_switch_links(da), _switch_links(db))
            if links:
                row.append(f"NV{links}")
                continue
            level = None
            if handles[a] is not None and handles[b] is not None:
                level = get("nvmlDeviceGetTopologyCommonAncestor", handles[a], handles[b])
            row.append(TOPOLOGY_NAMES.get(int(level), str(level)) if level is not None else "?")
        matrix.append(row)
    return {
        "labels": labels,
        "matrix": matrix,
        "legend": dict(TOPOLOGY_LEGEND),
        "nvswitch": any(_switch_links(d) for d in devices),
    }
