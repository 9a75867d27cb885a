"""Probe JAX in a child process: jax/jaxlib versions, backend, devices, and a tiny computation on each accelerator.

Runs as `python -m probes.fw_jax`; imports only the standard library and jax (with its jaxlib).
TPU, GPU (CUDA/ROCm) and Metal devices all appear in JAX's device list, so this is also how a TPU
VM is confirmed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from probes._proto import done, emit, exit_now, timed_import

_errors: list[str] = []
#: JAX platform names -> the probe schema's device kinds.
_KINDS = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu", "rocm": "gpu", "tpu": "tpu", "metal": "mps", "METAL": "mps"}


def _try(label: str, fn: Callable[[], Any]) -> Any:
    """fn(), or None with the failure noted under `label`."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a missing API is a fact to report, not a crash
        _errors.append(f"{label}: {type(exc).__name__}: {exc}"[:300])
        return None


def _check(jax: Any, device: Any, label: str) -> None:
    """A 64x64 matmul placed on `device`, compared with the exact answer."""
    start = time.perf_counter()
    try:
        x = jax.device_put(jax.numpy.ones((64, 64), dtype=jax.numpy.float32), device)
        value = float((x @ x).sum().block_until_ready())
        ok = value == 64.0 * 64.0 * 64.0
        emit("accelerator", device=label, ok=ok, seconds=round(time.perf_counter() - start, 4),
             error=None if ok else f"wrong result {value}")
    except Exception as exc:  # noqa: BLE001 - a failing device path is the answer
        emit("accelerator", device=label, ok=False, seconds=round(time.perf_counter() - start, 4),
             error=f"{type(exc).__name__}: {exc}"[:500])


def _jaxlib_version() -> str | None:
    import jaxlib

    return getattr(jaxlib, "__version__", None) or getattr(getattr(jaxlib, "version", None), "__version__", None)


def main() -> None:
    """Import jax, report what it is and what it sees, then close the stream."""
    got = timed_import("jax")
    if got is None:
        done()
        return
    jax, _ = got
    backend = _try("default_backend", lambda: jax.default_backend())
    default_devices = _try("devices", lambda: list(jax.devices())) or []
    cpu_devices = [] if backend == "cpu" else (_try("cpu devices", lambda: list(jax.devices("cpu"))) or [])
    build = {
        "jaxlib": _try("jaxlib", _jaxlib_version),
        "backend": backend,
        "platform_version": _try("platform_version", lambda: default_devices[0].client.platform_version)
        if default_devices else None,
        "x64": _try("x64", lambda: bool(jax.config.jax_enable_x64)),
    }
    # XLA sizes its CPU thread pool itself and exposes no getter; only the device count is known.
    threads = {"cpu_devices": len(cpu_devices) if cpu_devices else sum(1 for d in default_devices
                                                                      if d.platform == "cpu")}
    emit("info", version=getattr(jax, "__version__", None), build=build, threads=threads)
    accel: list[tuple[Any, str]] = []
    for d in [*default_devices, *cpu_devices]:
        platform = str(getattr(d, "platform", "unknown"))
        kind = _KINDS.get(platform, platform.lower())
        label = f"{platform}:{getattr(d, 'id', '?')}"
        emit("device", kind=kind, name=str(getattr(d, "device_kind", platform)), id=label)
        if kind != "cpu":
            accel.append((d, label))
    for d, label in accel:
        _check(jax, d, label)
    if _errors:
        emit("warning", errors=_errors)
    done()


if __name__ == "__main__":
    main()
    exit_now()  # the results are out; skip the framework's slow teardown
