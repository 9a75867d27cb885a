"""The one validator for numbers, and every limit on input: sizes, nesting, and what this machine can run.

Numbers come from flags (`--threads`, `--nproc`, `--budget`, `--seed`, ...) and from files (weights in
profiles and packs). Each is checked here for finiteness (nan, inf, `1e400`, which parses as inf) and
range before anything runs; a number that names machine resources is checked against this machine (its
usable cores and memory). Limits are documented in docs/security.md.
"""

from __future__ import annotations

import math
import os
from typing import Annotated

from pydantic import Field

from advisor.errors import UsageError

#: A report, probe or bench JSON larger than this is refused before it is read (real ones are < 1 MiB;
#: Python objects take ~10-20x the text, so this keeps a hostile file under ~0.5 GB of memory).
MAX_REPORT_BYTES = 16 * 1024 * 1024
#: A YAML file (profile, pack file) larger than this is refused before it is read.
MAX_YAML_BYTES = 2 * 1024 * 1024
#: Deepest nesting of a JSON document read back (reports nest ~8 levels); deeper is refused, not recursed.
MAX_JSON_DEPTH = 64
#: The largest weight a profile or scenario may give a criterion (weights are relative; 1e6 keeps sums finite).
MAX_WEIGHT = 1e6
#: The largest pairwise judgement (Saaty's scale ends at 9; 1e6 keeps the eigenvector computation finite).
MAX_JUDGEMENT = 1e6
#: Seconds: a whole bench budget, and one probe child's timeout, may not exceed these.
MAX_BUDGET_S = 24 * 3600.0
MAX_TIMEOUT_S = 3600.0
#: Memory one all-reduce rank takes (a framework import plus its buffers): caps --nproc by memory.
RANK_BYTES = 512 * 1024 * 1024
#: Seeds of the Monte-Carlo sensitivity analysis: what NumPy's generators take, written as 32 bits.
MAX_SEED = 2**32 - 1
#: torchrun: node counts and ranks beyond this are typos, not clusters.
MAX_NODES = 4096
#: A GPU model name, in a profile's fleet and a report's probe alike (NVML's name buffer is 96 bytes).
MAX_GPU_NAME = 96
#: GPUs one probe may list (one entry each in the team's fleet).
MAX_GPUS = 4096

#: A weight as profiles and packs may write it: finite, zero or positive, at most MAX_WEIGHT.
FiniteWeight = Annotated[float, Field(ge=0, le=MAX_WEIGHT, allow_inf_nan=False)]
#: A pairwise judgement: finite, positive, at most MAX_JUDGEMENT.
FiniteJudgement = Annotated[float, Field(gt=0, le=MAX_JUDGEMENT, allow_inf_nan=False)]
#: A non-negative finite size (thousands of lines of code, bytes).
FiniteSize = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]


def logical_cpus() -> int:
    """The CPUs this process may run on (affinity set; all of them where the OS has no affinity)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def memory_bytes() -> int | None:
    """Memory this process may use: the smaller of RAM available now and the cgroup limit; None if unknown."""
    from advisor.evidence.hardware.memory import probe_memory  # deferred: psutil only when a check needs it

    mem = probe_memory()
    figures = [v for v in (mem.available_bytes, mem.cgroup_limit_bytes) if v]
    return min(figures) if figures else None


def _show(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_number(
    value: float | int,
    field: str,
    *,
    low: float,
    high: float,
    low_open: bool = False,
    why_high: str = "",
) -> None:
    """Raise `UsageError` (one line, exit 2) unless `value` is finite and in [low, high] (or (low, high])."""
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"must be a finite number, got {_show(value)}", field=field)
    if value < low or (low_open and value == low):
        bound = f"greater than {_show(low)}" if low_open else f"at least {_show(low)}"
        raise UsageError(f"must be {bound}, got {_show(value)}", field=field)
    if value > high:
        reason = f" ({why_high})" if why_high else ""
        raise UsageError(f"must be at most {_show(high)}{reason}, got {_show(value)}", field=field)


def check_processes(nproc: int, field: str = "--nproc") -> None:
    """A number of local processes: at least 1, no more than the CPUs, and each rank's memory must fit."""
    cpus = logical_cpus()
    check_number(nproc, field, low=1, high=cpus, why_high=f"the CPUs this process may use here: {cpus}")
    mem = memory_bytes()
    if mem is not None and nproc * RANK_BYTES > mem:
        fit = max(1, mem // RANK_BYTES)
        raise UsageError(
            f"{nproc} processes need ~{nproc * RANK_BYTES / 2**30:.1f} GiB but {mem / 2**30:.1f} GiB is available; "
            f"at most {fit} fit",
            field=field,
        )


def check_threads(threads: int, field: str = "--threads") -> None:
    """Threads per framework: at least 1, at most the CPUs this process may use."""
    cpus = logical_cpus()
    check_number(threads, field, low=1, high=cpus, why_high=f"the CPUs this process may use here: {cpus}")
