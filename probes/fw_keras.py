"""Probe Keras 3 in a child process: version, the backend it runs on (and that backend's version), devices, a check.

Runs as `python -m probes.fw_keras`; imports only the standard library, keras and the one backend keras
was configured with (`KERAS_BACKEND` or `~/.keras/keras.json`; keras imports it itself). Keras has no
device API of its own across backends, so the devices come from the backend, and the check is a
64x64 `keras.ops.matmul` on keras' default device, compared with the exact answer.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from probes._proto import done, emit, exit_now, timed_import

_errors: list[str] = []
_KINDS = {"CPU": "cpu", "GPU": "gpu", "TPU": "tpu", "cpu": "cpu", "gpu": "gpu", "cuda": "gpu", "tpu": "tpu",
          "mps": "mps", "xpu": "xpu", "rocm": "gpu", "METAL": "mps"}


def _try(label: str, fn: Callable[[], Any]) -> Any:
    """fn(), or None with the failure noted under `label`."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a missing API is a fact to report, not a crash
        _errors.append(f"{label}: {type(exc).__name__}: {exc}"[:300])
        return None


def _tensorflow_devices() -> tuple[str | None, list[dict[str, Any]]]:
    import tensorflow as tf

    devs = [{"kind": _KINDS.get(str(d.device_type), str(d.device_type).lower()), "name": str(d.device_type),
             "id": str(d.name).replace("/physical_device:", "")} for d in tf.config.list_physical_devices()]
    return getattr(tf, "__version__", None), devs


def _jax_devices() -> tuple[str | None, list[dict[str, Any]]]:
    import jax

    devs = [{"kind": _KINDS.get(str(d.platform), str(d.platform)), "name": str(getattr(d, "device_kind", d.platform)),
             "id": f"{d.platform}:{d.id}"} for d in jax.devices()]
    return getattr(jax, "__version__", None), devs


def _torch_devices() -> tuple[str | None, list[dict[str, Any]]]:
    import torch

    devs: list[dict[str, Any]] = [{"kind": "cpu", "name": "cpu", "id": "cpu"}]
    if torch.cuda.is_available():
        devs += [{"kind": "gpu", "name": torch.cuda.get_device_name(i), "id": f"cuda:{i}"}
                 for i in range(torch.cuda.device_count())]
    elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        devs.append({"kind": "mps", "name": "Apple GPU (MPS)", "id": "mps"})
    return getattr(torch, "__version__", None), devs


#: Backend name -> how to list its devices (keras has already imported the backend; these only read it).
_BACKENDS: dict[str, Callable[[], tuple[str | None, list[dict[str, Any]]]]] = {
    "tensorflow": _tensorflow_devices, "jax": _jax_devices, "torch": _torch_devices,
}


def _check(keras: Any, label: str) -> None:
    """A 64x64 matmul through keras.ops on keras' default device, compared with the exact answer."""
    start = time.perf_counter()
    try:
        x = keras.ops.ones((64, 64), dtype="float32")
        value = float(keras.ops.convert_to_numpy(keras.ops.sum(keras.ops.matmul(x, x))))
        ok = value == 64.0 * 64.0 * 64.0
        emit("accelerator", device=label, ok=ok, seconds=round(time.perf_counter() - start, 4),
             error=None if ok else f"wrong result {value}")
    except Exception as exc:  # noqa: BLE001 - a failing device path is the answer
        emit("accelerator", device=label, ok=False, seconds=round(time.perf_counter() - start, 4),
             error=f"{type(exc).__name__}: {exc}"[:500])


def main() -> None:
    """Import keras (which imports its backend), report what it is and what it sees, then close the stream."""
    got = timed_import("keras")
    if got is None:
        done()
        return
    keras, _ = got
    version = getattr(keras, "__version__", None)
    major = (version or "").split(".")[0]
    if major.isdigit() and int(major) < 3:
        _errors.append(f"keras {version} is not Keras 3 (the multi-backend Keras this adapter describes)")
    backend = _try("backend", lambda: str(keras.config.backend()))
    lister = _BACKENDS.get(backend or "")
    backend_version, devices = (_try(f"{backend} devices", lister) or (None, [])) if lister else (None, [])
    if lister is None:
        _errors.append(f"backend {backend!r}: devices not listed (only tensorflow, jax and torch are)")
    build = {
        "backend": backend,
        "backend_version": backend_version,
        "KERAS_BACKEND": os.environ.get("KERAS_BACKEND"),
        "floatx": _try("floatx", lambda: str(keras.config.floatx())),
        "image_data_format": _try("image_data_format", lambda: str(keras.config.image_data_format())),
    }
    emit("info", version=version, build=build, threads={})
    devices = devices or [{"kind": "cpu", "name": "cpu", "id": "cpu"}]
    for d in devices:
        emit("device", **d)
    accel = [d for d in devices if d.get("kind") != "cpu"]
    if accel:
        # keras places its ops on the backend's default device, the first accelerator.
        _check(keras, str(accel[0].get("id")))
    if _errors:
        emit("warning", errors=_errors)
    done()


if __name__ == "__main__":
    main()
    exit_now()  # the results are out; skip the framework's slow teardown
