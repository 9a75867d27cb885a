"""The CPU: model, cores this process may really use, clocks, caches, vector extensions and a peak FLOP/s estimate.

On Linux everything is read from `/proc/cpuinfo` and `/sys/devices/system/cpu` (a few milliseconds);
py-cpuinfo is only the fallback on other systems because its `get_cpu_info()` spawns a
subprocess and takes about a second.
"""

from __future__ import annotations

import math
import os
import platform
import re
import sys
from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic.dataclasses import dataclass

from advisor.evidence.hardware import cgroup
from advisor.evidence.hardware.saved import known_fields

#: Vector and matrix extensions worth reporting, in the kernel's spelling (x86 and Arm).
VECTOR_FLAGS = (
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl",
    "avx512ifma", "avx512vbmi", "avx512_vbmi2", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni",
    "avx_vnni_int8", "amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
    "asimd", "asimdhp", "asimddp", "bf16", "i8mm", "sve", "sve2", "sme", "sme2",
)

_VENDORS = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD", "HygonGenuine": "Hygon", "CentaurHauls": "Centaur"}
_ARM_IMPLEMENTERS = {"0x41": "Arm", "0x61": "Apple", "0x48": "HiSilicon", "0x51": "Qualcomm", "0xc0": "Ampere",
                     "0x4e": "NVIDIA", "0x46": "Fujitsu", "0x43": "Cavium"}


@dataclass(frozen=True)
class CacheLevel:
    """One cache as the kernel describes it (sizes are per instance)."""

    level: int
    type: str  # Data, Instruction or Unified
    size_bytes: int
    shared_by_cpus: int


@dataclass(frozen=True)
class PeakEstimate:
    """A theoretical peak: cores x clock x FLOPs per cycle, with every input named (an estimate, not a measurement)."""

    fp32_gflops: float
    bf16_gflops: float | None
    formula: str
    cores: float
    clock_ghz: float
    clock_source: str
    vector_bits: int
    fma_units: int
    fp32_flops_per_cycle: int
    bf16_flops_per_cycle: int | None
    bf16_source: str | None
    assumptions: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PeakEstimate:
        """A saved estimate."""
        return cls(**{**data, "assumptions": tuple(data.get("assumptions") or ())})


@dataclass
class CpuInfo:
    """What the CPU is and how much of it this process may use (the probe's `cpu` section)."""

    vendor: str
    model: str
    arch: str
    physical_cores: int | None
    logical_cores: int | None
    usable_cores: int | None  # affinity and cgroup quota applied, rounded up; None: not known (a foreign file)
    affinity_cores: int | None
    cgroup_quota_cpus: float | None
    usable_physical_cores: int | None  # physical cores among the CPUs in the affinity set
    base_mhz: float | None
    max_mhz: float | None
    current_mhz: float | None
    caches: list[CacheLevel] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    numa_nodes: int | None = None
    family: int | None = None
    model_number: int | None = None
    peak: PeakEstimate | None = None
    source: str = "unknown"  # where the facts came from: "linux-sysfs" or "py-cpuinfo"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CpuInfo:
        """A saved `cpu` section; a field an older probe lacks is unknown (see `advisor.evidence.hardware.saved`)."""
        fields_ = known_fields(cls, data)
        if fields_["usable_cores"] is None:  # an older probe without it: all the cores it saw
            fields_["usable_cores"] = int(data.get("logical_cores") or 1)
        fields_["caches"] = [CacheLevel(**c) for c in data.get("caches") or []]
        fields_["peak"] = PeakEstimate.from_json(data["peak"]) if data.get("peak") else None
        return cls(**fields_)


