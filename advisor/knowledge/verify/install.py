"""What an install line installs on one platform and Python, one level deep, from the index's files.

The named requirements take their newest release with a wheel for the target; a requirement with
extras, or whose line is claimed to install more than it names, has its wheel's Requires-Dist read
(markers evaluated for the target, not for this machine) and every dependency its extras add, and
every claimed one, must have a release that fits, else the next older release is tried, as pip
backtracks. Deeper dependencies are not resolved: nothing is downloaded but one METADATA per try.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from advisor.knowledge.schema import WheelPlatform
from advisor.knowledge.verify.answers import FileList, IndexFile, WheelMetadata
from advisor.knowledge.verify.releases import for_target
from advisor.knowledge.verify.targets import Target

#: Older releases of a requirement tried when its newest does not fit (pip would go on; the claim is then wrong).
MAX_TRIES = 6
_SYSTEM = {WheelPlatform.WINDOWS_AMD64: ("win32", "Windows", "nt"), WheelPlatform.MACOS_ARM64: ("darwin", "Darwin",
           "posix"), WheelPlatform.MACOS_X86_64: ("darwin", "Darwin", "posix")}
_MACHINE = {WheelPlatform.LINUX_X86_64: "x86_64", WheelPlatform.LINUX_AARCH64: "aarch64",
            WheelPlatform.MACOS_ARM64: "arm64", WheelPlatform.MACOS_X86_64: "x86_64",
            WheelPlatform.WINDOWS_AMD64: "AMD64"}


def marker_env(target: Target) -> dict[str, str]:
    """The PEP 508 marker variables of the target (not of this machine)."""
    sys_platform, system, os_name = _SYSTEM.get(target.platform, ("linux", "Linux", "posix"))
    return {"python_version": target.python_version, "python_full_version": f"{target.python_version}.0",
            "sys_platform": sys_platform, "platform_system": system, "os_name": os_name,
            "platform_machine": _MACHINE.get(target.platform, ""), "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "platform_release": "", "platform_version": "",
            "implementation_version": f"{target.python_version}.0"}


@dataclass(frozen=True)
class Resolution:
    """What the line installs (canonical name -> version), or why it does not resolve."""

    installs: dict[str, Version]
    error: str | None = None


def _deps(meta: WheelMetadata, extras: set[str], target: Target) -> list[Requirement]:
    env = marker_env(target)
    out: list[Requirement] = []
    for text in meta.requires_dist:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        marker: Marker | None = req.marker
        if marker is None or any(marker.evaluate(env | {"extra": e}) for e in (extras or {""})):
            out.append(req)
    return out


def _fits(files: FileList, req: Requirement, target: Target, pre: bool) -> Version | None:
    return next((v for v, _ in for_target(files, target, pre) if req.specifier.contains(v, prereleases=pre or None)),
                None)


def resolve(requirements: tuple[Requirement, ...], claimed: set[str], target: Target, pre: bool,
            files: Callable[[str], FileList], metadata: Callable[[IndexFile], WheelMetadata],
            prefetch: Callable[[list[str]], None] | None = None) -> Resolution:
    """Resolve the named requirements one level deep (`claimed`: canonical names the line is said to install)."""
    installs: dict[str, Version] = {}
    named = {canonicalize_name(r.name) for r in requirements}
    for req in requirements:
        name = canonicalize_name(req.name)
        options = [(v, f) for v, f in for_target(files(req.name), target, pre)
                   if req.specifier.contains(v, prereleases=pre or None)]
        if not options:
            return Resolution(installs, f"no release of {name} with a wheel for {target.label()} fits {req}")
        if not req.extras and not (claimed - named):
            installs[name] = options[0][0]
            continue
        why = ""
        for version, wheel in options[:MAX_TRIES]:
            picked: dict[str, Version] = {}
            deps = [d for d in _deps(metadata(wheel), set(req.extras), target)
                    if canonicalize_name(d.name) in claimed or (d.marker is not None and "extra" in str(d.marker))]
            if prefetch is not None:  # a base dependency nobody claims (numpy, ...) is not resolved here
                prefetch([d.name for d in deps])
            for dep in deps:
                dep_name = canonicalize_name(dep.name)
                found = _fits(files(dep.name), dep, target, pre)
                if found is None:
                    why = f"{name} {version} needs {dep}, which has no release with a wheel for {target.label()}"
                    break
                picked[dep_name] = found
            else:
                installs[name] = version
                installs.update(picked)
                break
        else:
            return Resolution(installs, why or f"{name}: no release fits")
    return Resolution(installs)


def claimed_names(resolves: Mapping[str, str]) -> set[str]:
    """Canonical names of a claim's `resolves`."""
    return {canonicalize_name(n) for n in resolves}
