"""The adapters that ship with fwadvisor (registered in pyproject's `fwadvisor.frameworks` group)."""

from __future__ import annotations

from advisor.frameworks.base import FrameworkAdapter


class PyTorchAdapter(FrameworkAdapter):
    """PyTorch (CPU, CUDA, ROCm, MPS, XPU builds)."""

    id = "pytorch"
    display_name = "PyTorch"
    import_name = "torch"
    distributions = ("torch",)
    probe_module = "probes.fw_torch"
    bench_module = "probes.bench_torch"


class JaxAdapter(FrameworkAdapter):
    """JAX with jaxlib (CPU, CUDA, TPU plugins)."""

    id = "jax"
    display_name = "JAX"
    import_name = "jax"
    distributions = ("jax",)
    probe_module = "probes.fw_jax"
    bench_module = "probes.bench_jax"


class TensorFlowAdapter(FrameworkAdapter):
    """TensorFlow (the full, CPU-only or macOS builds)."""

    id = "tensorflow"
    display_name = "TensorFlow"
    import_name = "tensorflow"
    distributions = ("tensorflow", "tensorflow-cpu", "tensorflow-macos", "tf-nightly")
    probe_module = "probes.fw_tensorflow"
    bench_module = "probes.bench_tensorflow"


class KerasAdapter(FrameworkAdapter):
    """Keras 3 on the backend it is configured with (`KERAS_BACKEND`: tensorflow, jax or torch)."""

    id = "keras"
    display_name = "Keras 3"
    import_name = "keras"
    distributions = ("keras",)
    probe_module = "probes.fw_keras"
    # No benchmark script: keras' ops run on its backend, which is benchmarked under its own name.
    bench_module = None
