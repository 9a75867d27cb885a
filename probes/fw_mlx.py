"""Probe MLX in a child process: version, default device, the devices it sees, and a tiny computation on each GPU.

Runs as `python -m probes.fw_mlx`; imports only the standard library and mlx. MLX has two device types, cpu
and gpu; its gpu is Metal on Apple silicon or CUDA where the mlx-cuda build is installed (`mlx[cpu]` on
Linux has neither).
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


def gpu_backend(mx: Any) -> str | None:
    """Which back end MLX's gpu device runs on: "metal", "cuda", or None when it has no gpu."""
    if not mx.is_available(mx.gpu):
        return None
    if mx.metal.is_available():
        return "metal"
    if mx.cuda.is_available():
        return "cuda"
    return "gpu"


def _check(mx: Any, device: Any, label: str) -> None:
    """A 64x64 matmul on `device` (a stream of it), evaluated and compared with the exact answer."""
    start = time.perf_counter()
    try:
        x = mx.ones((64, 64), dtype=mx.float32)
        y = mx.matmul(x, x, stream=device).sum(stream=device)
        mx.eval(y)  # MLX is lazy: nothing runs until the value is evaluated
        value = float(y.item())
        ok = value == 64.0 * 64.0 * 64.0
        emit("accelerator", device=label, ok=ok, seconds=round(time.perf_counter() - start, 4),
             error=None if ok else f"wrong result {value}")
    except Exception as exc:  # noqa: BLE001 - a failing device path is the answer
        emit("accelerator", device=label, ok=False, seconds=round(time.perf_counter() - start, 4),
             error=f"{type(exc).__name__}: {exc}"[:500])


def devices(mx: Any) -> list[tuple[str, str, Any, str]]:
    """(schema kind, name, mlx.core.Device, label) for every device MLX reports, cpu first."""
    out: list[tuple[str, str, Any, str]] = []
    backend = gpu_backend(mx)
    for dtype, kind in ((mx.cpu, "cpu"), (mx.gpu, {"metal": "mps"}.get(backend or "", "gpu"))):
        if not mx.is_available(dtype):
            continue
        for index in range(int(_try(f"device_count {kind}", lambda dtype=dtype: mx.device_count(dtype)) or 0)):
            dev = mx.Device(dtype, index)
            info = _try(f"device_info {kind}:{index}", lambda dev=dev: mx.device_info(dev)) or {}
            name = str(info.get("device_name") or info.get("name") or kind)
            out.append((kind, name, dev, f"{'cpu' if dtype == mx.cpu else backend}:{index}"))
    return out


def main() -> None:
    """Import mlx.core, report what it is and what it sees, then close the stream."""
    got = timed_import("mlx.core")
    if got is None:
        done()
        return
    import mlx.core as mx  # `__import__("mlx.core")` returned the package; the module itself is cached now

    default = _try("default_device", lambda: mx.default_device())
    build = {
        "default_device": str(default) if default is not None else None,
        "gpu_backend": _try("gpu_backend", lambda: gpu_backend(mx)),
    }
    found = devices(mx)
    emit("info", version=getattr(mx, "__version__", None), build=build,
         threads={"cpu_devices": sum(1 for d in found if d[0] == "cpu"),
                  "note": "MLX sizes its CPU thread pools itself and exposes no setting"})
    for kind, name, _dev, label in found:
        emit("device", kind=kind, name=name, id=label)
    for kind, _name, dev, label in found:
        if kind != "cpu":
            _check(mx, dev, label)
    if _errors:
        emit("warning", errors=_errors)
    done()


if __name__ == "__main__":
    main()
    exit_now()  # the results are out; skip the framework's slow teardown
