"""Probe PyTorch in a child process: version, build, devices, threads, and a tiny computation on each accelerator.

Runs as `python -m probes.fw_torch`; imports only the standard library and torch. Every section is
guarded, so a partial or odd build still reports what it can (the failures are listed in `errors`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from probes._proto import done, emit, exit_now, timed_import

_errors: list[str] = []


def _try(label: str, fn: Callable[[], Any]) -> Any:
    """fn(), or None with the failure noted under `label`."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a missing API is a fact to report, not a crash
        _errors.append(f"{label}: {type(exc).__name__}: {exc}"[:300])
        return None


def _check(torch: Any, device: str) -> None:
    """A 64x64 matmul on `device`, compared with the exact answer; emits an `accelerator` event."""
    start = time.perf_counter()
    try:
        x = torch.ones((64, 64), device=device)
        value = float((x @ x).sum().item())
        ok = value == 64.0 * 64.0 * 64.0
        emit("accelerator", device=device, ok=ok, seconds=round(time.perf_counter() - start, 4),
             error=None if ok else f"wrong result {value}")
    except Exception as exc:  # noqa: BLE001 - a failing device path is the answer
        emit("accelerator", device=device, ok=False, seconds=round(time.perf_counter() - start, 4),
             error=f"{type(exc).__name__}: {exc}"[:500])


def _pci(props: Any) -> str | None:
    bus = getattr(props, "pci_bus_id", None)
    if bus is None:
        return None
    return f"{getattr(props, 'pci_domain_id', 0):04x}:{bus:02x}:{getattr(props, 'pci_device_id', 0):02x}.0"


def main() -> None:
    """Import torch, report what it is and what it sees, then close the stream."""
    got = timed_import("torch")
    if got is None:
        done()
        return
    torch, _ = got
    version = getattr(torch, "__version__", None)
    build = {
        "cuda": _try("torch.version.cuda", lambda: torch.version.cuda),
        "hip": _try("torch.version.hip", lambda: getattr(torch.version, "hip", None)),
        "cudnn": _try("cudnn", lambda: torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None),
        "mkldnn": _try("mkldnn", lambda: bool(torch.backends.mkldnn.is_available())),
        "mkl": _try("mkl", lambda: bool(torch.backends.mkl.is_available())),
        "openmp": _try("openmp", lambda: bool(torch.backends.openmp.is_available())),
        "debug": _try("debug", lambda: bool(torch.version.debug)),
    }
    threads = {
        "intra_op": _try("threads", lambda: int(torch.get_num_threads())),
        "inter_op": _try("interop threads", lambda: int(torch.get_num_interop_threads())),
    }
    devices: list[dict[str, Any]] = [{"kind": "cpu", "name": "cpu", "id": "cpu"}]
    accel: list[str] = []
    n_cuda = _try("cuda", lambda: torch.cuda.device_count() if torch.cuda.is_available() else 0) or 0
    for i in range(n_cuda):
        props = _try(f"cuda:{i} properties", lambda i=i: torch.cuda.get_device_properties(i))
        devices.append({
            "kind": "gpu",
            "name": getattr(props, "name", "unknown"),
            "id": f"cuda:{i}",
            "pci_bus_id": _pci(props) if props is not None else None,
            "memory_bytes": getattr(props, "total_memory", None),
            "compute_capability": f"{props.major}.{props.minor}" if props is not None else None,
        })
        accel.append(f"cuda:{i}")
    if _try("mps", lambda: bool(torch.backends.mps.is_available())):
        devices.append({"kind": "mps", "name": "Apple GPU (MPS)", "id": "mps"})
        accel.append("mps")
    xpu = getattr(torch, "xpu", None)
    n_xpu = _try("xpu", lambda: torch.xpu.device_count() if xpu is not None and torch.xpu.is_available() else 0) or 0
    for i in range(n_xpu):
        name = _try(f"xpu:{i} name", lambda i=i: torch.xpu.get_device_name(i)) or "Intel GPU"
        devices.append({"kind": "xpu", "name": name, "id": f"xpu:{i}"})
        accel.append(f"xpu:{i}")
    emit("info", version=version, build=build, threads=threads)
    for d in devices:
        emit("device", **d)
    for device in accel:
        _check(torch, device)
    if _errors:
        emit("warning", errors=_errors)
    done()


if __name__ == "__main__":
    main()
    exit_now()  # the results are out; skip the framework's slow teardown
