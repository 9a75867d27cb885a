"""The adapters that ship with fwadvisor (registered in pyproject's `fwadvisor.frameworks` group)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from advisor.frameworks.base import FrameworkAdapter

#: Keras 3 backend name -> the adapter of the framework it imports.
_KERAS_BACKENDS = {"tensorflow": "tensorflow", "jax": "jax", "torch": "pytorch"}


def keras_backend(env: dict[str, str] | None = None) -> str:
    """The backend Keras 3 will import, read as Keras reads it: `KERAS_BACKEND`, else `~/.keras/keras.json`.

    Keras' own default is "tensorflow". Only the probe's scheduling uses this, so an unreadable
    file reads as the default; the child reports the backend Keras actually chose.
    """
    env = dict(os.environ) if env is None else env
    if env.get("KERAS_BACKEND"):
        return env["KERAS_BACKEND"]
    home = env.get("HOME")
    if home:
        try:
            config = json.loads((Path(home) / ".keras" / "keras.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            config = None
        if isinstance(config, dict) and isinstance(config.get("backend"), str):
            return str(config["backend"])
    return "tensorflow"


class PyTorchAdapter(FrameworkAdapter):
    """PyTorch (CPU, CUDA, ROCm, MPS, XPU builds)."""

    id = "pytorch"
    display_name = "PyTorch"
    import_name = "torch"
    distributions = ("torch",)
    probe_module = "probes.fw_torch"
    typical_probe_s = 2.5
    bench_module = "probes.bench_torch"


class JaxAdapter(FrameworkAdapter):
    """JAX with jaxlib (CPU, CUDA, TPU plugins)."""

    id = "jax"
    display_name = "JAX"
    import_name = "jax"
    distributions = ("jax",)
    probe_module = "probes.fw_jax"
    typical_probe_s = 1.5
    bench_module = "probes.bench_jax"


class TensorFlowAdapter(FrameworkAdapter):
    """TensorFlow (the full, CPU-only or macOS builds)."""

    id = "tensorflow"
    display_name = "TensorFlow"
    import_name = "tensorflow"
    distributions = ("tensorflow", "tensorflow-cpu", "tensorflow-macos", "tf-nightly")
    probe_module = "probes.fw_tensorflow"
    typical_probe_s = 5.0  # import alone 4.3-6.6 s on a 2-core EPYC (torch 2.3 s, JAX 1.5 s)
    bench_module = "probes.bench_tensorflow"


class KerasAdapter(FrameworkAdapter):
    """Keras 3 on the backend it is configured with (`KERAS_BACKEND`: tensorflow, jax or torch)."""

    id = "keras"
    display_name = "Keras 3"
    import_name = "keras"
    distributions = ("keras",)
    probe_module = "probes.fw_keras"
    typical_probe_s = 0.3  # after its backend, in the backend's child; alone it costs the backend's import
    # No benchmark script: keras' ops run on its backend, which is benchmarked under its own name.
    bench_module = None

    def probe_with(self) -> str | None:
        """Keras imports its backend: probe it in the backend's child, after the backend's own probe."""
        return _KERAS_BACKENDS.get(keras_backend())


class MlxAdapter(FrameworkAdapter):
    """Apple's MLX: Metal on Apple silicon, CUDA with mlx-cuda, and the Linux CPU build (`mlx[cpu]`)."""

    id = "mlx"
    display_name = "MLX"
    import_name = "mlx.core"  # the package `mlx` is a namespace; the framework is its compiled `core`
    distributions = ("mlx",)
    probe_module = "probes.fw_mlx"
    typical_probe_s = 0.3  # import 0.05-0.1 s on a 2-core Xeon (mlx[cpu] 0.32.4)
    bench_module = "probes.bench_mlx"
