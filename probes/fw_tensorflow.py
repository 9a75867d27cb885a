"""Probe TensorFlow in a child process: version, build info (CUDA/ROCm/oneDNN), devices, threads, device check.

Runs as `python -m probes.fw_tensorflow`; imports only the standard library and tensorflow.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from probes._proto import done, emit, exit_now, timed_import

_errors: list[str] = []
_KINDS = {"CPU": "cpu", "GPU": "gpu", "TPU": "tpu", "XPU": "xpu", "NPU": "npu"}


def _try(label: str, fn: Callable[[], Any]) -> Any:
    """fn(), or None with the failure noted under `label`."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a missing API is a fact to report, not a crash
        _errors.append(f"{label}: {type(exc).__name__}: {exc}"[:300])
        return None


def _check(tf: Any, name: str) -> None:
    """A 64x64 matmul pinned to the logical device `name`, compared with the exact answer."""
    start = time.perf_counter()
    try:
        with tf.device(name):
            x = tf.ones((64, 64), dtype=tf.float32)
            value = float(tf.reduce_sum(tf.matmul(x, x)).numpy())
        ok = value == 64.0 * 64.0 * 64.0
        emit("accelerator", device=name, ok=ok, seconds=round(time.perf_counter() - start, 4),
             error=None if ok else f"wrong result {value}")
    except Exception as exc:  # noqa: BLE001 - a failing device path is the answer
        emit("accelerator", device=name, ok=False, seconds=round(time.perf_counter() - start, 4),
             error=f"{type(exc).__name__}: {exc}"[:500])


def _onednn() -> bool | None:
    # TensorFlow has no public getter; this private one says whether oneDNN (formerly MKL) ops are on.
    from tensorflow.python.util import _pywrap_util_port

    return bool(_pywrap_util_port.IsMklEnabled())


def main() -> None:
    """Import tensorflow, report what it is and what it sees, then close the stream."""
    got = timed_import("tensorflow")
    if got is None:
        done()
        return
    tf, _ = got
    bench_threads = os.environ.get("FWADVISOR_BENCH_THREADS", "")
    if bench_threads.isdigit():
        # A shared probe-and-bench child (probes.probe_bench): the bench's pools, set before the runtime starts,
        # as TensorFlow refuses them afterwards; the threads reported below are then the bench's.
        _try("intra_op", lambda: tf.config.threading.set_intra_op_parallelism_threads(int(bench_threads)))
        _try("inter_op", lambda: tf.config.threading.set_inter_op_parallelism_threads(1))
    info = _try("get_build_info", lambda: dict(tf.sysconfig.get_build_info())) or {}
    build = {k: v for k, v in info.items() if isinstance(v, str | int | float | bool) or v is None}
    build["onednn"] = _try("oneDNN", _onednn)
    build["TF_ENABLE_ONEDNN_OPTS"] = os.environ.get("TF_ENABLE_ONEDNN_OPTS")
    threads = {
        # 0 means "TensorFlow decides" (one thread per core).
        "intra_op": _try("intra_op", lambda: int(tf.config.threading.get_intra_op_parallelism_threads())),
        "inter_op": _try("inter_op", lambda: int(tf.config.threading.get_inter_op_parallelism_threads())),
    }
    emit("info", version=getattr(tf, "__version__", None), build=build, threads=threads)
    physical = _try("list_physical_devices", lambda: list(tf.config.list_physical_devices())) or []
    for d in physical:
        kind = _KINDS.get(str(d.device_type), str(d.device_type).lower())
        details = _try(f"{d.name} details", lambda d=d: tf.config.experimental.get_device_details(d)) or {}
        emit("device", kind=kind, name=str(details.get("device_name") or d.device_type),
             id=str(d.name).replace("/physical_device:", ""),
             compute_capability=".".join(map(str, details["compute_capability"]))
             if details.get("compute_capability") else None)
    logical = _try("list_logical_devices", lambda: list(tf.config.list_logical_devices())) or []
    for d in logical:
        if str(d.device_type) != "CPU":
            _check(tf, d.name)
    if _errors:
        emit("warning", errors=_errors)
    done()


if __name__ == "__main__":
    main()
    exit_now()  # the results are out; skip the framework's slow teardown
