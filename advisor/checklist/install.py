"""The Install section: the backend to install for (the team's required hardware, else this machine's), its line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from advisor.checklist.machine import (
    _PREFERENCE,
    HARDWARE_LABELS,
    Detected,
    cuda_driver_version,
    detect_backends,
    python_version,
)
from advisor.checklist.model import Item, Need, _links, _sources
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Framework, Hardware, Support

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport

_CUDA_IN_LINE = (re.compile(r"cuda[-_]?(\d{2})(?!\d)"), re.compile(r"\bcu(\d{2})\d\b"))


def _line_cuda_major(line: str) -> int | None:
    """The CUDA major an install line targets (`jax[cuda12]`, `.../whl/cu128`), or None if it does not say."""
    for pattern in _CUDA_IN_LINE:
        m = pattern.search(line)
        if m:
            return int(m.group(1))
    return None


def choose_cuda_line(lines: Sequence[str], cuda: tuple[int, int] | None) -> tuple[str, int | None, bool]:
    """(line, its CUDA major, whether the driver is too old for every line) for the driver's CUDA version.

    The newest CUDA major the driver supports wins (drivers run any older CUDA major too). With the
    driver's version unknown, the newest line is given and the caller says so.
    """
    majors = [(line, _line_cuda_major(line)) for line in lines]
    known = [(line, major) for line, major in majors if major is not None]
    if not known:
        return lines[0], None, False
    if cuda is None:
        line, major = max(known, key=lambda pair: pair[1])
        return line, major, False
    fitting = [(line, major) for line, major in known if major <= cuda[0]]
    if fitting:
        line, major = max(fitting, key=lambda pair: pair[1])
        return line, major, False
    line, major = min(known, key=lambda pair: pair[1])
    return line, major, True


def _install_lines(fw: Framework, hw: Hardware) -> list[str]:
    entry = fw.hardware.get(hw)
    if entry is None or not entry.install:
        return []
    return [line.strip() for line in entry.install.splitlines() if line.strip() and not line.strip().startswith("#")]


def _installed_note(probe: ProbeReport | None, framework: str) -> str:
    entry = None if probe is None else probe.frameworks.get(framework)
    if entry is None:
        return ""
    if entry.installed and entry.version:
        dist = entry.distribution or framework
        accel = entry.accelerator_ok
        sees = "; it sees an accelerator" if accel is True else "; it sees no accelerator" if accel is False else ""
        return f"Already installed here: {dist} {entry.version}{sees}."
    return ""


def backends_to_consider(probe: ProbeReport | None, must_run_on: Sequence[Hardware]) -> list[Detected]:
    """The backends to install for, best first (the CPU last): this machine's, narrowed to the required ones.

    A team that must run on hardware this machine lacks (planning on a laptop for a TPU pod) gets
    that hardware's steps, to be done where it is; the caller says so.
    """
    found = detect_backends(probe)
    required = [hw for hw in _PREFERENCE if hw in must_run_on]
    if not required:
        return found
    present = [d for d in found if d.backend in required]
    if present:
        return [*present, found[-1]]
    first = required[0]
    return [Detected(first, f"{HARDWARE_LABELS[first]} (required, not on this machine)"), found[-1]]


def _install_section(
    kb: KnowledgeBase,
    fw: Framework,
    probe: ProbeReport | None,
    warnings: list[str],
    needs: list[Need],
    must_run_on: Sequence[Hardware] = (),
) -> tuple[tuple[Item, ...], Hardware]:
    items: list[Item] = []
    chosen: Detected | None = None
    required = [hw for hw in must_run_on if hw != Hardware.CPU]
    detected = {d.backend for d in detect_backends(probe)}
    for hw in (hw for hw in _PREFERENCE if hw in required and hw not in detected):
        label = HARDWARE_LABELS[hw]
        warnings.append(
            f"This machine has no {label}, but the team must run on it: the install and verify steps are for "
            f"{label}; do them on such a machine."
        )
        break
    for det in backends_to_consider(probe, must_run_on):
        if det.backend == Hardware.CPU:
            chosen = det
            break
        support = kb.hardware_support(fw.id, det.backend)
        label = HARDWARE_LABELS[det.backend]
        if support.usable and _install_lines(fw, det.backend):
            chosen = det
            break
        why = (
            f"{fw.name} support for {label} is '{support.value}'"
            if not support.usable
            else f"the knowledge base has no install line for {fw.name} on {label}"
        )
        text = f"This machine has {det.detail} ({label}), but {why}: the steps below use the CPU build."
        warnings.append(text)
        items.append(Item(f"warn.hardware.{det.backend.value}", f"{label} will not be used", text, warning=True))
    assert chosen is not None
    backend = chosen.backend
    label = HARDWARE_LABELS[backend]
    lines = _install_lines(fw, backend)
    entry = fw.hardware.get(backend)
    detail: list[str] = []
    title = f"Install {fw.name} for {label}" if backend != Hardware.CPU else f"Install {fw.name} (CPU-only build)"
    if backend == Hardware.NVIDIA_CUDA and lines:
        cuda = cuda_driver_version(probe)
        line, major, too_old = choose_cuda_line(lines, cuda)
        if major is not None:
            title = f"Install {fw.name} for NVIDIA CUDA {major}"
        if cuda is None:
            detail.append(
                "The CUDA version the driver supports is unknown (run `nvidia-smi`); this is the newest CUDA build. "
                + (f"Other builds: {'; '.join(f'`{x}`' for x in lines if x != line)}." if len(lines) > 1 else "")
            )
        elif too_old:
            which = "oldest " if len(lines) > 1 else ""
            text = (
                f"The NVIDIA driver supports CUDA {cuda[0]}.{cuda[1]}, but the {which}{fw.name} CUDA build the "
                f"knowledge base lists needs CUDA {major}: upgrade the driver first (or use the CPU build)."
            )
            needs.append(Need("driver", text))
            warnings.append(text)
            items.append(Item("warn.driver.nvidia_cuda", "Upgrade the NVIDIA driver", text, warning=True))
        else:
            detail.append(
                f"The driver supports CUDA {cuda[0]}.{cuda[1]}"
                + (f", so this is the CUDA {major} build." if major is not None else ".")
            )
        lines = [line]
    elif not lines:
        dists = fw.distributions or [fw.id]
        lines = [f"pip install {dists[0]}"]
        detail.append(
            f"The knowledge base gives no install line for {fw.name} on {label}; this one is the package name "
            "alone: check the sources before relying on it."
        )
    found_here = [d.backend for d in detect_backends(probe)]
    if backend not in found_here:
        here = next(
            hw for hw in found_here
            if hw == Hardware.CPU or (kb.hardware_support(fw.id, hw).usable and _install_lines(fw, hw))
        )
        # The steps are for the team's hardware; say what this machine would install, so neither is mistaken.
        here_lines = _install_lines(fw, here) or [f"pip install {(fw.distributions or [fw.id])[0]}"]
        detail.append(
            f"This machine ({HARDWARE_LABELS[here]}) would install `{here_lines[0]}` instead; "
            f"your team's hardware ({label}) needs the line below."
        )
    if entry is not None:
        if entry.status != Support.SUPPORTED:
            detail.append(f"Support status for {label}: {entry.status.value}.")
        if entry.notes:
            detail.append(entry.notes)
    note = _installed_note(probe, fw.id)
    if note:
        detail.append(note)
    # Warnings first: a newcomer fixes Python and the driver before running the install line.
    python = python_version(probe)
    if python is not None and fw.python_versions and python not in fw.python_versions:
        supported = ", ".join(fw.python_versions)
        text = (
            f"This machine runs Python {python}; {fw.name} {fw.stable_version} supports Python {supported}: "
            "create an environment with one of those versions."
        )
        needs.append(Need("python", text))
        warnings.append(text)
        items.append(Item(f"warn.python.{fw.id}", f"Use a supported Python for {fw.name}", text, warning=True))
    items.append(
        Item(
            f"install.{backend.value}.{fw.id}",
            title,
            "\n".join(detail),
            code="\n".join(lines),
            code_lang="bash",
            done_when=f'`python -c "import {_import_name(fw)}"` exits without an error in the team\'s environment.',
            links=_sources(entry.sources, "install guide") if entry is not None else (),
        ),
    )
    if fw.libraries:
        shown = fw.libraries[:_MAX_EXTRAS]
        more = len(fw.libraries) - len(shown)
        bullets = [f"- {lib.name}" + (f": {_first_sentence(lib.purpose)}" if lib.purpose else "") for lib in shown]
        if more > 0:
            bullets.append(f"- and {more} more: `fwadvisor kb show {fw.id}`")
        items.append(
            Item(
                f"install.extras.{fw.id}",
                f"Add the libraries the {fw.name} ecosystem uses",
                "Install the ones your project needs:\n" + "\n".join(bullets),
                links=_links(shown),
            )
        )
    return tuple(items), backend


_MAX_EXTRAS = 8  # the knowledge base lists libraries most-used first; the rest are one command away


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return m.group(1) if m else text


def _import_name(fw: Framework) -> str:
    # The module to import is the adapter's business; the KB id is the fallback for plugin frameworks.
    from advisor.frameworks.registry import adapters

    adapter = adapters().get(fw.id)
    return adapter.import_name if adapter is not None else fw.id
