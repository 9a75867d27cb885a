"""Child `result` events into `Measurement`s: % of the estimated peak, warnings, the measuring environment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from advisor.evidence.bench.results import (
    BenchWarning,
    BenchWarningCode,
    MachineState,
    Measurement,
    _opt_float,
    _opt_interval,
)

if TYPE_CHECKING:
    from advisor.evidence.hardware.cpu import PeakEstimate


def _peak_from_probe() -> PeakEstimate | None:
    """The CPU peak estimate of the hardware probe (None when it cannot be estimated)."""
    try:
        from advisor.evidence.hardware.cpu import probe_cpu
    except ImportError:
        return None
    try:
        return probe_cpu().peak
    except Exception:  # noqa: BLE001 - a peak estimate is optional context, never a reason to fail
        return None


def _gpu_peak_from_probe() -> dict[str, Any] | None:
    """The fp32 peak of the GPU the frameworks use first (CUDA device 0), from NVML; None without one."""
    try:
        from advisor.evidence.hardware.nvidia import probe_nvidia

        report = probe_nvidia()
    except Exception:  # noqa: BLE001 - a peak estimate is optional context, never a reason to fail
        return None
    devices = [d for d in report.devices if d.cuda_index == 0] or report.devices[:1]
    if not devices or devices[0].peak_fp32_gflops is None:
        return None
    d = devices[0]
    return {"name": d.name, "fp32_gflops": d.peak_fp32_gflops, "bf16_gflops": None, "formula": d.peak_formula()}


def _pct_of_peak(res: Mapping[str, Any], device: str, peak: PeakEstimate | None,
                 gpu_peak: Mapping[str, Any] | None = None) -> float | None:
    """GEMM (and conv) throughput as a percentage of the device's estimated peak for that precision."""
    if device == "gpu" and gpu_peak:
        params = res.get("params") or {}
        if res.get("benchmark") == "gemm" and params.get("dtype") == "fp32" and gpu_peak.get("fp32_gflops"):
            return 100.0 * float(res.get("value") or 0.0) / float(gpu_peak["fp32_gflops"])
        return None  # tensor-core peaks are not estimated, and a conv's FLOPs run through cuDNN's choice
    if peak is None or device != "cpu":
        return None
    params = res.get("params") or {}
    if res.get("benchmark") == "gemm":
        gflops = float(res.get("value") or 0.0)
        dtype = params.get("dtype")
    elif res.get("benchmark") == "conv" and params.get("gflops") is not None:
        gflops, dtype = float(params["gflops"]), "fp32"
    else:
        return None
    ref = peak.fp32_gflops if dtype == "fp32" else (peak.bf16_gflops if dtype == "bf16" else None)
    return 100.0 * gflops / ref if ref else None


def _measurement(framework: str, res: Mapping[str, Any], env: Mapping[str, Any],
                 peak: PeakEstimate | None, gpu_peak: Mapping[str, Any] | None = None) -> Measurement:
    device = str(res.get("device", "cpu"))
    pct = _pct_of_peak(res, device, peak, gpu_peak)
    warnings = tuple(BenchWarning.from_event(w) for w in res.get("warnings") or ())
    formula = (peak.formula if peak is not None and device == "cpu"
               else str((gpu_peak or {}).get("formula") or "") if device == "gpu" else "")
    if pct is not None and pct > 100.0 and formula:
        # Say so next to the figure: the estimate's clock (or FMA count) is lower than what the chip ran at.
        assumes = formula.split("=")[0].strip()
        warnings += (
            BenchWarning(
                BenchWarningCode.ABOVE_PEAK,
                f"{pct:.0f}% of the estimated peak: the estimate is too low for this {device.upper()} "
                f"(it assumes {assumes})",
                {"pct": pct, "assumes": assumes},
            ),
        )
    return Measurement(
        framework=framework, device=device, device_name=str(res.get("device_name") or ""),
        benchmark=str(res["benchmark"]), variant=str(res["variant"]), metric=str(res.get("metric", "throughput")),
        value=float(res["value"]), unit=str(res["unit"]), higher_is_better=bool(res.get("higher_is_better", True)),
        params=dict(res.get("params") or {}), median_s=_opt_float(res.get("median_s")),
        iqr_s=_opt_float(res.get("iqr_s")), min_s=_opt_float(res.get("min_s")), samples=int(res.get("samples") or 0),
        compile_s=_opt_float(res.get("compile_s")), pct_of_peak=pct,
        warnings=warnings, environment=dict(env),
        times_s=tuple(float(t) for t in res.get("times_s") or ()),
        ci=_opt_interval(res.get("ci")), machine=cast(MachineState, dict(res.get("machine") or {})),
        rounds=int(res.get("rounds") or 1),
    )


def _env_of(event: Mapping[str, Any]) -> dict[str, Any]:
    """The per-result environment: version, threads, build of the child that measured it."""
    threads = event.get("threads") or {}
    n = threads.get("intra_op")
    return {"version": event.get("version"), "threads": n, "thread_settings": threads,
            "build": event.get("build") or {}, "python": event.get("python"), "devices": event.get("devices") or []}
