"""Memory: total, available, the cgroup limit that really bounds this process, and swap."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic.dataclasses import dataclass

from advisor.evidence.hardware import cgroup


@dataclass
class MemoryInfo:
    """Main memory as this process sees it (bytes)."""

    total_bytes: int | None
    available_bytes: int | None
    cgroup_limit_bytes: int | None  # None: no limit set
    swap_total_bytes: int | None
    effective_bytes: int | None  # min(total, cgroup limit): what a job may really use

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MemoryInfo:
        """A saved `memory` section; a figure it lacks is unknown."""
        return cls(**{f.name: data.get(f.name) for f in dataclasses.fields(cls)})


def probe_memory() -> MemoryInfo:
    """Read memory figures through psutil and the cgroup files; unknown figures stay None."""
    # Deferred import keeps `fwadvisor --help` fast; psutil itself costs a few milliseconds.
    import psutil

    total: int | None = None
    available: int | None = None
    swap: int | None = None
    try:
        vm = psutil.virtual_memory()
        total, available = int(vm.total), int(vm.available)
    except Exception:  # noqa: BLE001, S110 - a sandbox may hide /proc/meminfo
        pass
    try:
        swap = int(psutil.swap_memory().total)
    except Exception:  # noqa: BLE001, S110 - same
        pass
    limit = cgroup.memory_limit(cgroup.process_cgroup_dirs("memory"))
    limit_effective: int | None = total
    if limit is not None:
        limit_effective = limit if total is None else min(limit, total)
    return MemoryInfo(
        total_bytes=total,
        available_bytes=available,
        cgroup_limit_bytes=limit,
        swap_total_bytes=swap,
        effective_bytes=limit_effective,
    )
