"""Requirement checks: is the installed Python supported by each framework, is the driver new enough for its CUDA build.

The CUDA -> minimum driver table is small and changes once per CUDA major release, so it is a
documented constant here rather than knowledge-base data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import Field
from pydantic.dataclasses import dataclass

if TYPE_CHECKING:
    from advisor.evidence.hardware.nvidia import GpuReport
    from advisor.evidence.probe_frameworks import FrameworkProbe

#: Minimum Linux driver branch per CUDA major release under minor-version compatibility
#: ("CUDA Toolkit 11.x, 12.x, and 13.x Minimum and Maximum Required Driver Versions", NVIDIA).
CUDA_MIN_DRIVER: dict[int, int] = {13: 580, 12: 525, 11: 450}
CUDA_MIN_DRIVER_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"


class RequirementCode(StrEnum):
    """What a requirement check found; `requirement_words` writes its words from the code and its facts."""

    KB_NOT_LOADED = "kb_not_loaded"  # no facts: the knowledge base was not loaded
    NO_ENTRY = "no_entry"  # no facts: the knowledge base has no entry for the framework
    PYTHON = "python"  # facts: python (minor), supported (comma-separated), and installed where not supported
    CUDA_UNREADABLE = "cuda_unreadable"  # facts: cuda_build
    NO_DRIVER = "no_driver"  # facts: cuda_build, gpu_status
    NO_MIN_DRIVER = "no_min_driver"  # facts: cuda_build (no minimum driver known for its major release)
    CUDA_DRIVER = "cuda_driver"  # facts: cuda_build, need, driver, and driver_cuda where older than the build
    NOTE = "note"  # a file from before the codes: only its words (`detail`)


#: A requirement's facts: names and figures, never a sentence.
Facts = dict[str, str | int | float]


def requirement_words(framework: str, code: RequirementCode, ok: bool | None, facts: Mapping[str, object]) -> str:
    """The words of a requirement check, from its code and facts."""
    f = facts
    if code is RequirementCode.KB_NOT_LOADED:
        return "not checked: the knowledge base was not loaded"
    if code is RequirementCode.NO_ENTRY:
        return f"the knowledge base has no entry for {framework}"
    if code is RequirementCode.PYTHON:
        verb = "is" if ok else "is NOT"
        text = (f"Python {f['python']} {verb} among the versions {framework}'s current release supports "
                f"({f['supported']})")
        return text + (f"; the installed {f['installed']} may still run on it, but upgrades will not"
                       if "installed" in f else "")
    if code is RequirementCode.CUDA_UNREADABLE:
        return f"unreadable CUDA build version {str(f['cuda_build'])!r}"
    if code is RequirementCode.NO_DRIVER:
        return f"built for CUDA {f['cuda_build']} but no usable NVIDIA driver was found ({f['gpu_status']}): CPU only"
    if code is RequirementCode.NO_MIN_DRIVER:
        return f"CUDA {f['cuda_build']}: no minimum driver known for this major release ({CUDA_MIN_DRIVER_SOURCE})"
    if code is RequirementCode.CUDA_DRIVER:
        text = (f"CUDA {f['cuda_build']} build needs driver >= {f['need']} (minor-version compatibility, "
                f"{CUDA_MIN_DRIVER_SOURCE}); driver is {f['driver']}")
        return text + (f" (supports CUDA {f['driver_cuda']}: newer CUDA features may be unavailable)"
                       if "driver_cuda" in f else "")
    return str(f.get("detail", ""))


@dataclass
class Requirement:
    """One checked requirement; `ok` is None when it could not be decided.

    `code` and `facts` are what programs read; `detail`, the words written from them, is kept in the probe file
    for a person reading it (and is all a file from before the codes has).
    """

    framework: str
    check: str  # "python" | "cuda_driver"
    ok: bool | None
    detail: str
    code: RequirementCode = RequirementCode.NOTE
    facts: Facts = Field(default_factory=dict)

    @classmethod
    def found(cls, framework: str, check: str, ok: bool | None, code: RequirementCode, **facts: str | int | float
              ) -> Requirement:
        """A requirement from its code and facts, its words written from them."""
        return cls(framework, check, ok, requirement_words(framework, code, ok, facts), code, dict(facts))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Requirement:
        """A saved requirement (one entry of the probe's `requirements`)."""
        detail = str(data.get("detail", ""))
        try:
            code = RequirementCode(str(data.get("code")))
        except ValueError:
            code = RequirementCode.NOTE
        raw = data.get("facts")
        facts: Facts = {
            str(k): v for k, v in (raw.items() if isinstance(raw, Mapping) else ())
            if isinstance(v, str | int | float) and not isinstance(v, bool)
        }
        framework, ok = str(data["framework"]), data.get("ok")
        try:
            requirement_words(framework, code, ok, facts)
        except (KeyError, ValueError):  # facts that do not fit the code: keep only the saved words
            code, facts = RequirementCode.NOTE, {}
        return cls(framework, str(data["check"]), ok, detail, code, facts)


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
        return Requirement.found(framework, "python", None, RequirementCode.KB_NOT_LOADED)
    if supported is None:
        return Requirement.found(framework, "python", None, RequirementCode.NO_ENTRY)
    ok = minor in supported
    extra = {"installed": installed} if not ok and installed else {}
    return Requirement.found(framework, "python", ok, RequirementCode.PYTHON, python=minor,
                             supported=", ".join(supported), **extra)


def check_cuda_driver(
    framework: str, cuda_build: str | None, gpu_status: str, driver_version: str | None, driver_cuda: str | None
) -> Requirement | None:
    """Whether the driver is new enough for a CUDA build; None when the build is not a CUDA one."""
    if not cuda_build:
        return None
    build = parse_version(cuda_build)
    if build is None:
        return Requirement.found(framework, "cuda_driver", None, RequirementCode.CUDA_UNREADABLE, cuda_build=cuda_build)
    need = CUDA_MIN_DRIVER.get(build[0])
    if gpu_status != "ok" or not driver_version:
        return Requirement.found(framework, "cuda_driver", False, RequirementCode.NO_DRIVER, cuda_build=cuda_build,
                                 gpu_status=gpu_status)
    have = parse_version(driver_version)
    if need is None or have is None:
        return Requirement.found(framework, "cuda_driver", None, RequirementCode.NO_MIN_DRIVER, cuda_build=cuda_build)
    ok = have[0] >= need
    dc = parse_version(driver_cuda)
    older = {"driver_cuda": str(driver_cuda)} if ok and dc is not None and dc[:2] < build[:2] else {}
    return Requirement.found(framework, "cuda_driver", ok, RequirementCode.CUDA_DRIVER, cuda_build=cuda_build,
                             need=need, driver=driver_version, **older)


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
