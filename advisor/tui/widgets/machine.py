"""The machine at a glance, rendered from the probe (whatever is missing is said to be unknown)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport


def _gib(n: int | None) -> str:
    return f"{n / 2**30:.1f} GiB" if n is not None else "unknown"


def machine_table(probe: ProbeReport, names: dict[str, str] | None = None) -> Table:
    """CPU, memory, accelerators and frameworks as a two-column grid; `names` gives frameworks' display names."""
    names = names or {}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    cpu = probe.cpu
    cores = "?" if cpu.usable_cores is None else cpu.usable_cores
    peak_s = f", peak ≈{cpu.peak.fp32_gflops:,.0f} GFLOP/s fp32" if cpu.peak is not None else ""
    # Text, not markup: the model, GPU names and messages come from the machine or an opened report.
    model = f"{cpu.model or 'unknown'} ({cpu.arch or '?'})"
    grid.add_row("CPU", Text(f"{model}, {cores} usable cores{peak_s}"))
    mem = probe.memory
    grid.add_row("Memory", f"{_gib(mem.total_bytes)} total, {_gib(mem.available_bytes)} available")
    gpus = probe.gpus
    if gpus.devices:
        gpu_s = ", ".join(d.name or "?" for d in gpus.devices)
    else:
        gpu_s = gpus.message or gpus.status or "unknown"
    grid.add_row("GPUs", Text(gpu_s))
    present = [k for k, v in probe.accelerators.items() if v.present]
    grid.add_row("Other", Text(", ".join(present) if present else "no TPU, ROCm, MPS, XPU or Ascend found"))
    parts = []
    for fid, info in probe.frameworks.items():
        if info.installed:
            parts.append(f"{names.get(fid, fid)} {info.version or '?'}")
        else:
            parts.append(f"{names.get(fid, fid)} (not installed)")
    grid.add_row("Frameworks", Text(", ".join(parts) if parts else "unknown"))
    return grid