def parse_proc_cpuinfo(text: str) -> list[dict[str, str]]:
    """`/proc/cpuinfo` as one dict per processor block."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            current[key.strip()] = value.strip()
    if current:
        blocks.append(current)
    return blocks


def _int(text: str | None, base: int = 10) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip(), base)
    except ValueError:
        return None


def parse_cpu_list(text: str) -> list[int]:
    """A kernel CPU list ("0-3,8,10-11") as numbers."""
    out: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            out.extend(range(int(lo), int(hi) + 1) if sep else [int(lo)])
        except ValueError:
            continue
    return out


def _parse_size(text: str) -> int | None:
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)\s*", text)
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2)]


def read_caches(cpu_dir: Path) -> list[CacheLevel]:
    """The caches of one CPU from sysfs (`cache/index*`)."""
    caches: list[CacheLevel] = []
    for idx in sorted(cpu_dir.glob("cache/index*")):
        level = _int(cgroup.read_text(idx / "level"))
        size = _parse_size(cgroup.read_text(idx / "size") or "")
        kind = (cgroup.read_text(idx / "type") or "").strip() or "unknown"
        shared = parse_cpu_list(cgroup.read_text(idx / "shared_cpu_list") or "")
        if level is None or size is None:
            continue
        caches.append(CacheLevel(level, kind, size, len(shared) or 1))
    return caches


def _khz_file(path: Path) -> float | None:
    value = _int(cgroup.read_text(path))
    return value / 1000 if value else None


def _affinity() -> list[int] | None:
    getter = getattr(os, "sched_getaffinity", None)
    if getter is None:
        return None
    try:
        return sorted(getter(0))
    except OSError:
        return None


def usable_cores(logical: int | None, affinity: int | None, quota: float | None) -> int:
    """The CPUs this process may keep busy: the affinity set, capped by the cgroup quota (rounded up)."""
    candidates: list[float] = [v for v in (logical, affinity) if v]
    if quota:
        candidates.append(quota)
    return max(1, math.ceil(min(candidates))) if candidates else 1


def _vector_plan(info: CpuInfo, system: str) -> tuple[int, int, list[str]]:
    """(effective vector bits per FMA unit, FMA units per core, assumptions) for the peak formula.

    The number of FMA units and the datapath width are not visible in the flags, so they come
    from what the vendors publish per microarchitecture; every guess is named in the assumptions.
    """
    flags = set(info.flags)
    notes: list[str] = []
    arch = info.arch.lower()
    if arch in ("x86_64", "amd64", "i686", "x86"):
        if "avx512f" in flags:
            bits = 512
        elif "avx" in flags:
            bits = 256
        else:
            bits = 128
        units = 2
        if info.vendor == "AMD" or info.vendor == "Hygon":
            fam = info.family or 0
            model = info.model_number or 0
            if fam == 0x17 and model < 0x30:
                bits = min(bits, 128)
                notes.append("AMD Zen 1 (family 0x17, model < 0x30): 2 FMA units, 128-bit datapath")
            elif fam == 0x17 or (fam == 0x19 and "avx512f" not in flags):
                bits = min(bits, 256)
                notes.append("AMD Zen 2/3: 2 FMA units, 256-bit datapath")
            elif fam == 0x19:
                bits = 256
                notes.append("AMD Zen 4 (family 0x19 with AVX-512): AVX-512 runs on a 256-bit datapath, 2 FMA units")
            elif fam >= 0x1A:
                notes.append(
                    f"AMD Zen 5 or later (family 0x{fam:x}): 2 FMA units with a full 512-bit datapath on server and "
                    "desktop parts (mobile Zen 5 has a 256-bit datapath: halve the figure there)"
                )
            else:
                notes.append(f"AMD family 0x{fam:x}: 2 FMA units assumed")
        elif info.vendor == "Intel":
            if bits == 512 and "xeon" not in info.model.lower():
                units = 1
                notes.append("Intel client CPU with AVX-512: 1 512-bit FMA unit assumed")
            elif bits == 512:
                notes.append("Intel Xeon with AVX-512: 2 512-bit FMA units assumed (some Silver/Bronze parts have 1)")
            else:
                notes.append("Intel with AVX2/FMA: 2 256-bit FMA units assumed (Haswell and later)")
        else:
            notes.append(f"vendor {info.vendor}: 2 FMA units assumed")
        if "fma" not in flags:
            notes.append("no FMA flag: one multiply and one add per lane per cycle assumed (same FLOPs as one FMA)")
        return bits, units, notes
    if arch in ("aarch64", "arm64"):
        bits = 128
        vl_text = cgroup.read_text(Path("/proc/sys/abi/sve_default_vector_length"))
        if "sve" in flags and vl_text and (_int(vl_text) or 0) > 16:
            bits = (_int(vl_text) or 16) * 8
            notes.append(f"SVE vector length {bits} bits (from /proc/sys/abi/sve_default_vector_length)")
        if system == "Darwin" or info.vendor == "Apple":
            notes.append("Apple performance cores: 4 128-bit FMA pipes assumed; efficiency cores counted the same")
            return bits, 4, notes
        notes.append("Arm: 2 FMA pipes of the vector width assumed (Neoverse N1/N2 class); V-series cores may have 4")
        return bits, 2, notes
    notes.append(f"architecture {info.arch}: 128-bit vectors and 1 FMA unit assumed")
    return 128, 1, notes


def estimate_peak(info: CpuInfo, system: str | None = None) -> PeakEstimate | None:
    """fp32 (and bf16 where the ISA has a bf16 path) theoretical peak: usable cores x clock x FLOPs per cycle.

    Cores are the physical cores this process may use (SMT siblings share FMA units), capped by the
    cgroup quota. The clock is the maximum (boost) clock where the system says it, else the base
    clock, else the current clock; all-core boost is usually lower, so this is an upper bound.
    """
    system = system or platform.system()
    clock_mhz, clock_source = None, ""
    for value, source in ((info.max_mhz, "max"), (info.base_mhz, "base"), (info.current_mhz, "current")):
        if value:
            clock_mhz, clock_source = value, source
            break
    if not clock_mhz:
        return None
    cores: float = float(info.usable_physical_cores or info.physical_cores or info.usable_cores or 1)
    cores = min(cores, float(info.usable_cores or cores))
    if info.cgroup_quota_cpus:
        cores = min(cores, info.cgroup_quota_cpus)
    bits, units, notes = _vector_plan(info, system)
    lanes = bits // 32
    fp32_per_cycle = lanes * 2 * units  # an FMA counts as two FLOPs
    ghz = clock_mhz / 1000
    fp32 = cores * ghz * fp32_per_cycle
    flags = set(info.flags)
    bf16_per_cycle: int | None = None
    bf16_source: str | None = None
    if "amx_bf16" in flags:
        # One AMX unit per core: TDPBF16PS on 16x32 tiles, 1024 bf16 multiply-adds per cycle (Sapphire Rapids).
        bf16_per_cycle = 2048
        bf16_source = "AMX-BF16: 1024 bf16 multiply-adds per cycle per core (Intel's published tile throughput)"
    elif "avx512_bf16" in flags:
        bf16_per_cycle = fp32_per_cycle * 2
        bf16_source = "AVX512-BF16 VDPBF16PS: two bf16 products per fp32 lane, same units as fp32 FMA"
    elif "bf16" in flags and info.arch.lower() in ("aarch64", "arm64"):
        bf16_per_cycle = fp32_per_cycle * 2
        bf16_source = "Arm BF16 BFDOT: two bf16 products per fp32 lane"
    bf16 = cores * ghz * bf16_per_cycle if bf16_per_cycle else None
    formula = (
        f"{cores:g} cores x {ghz:.3f} GHz ({clock_source} clock) x {fp32_per_cycle} FLOP/cycle "
        f"({units} FMA unit{'s' if units != 1 else ''} x {lanes} fp32 lanes of {bits} bits x 2) = {fp32:.1f} GFLOP/s"
    )
    if bf16 is not None:
        formula += f"; bf16: {cores:g} x {ghz:.3f} x {bf16_per_cycle} = {bf16:.1f} GFLOP/s"
    return PeakEstimate(
        fp32_gflops=round(fp32, 2),
        bf16_gflops=round(bf16, 2) if bf16 is not None else None,
        formula=formula,
        cores=cores,
        clock_ghz=round(ghz, 4),
        clock_source=clock_source,
        vector_bits=bits,
        fma_units=units,
        fp32_flops_per_cycle=fp32_per_cycle,
        bf16_flops_per_cycle=bf16_per_cycle,
        bf16_source=bf16_source,
        assumptions=tuple(notes),
    )


def _linux_cpu(sys_cpu: Path, proc_cpuinfo: Path) -> CpuInfo | None:
    text = cgroup.read_text(proc_cpuinfo)
    if text is None:
        return None
    blocks = parse_proc_cpuinfo(text)
    procs = [b for b in blocks if "processor" in b and _int(b.get("processor")) is not None]
    if not procs:
        return None
    first = procs[0]
    arch = platform.machine() or "unknown"
    vendor_raw = first.get("vendor_id") or first.get("CPU implementer", "")
    vendor = _VENDORS.get(vendor_raw) or _ARM_IMPLEMENTERS.get(vendor_raw.lower(), vendor_raw or "unknown")
    model = first.get("model name") or first.get("Model") or first.get("Hardware") or "unknown"
    if model == "unknown" and "CPU part" in first:
        model = f"{vendor} part {first['CPU part']}"
    raw_flags = set((first.get("flags") or first.get("Features") or "").split())
    flags = [f for f in VECTOR_FLAGS if f in raw_flags]
    logical = len(procs)
    # Physical cores: distinct (package, core) pairs, from sysfs topology where it exists.
    core_of: dict[int, tuple[int, int]] = {}
    for b in procs:
        cpu = _int(b["processor"])
        assert cpu is not None
        topo = sys_cpu / f"cpu{cpu}" / "topology"
        pkg = _int(cgroup.read_text(topo / "physical_package_id"))
        core = _int(cgroup.read_text(topo / "core_id"))
        if pkg is None:
            pkg = _int(b.get("physical id")) or 0
        if core is None:
            core = _int(b.get("core id"))
        core_of[cpu] = (pkg, core if core is not None else cpu)
    physical = len(set(core_of.values())) or None
    affinity = _affinity()
    usable_physical = len({core_of[c] for c in affinity if c in core_of}) if affinity else physical
    cpu0 = sys_cpu / "cpu0"
    max_mhz = _khz_file(cpu0 / "cpufreq" / "cpuinfo_max_freq")
    base_mhz = _khz_file(cpu0 / "cpufreq" / "base_frequency")
    if base_mhz is None:
        m = re.search(r"@\s*([\d.]+)\s*GHz", model)
        if m:
            base_mhz = float(m.group(1)) * 1000
    current = None
    try:
        current = float(first["cpu MHz"]) if "cpu MHz" in first else None
    except ValueError:
        current = None
    nodes = len(list(Path(sys_cpu.parent / "node").glob("node[0-9]*"))) or None
    quota = cgroup.cpu_quota(cgroup.process_cgroup_dirs("cpu"))
    return CpuInfo(
        vendor=vendor,
        model=model,
        arch=arch,
        physical_cores=physical,
        logical_cores=logical,
        usable_cores=usable_cores(logical, len(affinity) if affinity else None, quota),
        affinity_cores=len(affinity) if affinity else None,
        cgroup_quota_cpus=quota,
        usable_physical_cores=usable_physical,
        base_mhz=base_mhz,
        max_mhz=max_mhz,
        current_mhz=current,
        caches=read_caches(cpu0),
        flags=flags,
        numa_nodes=nodes,
        family=_int(first.get("cpu family")),
        model_number=_int(first.get("model")),
        source="linux-sysfs",
    )


def _fallback_cpu() -> CpuInfo:
    # Deferred import: py-cpuinfo spawns a subprocess (about a second), so it is used only off Linux.
    import cpuinfo
    import psutil

    raw: dict[str, Any] = {}
    try:
        raw = cpuinfo.get_cpu_info()
    except Exception:  # noqa: BLE001 - an unreadable CPU leaves the fields unknown
        raw = {}
    raw_flags = set(raw.get("flags") or [])
    if sys.platform == "darwin" and platform.machine() == "arm64":
        raw_flags.add("asimd")  # every Apple Silicon core has NEON; py-cpuinfo lists no flags there
    logical = psutil.cpu_count(logical=True)
    physical = psutil.cpu_count(logical=False)
    affinity = _affinity()
    freq = None
    try:
        freq = psutil.cpu_freq()
    except Exception:  # noqa: BLE001 - not available on every system
        freq = None
    hz = raw.get("hz_advertised")
    vendor = _VENDORS.get(raw.get("vendor_id_raw", ""), raw.get("vendor_id_raw") or "unknown")
    if sys.platform == "darwin" and platform.machine() == "arm64":
        vendor = "Apple"
    return CpuInfo(
        vendor=vendor,
        model=raw.get("brand_raw") or platform.processor() or "unknown",
        arch=platform.machine() or "unknown",
        physical_cores=physical,
        logical_cores=logical,
        usable_cores=usable_cores(logical, len(affinity) if affinity else None, None),
        affinity_cores=len(affinity) if affinity else None,
        cgroup_quota_cpus=None,
        usable_physical_cores=physical,
        base_mhz=(hz[0] / 1e6) if hz else None,
        max_mhz=(freq.max or None) if freq else None,
        current_mhz=(freq.current or None) if freq else None,
        flags=[f for f in VECTOR_FLAGS if f in raw_flags],
        family=raw.get("family"),
        model_number=raw.get("model"),
        source="py-cpuinfo",
    )


def probe_cpu(
    *, sys_cpu: Path = Path("/sys/devices/system/cpu"), proc_cpuinfo: Path = Path("/proc/cpuinfo")
) -> CpuInfo:
    """Describe the CPU and estimate its peak; never raises for unreadable facts (they stay None/"unknown")."""
    info = _linux_cpu(sys_cpu, proc_cpuinfo) if sys.platform.startswith("linux") else None
    if info is None:
        info = _fallback_cpu()
    info.peak = estimate_peak(info)
    return info
