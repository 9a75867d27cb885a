"""CPU probe on this machine (facts cross-checked against the OS) and the peak-FLOP/s formula on known CPUs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from advisor.evidence.hardware import cgroup
from advisor.evidence.hardware.cpu import CpuInfo, estimate_peak, parse_cpu_list, parse_proc_cpuinfo, probe_cpu
from advisor.jsonio import model_json


def _info(**kw: object) -> CpuInfo:
    base: dict[str, object] = dict(
        vendor="Intel", model="Intel(R) Xeon(R) Platinum 8480+", arch="x86_64", physical_cores=56, logical_cores=112,
        usable_cores=112, affinity_cores=112, cgroup_quota_cpus=None, usable_physical_cores=56, base_mhz=2000.0,
        max_mhz=3800.0, current_mhz=None, flags=["avx2", "fma", "avx512f"], family=6, model_number=143,
    )
    base.update(kw)
    return CpuInfo(**base)  # type: ignore[arg-type]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and /sys")
def test_this_machine_cores_flags_and_peak() -> None:
    info = probe_cpu()
    affinity = len(os.sched_getaffinity(0))
    quota = cgroup.cpu_quota(cgroup.process_cgroup_dirs("cpu"))
    expected = affinity if quota is None else min(affinity, -(-quota // 1))
    assert info.usable_cores == expected
    assert info.logical_cores == os.cpu_count()
    raw = Path("/proc/cpuinfo").read_text()
    for flag in ("avx2", "fma"):
        assert (flag in info.flags) == (f" {flag} " in raw.replace("\n", " \n"))
    # The estimate needs a clock and a known vector unit; a VM may hide both, and then there is honestly none.
    if info.arch == "x86_64" and (info.max_mhz or info.base_mhz or info.current_mhz) and "avx2" in info.flags:
        assert info.peak is not None
        assert info.peak.fp32_gflops > 0
    if info.peak is not None:
        assert info.peak.fp32_gflops > 0
        assert "GFLOP/s" in info.peak.formula and "cores" in info.peak.formula
        # A bf16 peak is claimed only where the probe saw a bf16 unit.
        bf16_units = {"avx512_bf16", "amx_bf16", "bf16"} & set(info.flags)
        if info.peak.bf16_gflops is not None:
            assert bf16_units, info.flags
    data = model_json(info)
    assert model_json(CpuInfo.from_json(data)) == data


def test_peak_xeon_avx512_with_amx() -> None:
    peak = estimate_peak(_info(flags=["avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16"]), system="Linux")
    assert peak is not None
    # 56 cores x 3.8 GHz x (2 units x 16 lanes x 2)
    assert peak.fp32_gflops == pytest.approx(56 * 3.8 * 64)
    assert peak.bf16_flops_per_cycle == 2048 and peak.bf16_source and "AMX" in peak.bf16_source
    assert peak.clock_source == "max"


def test_peak_quota_and_smt_limit_the_cores() -> None:
    info = _info(usable_cores=3, cgroup_quota_cpus=2.5, flags=["avx", "avx2", "fma"], model="Intel Core i7")
    peak = estimate_peak(info, system="Linux")
    assert peak is not None
    assert peak.cores == 2.5
    assert peak.fp32_flops_per_cycle == 32  # 2 x 256-bit FMA
    assert peak.bf16_gflops is None


def test_peak_amd_zen4_is_double_pumped() -> None:
    info = _info(vendor="AMD", model="AMD EPYC 9654", family=0x19, model_number=0x11, max_mhz=None, base_mhz=2400.0,
                 flags=["avx2", "fma", "avx512f", "avx512_bf16"], usable_physical_cores=8, usable_cores=16)
    peak = estimate_peak(info, system="Linux")
    assert peak is not None
    assert peak.vector_bits == 256 and peak.fp32_flops_per_cycle == 32
    assert peak.fp32_gflops == pytest.approx(8 * 2.4 * 32)
    assert peak.bf16_gflops == pytest.approx(2 * peak.fp32_gflops)


def test_peak_arm_neon_and_unknown_clock() -> None:
    info = _info(vendor="Arm", model="Neoverse-N1", arch="aarch64", flags=["asimd"], max_mhz=None, base_mhz=None,
                 current_mhz=3000.0, usable_physical_cores=4, usable_cores=4)
    peak = estimate_peak(info, system="Linux")
    assert peak is not None and peak.fp32_flops_per_cycle == 16 and peak.clock_source == "current"
    assert estimate_peak(_info(max_mhz=None, base_mhz=None, current_mhz=None)) is None


def test_parse_proc_cpuinfo_blocks_and_cpu_lists() -> None:
    blocks = parse_proc_cpuinfo("processor\t: 0\nflags\t: fpu avx2\n\nprocessor\t: 1\nflags\t: fpu avx2\n")
    assert [b["processor"] for b in blocks] == ["0", "1"]
    assert parse_cpu_list("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
