"""NVML paths of the GPU probe, against a fake NVML (this machine has no GPU): outcomes, devices, topology, MIG."""

from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.hardware.nvidia import GpuReport, cuda_order, normalize_bus_id, probe_nvidia
from advisor.jsonio import model_json

_spec = importlib.util.spec_from_file_location(
    "fake_nvml", Path(__file__).parent / "fixtures" / "nvml" / "fake_nvml.py"
)
assert _spec and _spec.loader
fake_nvml = importlib.util.module_from_spec(_spec)
sys.modules["fake_nvml"] = fake_nvml
_spec.loader.exec_module(fake_nvml)
FakeNvml: Any = fake_nvml.FakeNvml


def test_fake_nvml_two_h100_nvlink_topology() -> None:
    report = probe_nvidia(nvml=FakeNvml.load("h100_nvl_x2"), env={})
    assert report.status == "ok"
    assert report.message == "2 NVIDIA GPUs: NVIDIA H100 NVL"
    assert report.driver_version == "570.86.15"
    assert report.cuda_driver_version == "12.8"
    assert report.order == "nvml_pci"
    d0, d1 = report.devices
    assert (d0.index, d0.pci_bus_id, d0.compute_capability) == (0, "0000:1b:00.0", "9.0")
    assert d0.memory_total_bytes == 100485038080
    assert (d0.pcie_gen_max, d0.pcie_width_max, d0.power_limit_w, d0.sm_clock_max_mhz) == (5, 16, 400.0, 1785)
    assert d0.mig_mode == "disabled" and d0.mig_devices is None
    assert len(d0.nvlinks) == 12 and all(n.remote_index == 1 for n in d0.nvlinks)
    assert report.topology is not None
    assert report.topology["matrix"] == [["X", "NV12"], ["NV12", "X"]]
    assert report.topology["nvswitch"] is False
    # Same model everywhere: CUDA's fastest-first order equals PCI order.
    assert [d.cuda_index for d in report.devices] == [0, 1]


def test_fake_nvml_privacy_uuid_and_serial_only_with_identify() -> None:
    nvml = FakeNvml.load("h100_nvl_x2")
    plain = probe_nvidia(nvml=nvml, env={})
    assert all(d.uuid is None and d.serial is None for d in plain.devices)
    assert "serial" not in nvml.calls
    assert "GPU-fake" not in str(model_json(plain))
    named = probe_nvidia(nvml=FakeNvml.load("h100_nvl_x2"), identify=True, env={})
    assert named.devices[0].uuid == "GPU-fake0000-0000-0000-0000-000000000000"
    assert named.devices[1].serial == "FAKE-SERIAL-1"


def test_fake_nvml_mig_box_with_nvswitch() -> None:
    report = probe_nvidia(nvml=FakeNvml.load("a100_mig_nvswitch"), env={})
    assert report.status == "ok"
    d0, d1 = report.devices
    assert d0.mig_mode == "enabled" and d0.mig_devices == 3
    assert d1.mig_mode == "disabled" and d1.mig_devices is None
    # Utilisation is not supported in the fake (as on a MIG-enabled GPU): None, not an error.
    assert d0.utilization_gpu_pct is None
    assert all(n.remote_type == "switch" and n.remote_index is None for n in d0.nvlinks)
    assert report.topology is not None
    assert report.topology["nvswitch"] is True
    assert report.topology["matrix"] == [["X", "NV12"], ["NV12", "X"]]


def test_fake_nvml_pcie_only_topology_uses_common_ancestor() -> None:
    nvml = FakeNvml.load("h100_nvl_x2")
    for dev in nvml.spec["devices"]:
        dev["nvlinks"] = None  # NVLink queries not supported: a PCIe-only box
    dev0, dev1 = nvml.spec["devices"]
    dev0["topology"] = {"1": 40}
    dev1["topology"] = {"0": 40}
    report = probe_nvidia(nvml=nvml, env={})
    assert report.topology is not None
    assert report.topology["matrix"] == [["X", "NODE"], ["NODE", "X"]]


