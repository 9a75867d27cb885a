"""The team's fleet and platform against each framework's floors: GPU generation, operating system, Python.

* GPU generation: the fleet is the profile's `fleet` plus the NVIDIA GPUs the probe found (with NVML's
  compute capability). A GPU below the floor of a framework's current CUDA wheels makes the route
  *deprecated* on that fleet when an older release still supports it (the team can pin it), and *none*
  when no release does; an unknown floor changes nothing.
* OS and Python: a framework the knowledge base says does not run natively on one of the team's
  operating systems, or has no wheels for its Python version, is excluded; "unknown" stays unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware, OperatingSystem, Support
from advisor.profile import FleetEntry, Profile

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport


def _cc(value: str) -> tuple[int, int]:
    major, minor = value.split(".")
    return int(major), int(minor)


def team_fleet(profile: Profile, probe: ProbeReport | None) -> list[FleetEntry]:
    """The profile's fleet plus the probe's NVIDIA GPUs (one entry per model and compute capability)."""
    fleet = list(profile.fleet)
    seen: dict[tuple[str | None, str | None], int] = {}
    for dev in probe.gpus.devices if probe is not None else ():
        cc = dev.compute_capability
        # A saved probe's text is checked here, where it becomes a fleet entry's "major.minor".
        cc = cc if isinstance(cc, str) and cc.count(".") == 1 and cc.replace(".", "").isdigit() else None
        key = (str(dev.name) if dev.name else None, cc)
        seen[key] = seen.get(key, 0) + 1
    for (name, cc), count in seen.items():
        fleet.append(FleetEntry(hardware=Hardware.NVIDIA_CUDA, model=name, compute_capability=cc, count=count))
    return fleet


class FloorForm(StrEnum):
    """Which floor a finding is about; its params, all strings, say the rest (words: `floor_words`)."""

    GPU_FLOOR = "gpu_floor"  # name, release, floor, gpu, cc; pin: the newest release for that GPU, where one is
    OS_GPU = "os_gpu"  # name, os (the team's systems without native NVIDIA GPU support); wsl2: a way out
    BOTH = "gpu_floor_and_os_gpu"  # both findings' params (their keys differ but for the name)


@dataclass(frozen=True)
class FloorFinding:
    """A framework's CUDA route on the team's oldest NVIDIA GPU, or on the team's operating systems."""

    framework: str
    support: Support  # DEPRECATED (pin an older release) or NONE
    form: FloorForm
    facts: Mapping[str, str] = field(default_factory=dict)

    @property
    def params(self) -> dict[str, str]:
        """The finding as a warning's, note's, step's or exclusion's params (`floor_words` reads them)."""
        return {"finding": self.form.value, **self.facts}


def floor_words(params: Mapping[str, object]) -> str:
    """A floor finding's sentence from its params; a file written before the codes kept its own (`detail`)."""
    p = {k: str(v) for k, v in params.items()}
    if "detail" in p:
        return p["detail"]
    name = p.get("name", "the framework")
    if p.get("finding") == FloorForm.BOTH:
        return "; ".join(floor_words({**p, "finding": f}) for f in (FloorForm.GPU_FLOOR, FloorForm.OS_GPU))
    if p.get("finding") == FloorForm.OS_GPU:
        text = f"{name} has no native NVIDIA GPU support on {p.get('os', 'a system of the team')}"
        if p.get("wsl2"):
            text += f" (under WSL2 it is {p['wsl2']}: a team that works in WSL2 states os linux)"
        return text
    base = f"{name} {p.get('release', '')}'s CUDA wheels need compute capability {p.get('floor', '?')} or newer"
    gpu = f"{p.get('gpu', 'GPU')} (compute capability {p.get('cc', '?')})"
    if p.get("pin"):
        return f"{base}; the team's {gpu} runs at most {name} {p['pin']}: pin it, or plan new GPUs"
    return f"{base}; no release is known to support the team's {gpu}"


