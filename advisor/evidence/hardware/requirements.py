"""Requirement checks: is the installed Python supported by each framework, is the driver new enough for its CUDA build.

The CUDA -> minimum driver table is small and changes once per CUDA major release, so it is a
documented constant here rather than knowledge-base data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic.dataclasses import dataclass

if TYPE_CHECKING:
    from advisor.evidence.hardware.nvidia import GpuReport
    from advisor.evidence.probe_frameworks import FrameworkProbe

#: Minimum Linux driver branch per CUDA major release under minor-version compatibility
#: ("CUDA Toolkit 11.x, 12.x, and 13.x Minimum and Maximum Required Driver Versions", NVIDIA).
CUDA_MIN_DRIVER: dict[int, int] = {13: 580, 12: 525, 11: 450}
CUDA_MIN_DRIVER_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"


@dataclass
class Requirement:
    """One checked requirement; `ok` is None when it could not be decided."""

    framework: str
    check: str  # "python" | "cuda_driver"
    ok: bool | None
    detail: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Requirement:
        """A saved requirement (one entry of the probe's `requirements`)."""
        return cls(str(data["framework"]), str(data["check"]), data.get("ok"), str(data.get("detail", "")))


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """The leading numbers of a version string ("525.60.13" -> (525, 60, 13)); None when there are none."""
    if not text:
        return None
    m = re.match(r"\s*(\d+(?:\.\d+)*)", str(text))
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def cuda_from_torch_version(version: str | None) -> str | None:
    """The CUDA build of a PyTorch wheel from its local version ("2.8.0+cu128" -> "12.8"); None otherwise."""
    m = re.search(r"\+cu(\d+)(\d)$", version or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def check_python(
    framework: str, python: str, supported: list[str] | None, *, kb_loaded: bool = True, installed: str | None = None
) -> Requirement:
    """Whether this Python's minor version is one the framework's current release supports."""
    minor = ".".join(python.split(".")[:2])
    if not kb_loaded:
        return Requirement(framework, "python", None, "not checked: the knowledge base was not loaded")
    if supported is None:
        return Requirement(framework, "python", None, f"the knowledge base has no entry for {framework}")
    ok = minor in supported
    verb = "is" if ok else "is NOT"
    detail = f"Python {minor} {verb} among the versions {framework}'s current release supports ({', '.join(supported)})"
    if not ok and installed:
        detail += f"; the installed {installed} may still run on it, but upgrades will not"
    return Requirement(framework, "python", ok, detail)


def check_cuda_driver(
    framework: str, cuda_build: str | None, gpu_status: str, driver_version: str | None, driver_cuda: str | None
) -> Requirement | None:
    """Whether the driver is new enough for a CUDA build; None when the build is not a CUDA one."""
    if not cuda_build:
        return None
    build = parse_version(cuda_build)
    if build is None:
        return Requirement(framework, "cuda_driver", None, f"unreadable CUDA build version {cuda_build!r}")
    need = CUDA_MIN_DRIVER.get(build[0])
    if gpu_status != "ok" or not driver_version:
        return Requirement(
            framework, "cuda_driver", False,
            f"built for CUDA {cuda_build} but no usable NVIDIA driver was found ({gpu_status}): CPU only",
        )
    have = parse_version(driver_version)
    if need is None or have is None:
        return Requirement(
            framework, "cuda_driver", None,
            f"CUDA {cuda_build}: no minimum driver known for this major release ({CUDA_MIN_DRIVER_SOURCE})",
        )
    ok = have[0] >= need
    detail = (
        f"CUDA {cuda_build} build needs driver >= {need} (minor-version compatibility, {CUDA_MIN_DRIVER_SOURCE}); "
        f"driver is {driver_version}"
    )
    dc = parse_version(driver_cuda)
    if ok and dc is not None and dc[:2] < build[:2]:
        detail += f" (supports CUDA {driver_cuda}: newer CUDA features may be unavailable)"
    return Requirement(framework, "cuda_driver", ok, detail)


def check_all(
    frameworks: Mapping[str, FrameworkProbe],
    python: str,
    python_versions: Mapping[str, list[str]] | None,
    gpus: GpuReport,
) -> list[Requirement]:
    """Every check for every installed framework (keyed by id, as in the probe report).

    `python_versions` maps framework ids to the Python versions the knowledge base lists; None
    means the knowledge base could not be loaded.
    """
    out: list[Requirement] = []
    for fid, fw in frameworks.items():
        if not fw.installed:
            continue
        supported = python_versions.get(fid) if python_versions is not None else None
        out.append(check_python(fid, python, supported, kb_loaded=python_versions is not None, installed=fw.version))
        req = check_cuda_driver(fid, fw.cuda_build, gpus.status, gpus.driver_version, gpus.cuda_driver_version)
        if req is not None:
            out.append(req)
    return out
