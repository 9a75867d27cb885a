"""Control-group limits (v1 and v2): the CPU quota and memory limit a container really gives this process.

A container limited to 2 CPUs on a 64-core host is a 2-CPU machine, whatever `os.cpu_count()` says.
The limits are read from the cgroup folders of this process (found through `/proc/self/cgroup`
and `/proc/self/mountinfo`), from the process's own folder up to the mount point, because a
parent's limit binds its children too. Every parser here is pure so tests can feed it file text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: cgroup v1 writes "no limit" as a huge number (PAGE_COUNTER_MAX rounded to a page); anything above this is none.
_V1_UNLIMITED = 1 << 62


@dataclass(frozen=True)
class CgroupMount:
    """One mounted cgroup hierarchy: where it is mounted and which part of the tree it shows."""

    mount_point: Path
    root: str  # the cgroup path that the mount point shows (from mountinfo)
    version: int  # 1 or 2
    controllers: frozenset[str]  # v1 only: the controllers of this hierarchy


def read_text(path: Path) -> str | None:
    """A small kernel file's text, or None when it is missing or unreadable."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def parse_cpu_max(text: str) -> float | None:
    """cgroup v2 `cpu.max` ("QUOTA PERIOD" or "max PERIOD") as a number of CPUs; None when unlimited."""
    parts = text.split()
    if not parts or parts[0] == "max":
        return None
    try:
        quota = int(parts[0])
        period = int(parts[1]) if len(parts) > 1 else 100000
    except ValueError:
        return None
    if quota <= 0 or period <= 0:
        return None
    return quota / period


def parse_cfs(quota_text: str, period_text: str) -> float | None:
    """cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us` as a number of CPUs; None when unlimited (-1)."""
    try:
        quota = int(quota_text.strip())
        period = int(period_text.strip())
    except ValueError:
        return None
    if quota <= 0 or period <= 0:
        return None
    return quota / period


def parse_memory_limit(text: str) -> int | None:
    """v2 `memory.max` or v1 `memory.limit_in_bytes` in bytes; None when unlimited."""
    value = text.strip()
    if not value or value == "max":
        return None
    try:
        limit = int(value)
    except ValueError:
        return None
    return None if limit <= 0 or limit >= _V1_UNLIMITED else limit


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """`/proc/self/cgroup` as {controller: path}; the v2 unified entry is under the key ""."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if not controllers:
            out[""] = path
            continue
        for c in controllers.split(","):
            out[c] = path
    return out


def parse_mountinfo(text: str) -> list[CgroupMount]:
    """The cgroup mounts listed in `/proc/self/mountinfo`."""
    mounts: list[CgroupMount] = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields = left.split()
        tail = right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        fstype, options = tail[0], tail[2]
        if fstype == "cgroup2":
            mounts.append(CgroupMount(Path(fields[4]), fields[3], 2, frozenset()))
        elif fstype == "cgroup":
            ctrls = frozenset(o for o in options.split(",") if o not in ("rw", "ro") and "=" not in o)
            mounts.append(CgroupMount(Path(fields[4]), fields[3], 1, ctrls))
    return mounts


def cgroup_dirs(controller: str, proc_cgroup: str, mountinfo: str) -> list[Path]:
    """The folders that may hold limits for `controller`, from this process's own up to the mount point.

    v2 is used when the process has a unified entry and a cgroup2 mount; v1 otherwise. A folder
    that does not exist (a namespaced path seen from outside) is skipped; the mount point itself
    is always last.
    """
    paths = parse_proc_cgroup(proc_cgroup)
    mounts = parse_mountinfo(mountinfo)
    candidates: list[tuple[CgroupMount, str]] = []
    for m in mounts:
        if m.version == 1 and controller in m.controllers and controller in paths:
            candidates.append((m, paths[controller]))
    for m in mounts:
        if m.version == 2 and "" in paths:
            candidates.append((m, paths[""]))
    dirs: list[Path] = []
    for mount, path in candidates:
        rel = path
        root = mount.root.rstrip("/")
        if root and rel.startswith(root):
            rel = rel[len(root) :]
        parts = [p for p in rel.split("/") if p and p != ".."]
        for depth in range(len(parts), -1, -1):
            d = mount.mount_point.joinpath(*parts[:depth])
            if d.is_dir() and d not in dirs:
                dirs.append(d)
    return dirs


def cpu_quota_in(directory: Path) -> float | None:
    """The CPU quota (in CPUs) set in one cgroup folder (v2 `cpu.max` or v1 CFS files), or None."""
    text = read_text(directory / "cpu.max")
    if text is not None:
        return parse_cpu_max(text)
    quota = read_text(directory / "cpu.cfs_quota_us")
    period = read_text(directory / "cpu.cfs_period_us")
    if quota is not None and period is not None:
        return parse_cfs(quota, period)
    return None


def memory_limit_in(directory: Path) -> int | None:
    """The memory limit (bytes) set in one cgroup folder (v2 `memory.max` or v1 `memory.limit_in_bytes`)."""
    for name in ("memory.max", "memory.limit_in_bytes"):
        text = read_text(directory / name)
        if text is not None:
            return parse_memory_limit(text)
    return None


def _smallest(values: Iterable[float | int | None]) -> float | int | None:
    found = [v for v in values if v is not None]
    return min(found) if found else None


def cpu_quota(dirs: Sequence[Path]) -> float | None:
    """The tightest CPU quota over the given folders (a parent's quota binds its children)."""
    value = _smallest(cpu_quota_in(d) for d in dirs)
    return None if value is None else float(value)


def memory_limit(dirs: Sequence[Path]) -> int | None:
    """The tightest memory limit over the given folders."""
    value = _smallest(memory_limit_in(d) for d in dirs)
    return None if value is None else int(value)


def process_cgroup_dirs(controller: str, proc: Path = Path("/proc/self")) -> list[Path]:
    """The cgroup folders of the running process for `controller` ("cpu" or "memory"); [] off Linux."""
    proc_cgroup = read_text(proc / "cgroup")
    mountinfo = read_text(proc / "mountinfo")
    if proc_cgroup is None or mountinfo is None:
        return []
    return cgroup_dirs(controller, proc_cgroup, mountinfo)