def test_fake_nvml_cuda_order_mixed_models_and_visible_devices() -> None:
    spec = copy.deepcopy(FakeNvml.load("h100_nvl_x2").spec)
    spec["devices"][1]["name"] = "NVIDIA L4"
    mixed = probe_nvidia(nvml=FakeNvml(spec), env={})
    assert [d.cuda_index for d in mixed.devices] == [None, None]
    assert "unknown" in (mixed.cuda_order_basis or "")
    pci = probe_nvidia(nvml=FakeNvml(spec), env={"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1"})
    assert [d.cuda_index for d in pci.devices] == [None, 0]
    swapped = probe_nvidia(
        nvml=FakeNvml.load("h100_nvl_x2"), env={"CUDA_VISIBLE_DEVICES": "GPU-fake0000-0000-0000-0000-000000000001,0"}
    )
    assert [d.cuda_index for d in swapped.devices] == [1, 0]
    assert all(d.uuid is None for d in swapped.devices)  # used to resolve the variable, not reported


def test_fake_nvml_no_driver_no_gpu_and_error_are_distinct() -> None:
    lib = probe_nvidia(nvml=FakeNvml({"devices": []}, init_error=fake_nvml.NVML_ERROR_LIBRARY_NOT_FOUND))
    assert lib.status == "no_driver" and "no NVIDIA driver" in lib.message
    module = probe_nvidia(nvml=FakeNvml({"devices": []}, init_error=fake_nvml.NVML_ERROR_DRIVER_NOT_LOADED))
    assert module.status == "no_driver" and "kernel module" in module.message
    other = probe_nvidia(nvml=FakeNvml({"devices": []}, init_error=999))
    assert other.status == "error"
    empty = probe_nvidia(nvml=FakeNvml({"devices": [], "driver_version": "570.86.15"}))
    assert empty.status == "no_gpu" and empty.driver_version == "570.86.15"


def test_fake_nvml_json_round_trip() -> None:
    report = probe_nvidia(nvml=FakeNvml.load("a100_mig_nvswitch"), env={})
    data = model_json(report)
    assert model_json(GpuReport.from_json(data)) == data


def test_no_library_when_bindings_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    report = probe_nvidia()
    assert report.status == "no_library"
    assert "nvidia-ml-py" in report.message


def test_normalize_bus_id_spellings() -> None:
    assert normalize_bus_id(b"00000000:1B:00.0") == "0000:1b:00.0"
    assert normalize_bus_id("0000:1b:00.0") == "0000:1b:00.0"
    assert normalize_bus_id("1b:00.0") == "0000:1b:00.0"


def test_cuda_order_stops_at_unresolvable_entry() -> None:
    report = probe_nvidia(nvml=FakeNvml.load("h100_nvl_x2"), env={})
    mapping, basis = cuda_order(report.devices, {"CUDA_VISIBLE_DEVICES": "1,7,0"})
    assert mapping == {0: None, 1: 0}
    assert "CUDA_VISIBLE_DEVICES" in basis


def test_fake_nvml_cuda_index_taken_from_framework_pci_ids() -> None:
    from advisor.evidence.probe import FrameworkProbe, _refine_cuda_order

    spec = copy.deepcopy(FakeNvml.load("h100_nvl_x2").spec)
    spec["devices"][1]["name"] = "NVIDIA L4"  # mixed models: NVML alone cannot tell CUDA's order
    report = probe_nvidia(nvml=FakeNvml(spec), env={})
    torch = FrameworkProbe("pytorch", True, "torch", "2.8.0+cu128", "ok", devices=[
        {"kind": "cpu", "name": "cpu", "id": "cpu"},
        {"kind": "gpu", "name": "NVIDIA H100 NVL", "id": "cuda:0", "pci_bus_id": "0000:9a:00.0"},
        {"kind": "gpu", "name": "NVIDIA L4", "id": "cuda:1", "pci_bus_id": "0000:1b:00.0"},
    ])
    _refine_cuda_order(report, {"pytorch": torch})
    assert [d.cuda_index for d in report.devices] == [1, 0]
    assert "pytorch" in (report.cuda_order_basis or "")


