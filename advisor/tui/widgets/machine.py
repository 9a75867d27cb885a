"""The machine at a glance, rendered from probe JSON (whatever is missing is said to be unknown)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text


def _gib(n: Any) -> str:
    return f"{n / 2**30:.1f} GiB" if isinstance(n, int | float) else "unknown"


def machine_table(probe: dict[str, Any], names: dict[str, str] | None = None) -> Table:
    """CPU, memory, accelerators and frameworks as a two-column grid; `names` gives frameworks' display names."""
    names = names or {}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    cpu = probe.get("cpu") or {}
    cores = cpu.get("usable_cores", "?")
    peak = (cpu.get("peak") or {}).get("fp32_gflops")
    peak_s = f", peak ≈{peak:,.0f} GFLOP/s fp32" if isinstance(peak, int | float) else ""
    # Text, not markup: the model, GPU names and messages come from the machine or an opened report.
    model = f"{cpu.get('model') or 'unknown'} ({cpu.get('arch') or '?'})"
    grid.add_row("CPU", Text(f"{model}, {cores} usable cores{peak_s}"))
    mem = probe.get("memory") or {}
    grid.add_row("Memory", f"{_gib(mem.get('total_bytes'))} total, {_gib(mem.get('available_bytes'))} available")
    gpus = probe.get("gpus") or {}
    devices = gpus.get("devices") or []
    if devices:
        gpu_s = ", ".join(str(d.get("name", "?")) for d in devices)
    else:
        gpu_s = gpus.get("message") or gpus.get("status") or "unknown"
    grid.add_row("GPUs", Text(str(gpu_s)))
    acc = probe.get("accelerators") or {}
    present = [k for k, v in acc.items() if isinstance(v, dict) and v.get("present")]
    grid.add_row("Other", Text(", ".join(present) if present else "no TPU, ROCm, MPS, XPU or Ascend found"))
    fws = probe.get("frameworks") or {}
    parts = []
    for fid, info in fws.items():
        if info.get("installed"):
            parts.append(f"{names.get(fid, fid)} {info.get('version') or '?'}")
        else:
            parts.append(f"{names.get(fid, fid)} (not installed)")
    grid.add_row("Frameworks", Text(", ".join(parts) if parts else "unknown"))
    return grid
