"""Software around the frameworks: OS, libc, Python, the environment manager, CUDA toolkit, cuDNN, relevant env vars.

Privacy: nothing that names the host or the user is reported unless `identify` is set, which
means no host name, no paths (they often hold the user name) and only an allow-list of
environment variables.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic.dataclasses import dataclass

from advisor.evidence.hardware.saved import known_fields
from advisor.privacy import IDENTIFYING_ENV, RECORDED_ENV, recorded_env

#: The recorded environment is the one allow-list in advisor.privacy (exact names; paths only with --identify).
ENV_REPORTED = tuple(RECORDED_ENV)
ENV_IDENTIFYING = tuple(IDENTIFYING_ENV)


@dataclass
class CudaToolkit:
    """A CUDA toolkit found on this machine (frameworks' pip wheels usually bring their own runtime)."""

    version: str | None
    source: str  # "nvcc --version" or "<root>/version.json"
    path: str | None = None  # only with --identify


@dataclass
class SoftwareInfo:
    """The software this probe ran under (the probe's `software` section)."""

    os: str
    kernel: str | None
    libc: str | None
    python: str
    python_implementation: str
    env_kind: str  # venv | conda | uv | system
    pip: str | None
    cuda_toolkit: CudaToolkit | None
    cudnn: str | None
    env: dict[str, str] = Field(default_factory=dict)
    hostname: str | None = None  # only with --identify
    user: str | None = None  # only with --identify
    python_executable: str | None = None  # only with --identify

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SoftwareInfo:
        """A saved `software` section; a field an older probe lacks is unknown."""
        fields_ = known_fields(cls, data)
        fields_["cuda_toolkit"] = CudaToolkit(**data["cuda_toolkit"]) if data.get("cuda_toolkit") else None
        return cls(**fields_)


def _os_name() -> str:
    if sys.platform.startswith("linux"):
        try:
            text = Path("/etc/os-release").read_text(encoding="utf-8")
        except OSError:
            text = ""
        m = re.search(r'^PRETTY_NAME="?([^"\n]+)"?', text, re.M)
        return f"Linux ({m.group(1)})" if m else "Linux"
    if sys.platform == "darwin":
        return f"macOS {platform.mac_ver()[0]}".strip()
    return f"{platform.system()} {platform.release()}".strip()


def _libc() -> str | None:
    name, version = platform.libc_ver()
    if name:
        return f"{name} {version}".strip()
    return None


def env_kind(env: Mapping[str, str] | None = None) -> str:
    """How this Python was set up: "conda", "uv", "venv" or "system"."""
    env = os.environ if env is None else env
    prefix = Path(sys.prefix)
    if (prefix / "conda-meta").is_dir() or env.get("CONDA_PREFIX") == sys.prefix:
        return "conda"
    if sys.prefix != sys.base_prefix:
        cfg = prefix / "pyvenv.cfg"
        try:
            if "uv =" in cfg.read_text(encoding="utf-8"):
                return "uv"
        except OSError:
            pass
        return "venv"
    return "system"


def parse_nvcc_version(text: str) -> str | None:
    """The release from `nvcc --version` output ("Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88")."""
    m = re.search(r"V(\d+\.\d+(?:\.\d+)?)", text) or re.search(r"release (\d+\.\d+)", text)
    return m.group(1) if m else None


def cuda_toolkit(env: Mapping[str, str] | None = None, *, identify: bool = False) -> CudaToolkit | None:
    """The CUDA toolkit from `nvcc --version` on PATH (or under CUDA_HOME), else a toolkit's version.json."""
    env = os.environ if env is None else env
    candidates: list[str] = []
    on_path = shutil.which("nvcc")
    if on_path:
        candidates.append(on_path)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(var):
            candidates.append(str(Path(env[var]) / "bin" / "nvcc"))
    candidates.append("/usr/local/cuda/bin/nvcc")
    for nvcc in dict.fromkeys(candidates):
        if not Path(nvcc).is_file():
            continue
        try:
            out = subprocess.run(  # list arguments, no shell
                [nvcc, "--version"], capture_output=True, text=True, timeout=10, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        version = parse_nvcc_version(out)
        if version:
            return CudaToolkit(version, "nvcc --version", nvcc if identify else None)
    roots = [env[v] for v in ("CUDA_HOME", "CUDA_PATH") if env.get(v)] + ["/usr/local/cuda"]
    for root in roots:
        try:
            data = json.loads((Path(root) / "version.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        version = (data.get("cuda") or {}).get("version") if isinstance(data, dict) else None
        if version:
            return CudaToolkit(str(version), "version.json", root if identify else None)
    return None


def parse_cudnn_header(text: str) -> str | None:
    """The version in `cudnn_version.h` (CUDNN_MAJOR/MINOR/PATCHLEVEL)."""
    parts = [re.search(rf"#define CUDNN_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCHLEVEL")]
    if not all(parts):
        return None
    return ".".join(m.group(1) for m in parts if m)


def cudnn_version(env: Mapping[str, str] | None = None) -> str | None:
    """cuDNN from a toolkit header or from pip's nvidia-cudnn-cuXX package; None when absent."""
    env = os.environ if env is None else env
    roots = [env[v] for v in ("CUDA_HOME", "CUDA_PATH") if env.get(v)] + ["/usr/local/cuda", "/usr"]
    for root in roots:
        for header in (Path(root) / "include" / "cudnn_version.h", Path(root) / "include" / "cudnn.h"):
            try:
                version = parse_cudnn_header(header.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            if version:
                return f"{version} ({header.name})"
    for dist in ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11"):
        try:
            return f"{metadata.version(dist)} (pip {dist})"
        except metadata.PackageNotFoundError:
            continue
    return None


def probe_software(*, identify: bool = False, env: Mapping[str, str] | None = None) -> SoftwareInfo:
    """Describe the software environment; identifying details only when `identify`."""
    env = os.environ if env is None else env
    try:
        pip: str | None = metadata.version("pip")
    except metadata.PackageNotFoundError:
        pip = None
    info = SoftwareInfo(
        os=_os_name(),
        kernel=platform.release() or None,
        libc=_libc(),
        python=platform.python_version(),
        python_implementation=platform.python_implementation(),
        env_kind=env_kind(env),
        pip=pip,
        cuda_toolkit=cuda_toolkit(env, identify=identify),
        cudnn=cudnn_version(env),
        env=recorded_env(env, identify=identify),
    )
    if identify:
        info.hostname = platform.node() or None
        try:
            import getpass

            info.user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name in some containers
            info.user = None
        info.python_executable = sys.executable
    return info