def gpu_floor(kb: KnowledgeBase, framework: str, fleet: list[FleetEntry]) -> FloorFinding | None:
    """How the oldest NVIDIA GPU in `fleet` fares with `framework`'s current wheels (None: fine or unknown)."""
    floor = (kb.stewardship.get(framework) or _NoSteward).gpu
    ccs = [(_cc(e.compute_capability), e) for e in fleet if e.hardware is Hardware.NVIDIA_CUDA and e.compute_capability]
    if floor is None or floor.min_compute_capability is None or not ccs:
        return None
    oldest, entry = min(ccs, key=lambda t: t[0])
    if oldest >= _cc(floor.min_compute_capability):
        return None
    facts = {"name": kb.frameworks[framework].name, "release": str(floor.release),
             "floor": str(floor.min_compute_capability), "gpu": entry.model or "GPU",
             "cc": str(entry.compute_capability)}
    older = floor.older_min_compute_capability
    if floor.last_release_for_older and older and oldest >= _cc(older):
        return FloorFinding(framework, Support.DEPRECATED, FloorForm.GPU_FLOOR,
                            {**facts, "pin": str(floor.last_release_for_older)})
    return FloorFinding(framework, Support.NONE, FloorForm.GPU_FLOOR, facts)


class _NoSteward:
    gpu = None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(".") if x.isdigit())


def python_finding(kb: KnowledgeBase, framework: str, profile: Profile) -> dict[str, str] | None:
    """What the team's Python means for `framework`'s current release (None: it has wheels for it, or unknown).

    The finding's facts: name, python (the team's), and `needs` (the oldest Python of the release, when the
    team's is older) or `newest` (when the team's is newer); `python_words` writes the sentence.

    A warning, never an exclusion: `python_versions` describes the newest release only, an older release
    may support the team's Python (JAX 0.10 runs on 3.11 while 0.12 needs 3.12), and a project's Python is
    far cheaper to change than its framework.
    """
    python = profile.environment.python
    versions = kb.frameworks[framework].python_versions
    if not python or not versions or python in versions:
        return None
    facts = {"name": kb.frameworks[framework].name, "python": python}
    low, high = min(versions, key=_version), max(versions, key=_version)
    return {**facts, "needs": low} if _version(python) < _version(low) else {**facts, "newest": high}


def python_words(params: Mapping[str, object]) -> str:
    """A Python finding's sentence from its facts; a file written before the codes kept its own (`detail`)."""
    p = {k: str(v) for k, v in params.items()}
    if "detail" in p:
        return p["detail"]
    name, python = p.get("name", "the framework"), p.get("python", "?")
    if "needs" in p:
        return (f"{name}'s current release needs Python {p['needs']} or newer (the team's is {python}): upgrade "
                f"Python, or pin an older {name} release and lose what came since")
    high = p.get("newest", "?")
    return (f"{name}'s current release has no wheels for Python {python} yet (newest: {high}): use Python "
            f"{high} for it until they ship")


def os_gpu(kb: KnowledgeBase, framework: str, profile: Profile) -> FloorFinding | None:
    """NONE where the framework has no native NVIDIA GPU support on one of the team's operating systems."""
    steward = kb.stewardship.get(framework)
    if steward is None:
        return None
    bad = [o.value for o in profile.environment.os if steward.gpu_os.get(o) is Support.NONE]
    if not bad:
        return None
    facts = {"name": kb.frameworks[framework].name, "os": ", ".join(bad)}
    win = kb.frameworks[framework].platforms.get(OperatingSystem.WINDOWS)
    if "windows" in bad and win is not None and win.wsl2 is not None and win.wsl2.usable:
        # The way out is an environment choice, not a framework change: say it where the exclusion is read.
        facts["wsl2"] = win.wsl2.value
    return FloorFinding(framework, Support.NONE, FloorForm.OS_GPU, facts)


def nvidia_finding(kb: KnowledgeBase, framework: str, profile: Profile, fleet: list[FleetEntry]) -> FloorFinding | None:
    """The worse of the GPU-generation floor and the OS's GPU support for the team's NVIDIA route (None: fine)."""
    needs_nvidia = any(e.hardware is Hardware.NVIDIA_CUDA for e in fleet) or (
        profile.constraints is not None and Hardware.NVIDIA_CUDA in profile.constraints.must_run_on
    )
    found = [
        f for f in (gpu_floor(kb, framework, fleet), os_gpu(kb, framework, profile) if needs_nvidia else None) if f
    ]
    if not found:
        return None
    worst = min(found, key=lambda f: 0 if f.support is Support.NONE else 1)
    if len(found) > 1:
        return FloorFinding(framework, worst.support, FloorForm.BOTH, {k: v for f in found for k, v in f.facts.items()})
    return worst
