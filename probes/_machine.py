"""The machine's state around a measurement: load, other processes' CPU use, steal, clock (standard library only).

Read before and after each timed run, so every figure says how busy the machine was while it was
measured. Everything comes from /proc and /sys on Linux; what cannot be read (macOS, Windows, a
container that hides /sys) is None, never a guess.
"""

from __future__ import annotations

import glob
import os
import time
from dataclasses import dataclass
from typing import Any


def _cpu_jiffies() -> tuple[int, int, int] | None:
    """(busy, steal, total) jiffies of all CPUs since boot, from /proc/stat."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    v = [int(x) for x in fields[1:]]
    v += [0] * (8 - len(v))
    user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
    busy = user + nice + system + irq + softirq
    return busy, steal, busy + idle + iowait + steal


def _own_cpu_s() -> float:
    """CPU seconds this process (all its threads) has used."""
    return time.process_time()  # user + system time of every thread of the process


def _freq_mhz() -> float | None:
    """The mean current clock of the CPUs, where cpufreq exposes it (most VMs do not)."""
    values = []
    for path in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq")[:256]:
        try:
            with open(path, encoding="ascii") as f:
                values.append(int(f.read().strip()) / 1000.0)
        except (OSError, ValueError):
            continue
    return round(sum(values) / len(values), 1) if values else None


def _load1() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


@dataclass(frozen=True)
class Snapshot:
    """The counters at one moment."""

    wall: float
    own_cpu_s: float
    jiffies: tuple[int, int, int] | None
    load1: float | None
    freq_mhz: float | None


def snapshot() -> Snapshot:
    """Read the counters now (a few microseconds; /sys reads add ~0.1 ms per CPU)."""
    return Snapshot(time.perf_counter(), _own_cpu_s(), _cpu_jiffies(), _load1(), _freq_mhz())


def between(before: Snapshot, after: Snapshot, threads: int) -> dict[str, Any]:
    """What happened between two snapshots: others' CPU use (in cores), steal, our own CPU share, load, clock.

    `others_cores` is the machine's busy CPU time minus this process's own, per second of wall time: the
    work of other processes competing for the cores. `own_share` is the CPU this process got as a share of
    the `threads` cores it asked for (1.0: it had them all).
    """
    wall = max(after.wall - before.wall, 1e-9)
    own = after.own_cpu_s - before.own_cpu_s
    out: dict[str, Any] = {"wall_s": round(wall, 4), "load1": after.load1, "load1_before": before.load1,
                           "own_share": round(own / wall / max(threads, 1), 3), "freq_mhz": after.freq_mhz,
                           "others_cores": None, "steal_pct": None}
    if before.jiffies and after.jiffies:
        hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        busy = (after.jiffies[0] - before.jiffies[0]) / hz
        steal = after.jiffies[1] - before.jiffies[1]
        total = after.jiffies[2] - before.jiffies[2]
        # Jiffies tick at 100 Hz: over a short run the rounding can make `busy` a little below our own CPU time.
        out["others_cores"] = round(max(busy - own, 0.0) / wall, 3)
        out["steal_pct"] = round(100.0 * steal / total, 2) if total > 0 else 0.0
    return out