@pytest.mark.parametrize("source", ["real H200 probe", "fake A100 MIG box"])
def test_the_gpu_table_reads_whole_at_80_columns(source: str) -> None:
    """The H200 probe was recorded on a real H200 (tests/fixtures/evidence/probe_real_nvidia_h200.json)."""
    import json

    from rich.console import Console

    from advisor.cli.commands.probe import _print_gpus

    if source == "real H200 probe":
        gpus = json.loads((Path(__file__).parent / "fixtures" / "evidence" / "probe_real_nvidia_h200.json")
                          .read_text())["gpus"]
        expect = ["H200", "140.4 GiB", "9.0", "1980 MHz", "700 W", "PCIe gen 5/5 x16/16", "MIG disabled"]
    else:
        gpus = model_json(probe_nvidia(nvml=FakeNvml.load("a100_mig_nvswitch"), env={}))
        expect = ["MIG enabled (3 instances)", "MIG disabled", "NV12"]
    console = Console(width=80, record=True)
    _print_gpus(console, gpus)
    text = console.export_text()
    assert "…" not in text, text
    assert all(len(line) <= 80 for line in text.splitlines())
    flat = " ".join(text.split())  # a detail line may wrap
    for part in expect:
        assert part in flat, (part, text)


def test_fp32_peak_from_cuda_cores_and_the_highest_sm_clock() -> None:
    """An A100-SXM4: 6912 CUDA cores x 2 x 1410 MHz = 19.5 TFLOP/s, NVIDIA's published fp32 figure for it."""
    a100 = probe_nvidia(nvml=FakeNvml.load("a100_mig_nvswitch"), env={}).devices[0]
    assert a100.cuda_cores == 6912 and a100.peak_fp32_gflops == pytest.approx(19491.8)
    assert "6912 CUDA cores x 2 FLOP (FMA) x 1410 MHz" in (a100.peak_formula() or "")
    h100 = probe_nvidia(nvml=FakeNvml.load("h100_nvl_x2"), env={}).devices[0]
    assert h100.cuda_cores is None and h100.peak_fp32_gflops is None and h100.peak_formula() is None  # not read


def test_real_h200_gemm_as_a_share_of_the_gpu_peak() -> None:
    """Recorded on a real H200 (fixtures/evidence/bench_real_h200_quick_gpu.json); NVML there said 16896 cores."""
    import json

    from advisor.evidence.bench.figures import _measurement

    bench = json.loads((Path(__file__).parent / "fixtures" / "evidence" / "bench_real_h200_quick_gpu.json")
                       .read_text())
    peak = {"name": "NVIDIA H200", "fp32_gflops": 16896 * 2 * 1980 / 1000, "bf16_gflops": None,
            "formula": "16896 CUDA cores x 2 FLOP (FMA) x 1980 MHz (highest SM clock) = 66908 GFLOP/s fp32"}
    got = {(r["framework"], r["variant"]): _measurement(r["framework"], r, {}, None, peak)
           for r in bench["results"] if r["benchmark"] == "gemm"}
    fp32 = {k: m.pct_of_peak for k, m in got.items() if k[1].startswith("fp32")}
    assert set(fp32) == {("pytorch", "fp32-4096"), ("jax", "fp32-4096")}
    assert all(p is not None and 60 < p < 100 for p in fp32.values()), fp32  # 75% and 73% there
    assert all(m.pct_of_peak is None for k, m in got.items() if not k[1].startswith("fp32"))  # no tensor-core peak
    above = _measurement("x", {**bench["results"][0], "value": 70000.0}, {}, None, peak)
    said = [w for w in above.warnings if w.code == "above_peak"]
    assert len(said) == 1 and "too low for this GPU" in said[0].message
    assert said[0].params["assumes"] == "16896 CUDA cores x 2 FLOP (FMA) x 1980 MHz (highest SM clock)"


def test_real_h200_gemms_do_not_rank_pytorch_and_jax_apart() -> None:
    """At sizes that time the math, the two frameworks' GEMMs on a real H200 are within a few % (fp32 and bf16)."""
    import json

    from advisor.evidence.bench.results import BenchReport
    from advisor.scoring.evidence import benchmark_ratios

    path = Path(__file__).parent / "fixtures" / "evidence" / "bench_real_h200_quick_gpu.json"
    bench = BenchReport.from_json(json.loads(path.read_text()))
    ratios = benchmark_ratios(bench, {"pytorch", "jax"})
    gemm = [r for fw in ratios.values() for r in fw if r.benchmark == "gemm"]
    assert len(gemm) == 6
    assert all(r.ratio_to_best > 0.9 for r in gemm), [(r.variant, r.ratio_to_best) for r in gemm]
