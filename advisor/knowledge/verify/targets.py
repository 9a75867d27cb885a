"""How a claimed wheel platform and Python tag become pip's --platform/--python-version/--abi flags."""

from __future__ import annotations

import functools
import platform as _platform
import re
import sys
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms

from advisor.knowledge.schema import WheelPlatform

#: Every glibc baseline a manylinux wheel may carry (with the legacy aliases below).
_GLIBC_MINORS = range(5, 40)
_LEGACY = {"manylinux2014": 17, "manylinux2010": 12, "manylinux1": 5}
#: The newest macOS a wheel may name; packaging expands it down to 11.0 (arm64) or 10.x (x86_64).
_MACOS_NEWEST = (26, 0)


def platform_tags(platform: WheelPlatform) -> list[str]:
    """The wheel platform tags that install on `platform` (empty for pure-Python wheels)."""
    if platform is WheelPlatform.ANY:
        return []
    if platform in (WheelPlatform.LINUX_X86_64, WheelPlatform.LINUX_AARCH64):
        arch = platform.value.removeprefix("linux_")
        legacy = [f"{alias}_{arch}" for alias in _LEGACY if arch == "x86_64" or alias == "manylinux2014"]
        return [f"manylinux_2_{m}_{arch}" for m in reversed(_GLIBC_MINORS)] + legacy
    if platform in (WheelPlatform.MACOS_ARM64, WheelPlatform.MACOS_X86_64):
        return list(mac_platforms(_MACOS_NEWEST, platform.value.removeprefix("macos_")))
    return ["win_amd64"]


@dataclass(frozen=True)
class Target:
    """One (platform, Python tag) a claim is checked on."""

    platform: WheelPlatform
    tag: str  # cp313, cp313t or py3
    python_version: str  # "3.13": what pip's --python-version gets

    @property
    def free_threaded(self) -> bool:
        """Whether the tag names a free-threaded CPython ABI (cp313t)."""
        return self.tag.endswith("t")

    def label(self) -> str:
        """`linux_x86_64/cp313t` for messages."""
        return f"{self.platform.value}/{self.tag}"

    @property
    def tags(self) -> frozenset[Tag]:
        """Every wheel tag that installs on this target, as pip would accept them for it."""
        return _tags(self.platform, self.tag, self.python_version)

    def pip_command(self, name: str) -> str:
        """A pip command that lists the versions with a wheel for this target (what a user can run to see it)."""
        plats = platform_tags(self.platform)
        if self.platform in (WheelPlatform.MACOS_ARM64, WheelPlatform.MACOS_X86_64):
            plats = plats[:1]  # pip expands a macOS version downwards itself, but takes manylinux ones as given
        flags = "".join(f" --platform {p}" for p in plats)
        flags += f" --python-version {self.python_version} --only-binary=:all:"
        flags += f" --implementation cp --abi {self.tag}" if self.tag.startswith("cp") else " --abi none"
        return f"python -m pip index versions {name}{flags}"


@functools.lru_cache(maxsize=256)
def _tags(platform: WheelPlatform, tag: str, python_version: str) -> frozenset[Tag]:
    version = tuple(int(p) for p in python_version.split("."))
    plats = platform_tags(platform)
    out: set[Tag] = set()
    if tag.startswith("cp"):
        # A free-threaded CPython takes neither the stable ABI (abi3) nor the GIL build's ABI.
        out |= {t for t in cpython_tags(version, abis=[tag], platforms=plats or ["any"])
                if not (tag.endswith("t") and t.abi == "abi3")}
    out |= set(compatible_tags(version, f"cp{version[0]}{version[1]}" if tag.startswith("cp") else None, plats))
    return frozenset(out)


def lowest_python(requires_python: str | None) -> str:
    """The lowest 3.x a Requires-Python admits (pure-Python wheels are checked there); 3.10 if unbounded."""
    spec = SpecifierSet(requires_python or "")
    for minor in range(8, 20):
        if spec.contains(f"3.{minor}.0", prereleases=True) or spec.contains(f"3.{minor}.99"):
            return f"3.{minor}"
    return "3.10"


def target(platform: WheelPlatform, tag: str, requires_python: str | None) -> Target:
    """The target for a claimed tag; `py3` takes its Python version from Requires-Python."""
    m = re.fullmatch(r"cp3(\d+)t?", tag)
    version = f"3.{m.group(1)}" if m else lowest_python(requires_python)
    return Target(platform, tag, version)


def host_platform() -> WheelPlatform | None:
    """This machine's platform: pip evaluates dependency markers for it, whatever --platform says."""
    machine = _platform.machine().lower()
    table = {
        ("linux", "x86_64"): WheelPlatform.LINUX_X86_64, ("linux", "aarch64"): WheelPlatform.LINUX_AARCH64,
        ("darwin", "arm64"): WheelPlatform.MACOS_ARM64, ("darwin", "x86_64"): WheelPlatform.MACOS_X86_64,
        ("win32", "amd64"): WheelPlatform.WINDOWS_AMD64,
    }
    return table.get((sys.platform, machine))
