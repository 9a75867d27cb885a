"""How a claimed wheel platform and Python tag become pip's --platform/--python-version/--abi flags."""

from __future__ import annotations

import platform as _platform
import re
import sys
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.utils import parse_wheel_filename

from advisor.knowledge.schema import WheelPlatform

#: pip uses an explicit `--platform manylinux_2_X` as given (it expands only macOS and the legacy
#: manylinux2014 alias), so a Linux claim lists every glibc baseline a wheel may carry.
_GLIBC_MINORS = range(17, 40)
#: pip expands a macOS platform down to 11.0 (arm64) or 10.x (x86_64); name the newest major.
_MACOS_NEWEST = "26_0"


def pip_platforms(platform: WheelPlatform) -> list[str]:
    """The --platform values that mean `platform` (empty for pure-Python wheels: no --platform)."""
    if platform is WheelPlatform.ANY:
        return []
    if platform in (WheelPlatform.LINUX_X86_64, WheelPlatform.LINUX_AARCH64):
        arch = platform.value.removeprefix("linux_")
        return [f"manylinux_2_{m}_{arch}" for m in reversed(_GLIBC_MINORS)] + [f"manylinux2014_{arch}"]
    if platform in (WheelPlatform.MACOS_ARM64, WheelPlatform.MACOS_X86_64):
        return [f"macosx_{_MACOS_NEWEST}_{platform.value.removeprefix('macos_')}"]
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

    def pip_flags(self) -> list[str]:
        """--platform/--python-version/--implementation/--abi for this target."""
        flags: list[str] = []
        for plat in pip_platforms(self.platform):
            flags += ["--platform", plat]
        flags += ["--python-version", self.python_version]
        if self.tag.startswith("cp"):
            flags += ["--implementation", "cp", "--abi", self.tag]  # pip adds abi3 and none itself
        else:
            flags += ["--abi", "none"]
        return flags

    def accepts(self, filename: str) -> bool:
        """Whether a wheel pip chose really is one for this target (pip 23 also offers abi3 to cp313t)."""
        try:
            _, _, _, tags = parse_wheel_filename(filename)
        except ValueError:
            return False
        abis = {t.abi for t in tags}
        if self.free_threaded:
            return self.tag in abis
        if self.platform is WheelPlatform.ANY:
            return any(t.platform == "any" for t in tags)
        return True


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
