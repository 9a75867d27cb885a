"""Turn the knowledge base and one machine's probe into a first-week onboarding checklist with stable item ids.

The checklist is data first (frozen dataclasses, `to_json`), Markdown second (GitHub task lists).
Item ids come from content keys (`install.cpu.jax`, `concept.autograd`, `pitfall.jax.prng_keys`),
never from positions, so ticks stored by `advisor.progress` survive a regenerated checklist even
when the knowledge base gains or loses entries. The probe is read as plain JSON (the
`fwadvisor.probe/1` shape, see `advisor/evidence/probe.py`), defensively: a report from another
version, or one with sections missing, yields "unknown" rather than an exception.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from advisor.errors import UsageError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Framework, Hardware, Support

SCHEMA = "fwadvisor.checklist/1"

#: Section ids and titles, in the order a newcomer works through them.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("install", "Install"),
    ("verify", "Verify"),
    ("concepts", "Concepts to unlearn and learn"),
    ("pitfalls", "Pitfalls"),
    ("tooling", "Tooling"),
    ("first_tasks", "First tasks"),
)

HARDWARE_LABELS: dict[Hardware, str] = {
    Hardware.CPU: "CPU",
    Hardware.NVIDIA_CUDA: "NVIDIA CUDA",
    Hardware.AMD_ROCM: "AMD ROCm",
    Hardware.GOOGLE_TPU: "Google TPU",
    Hardware.APPLE_METAL: "Apple Metal",
    Hardware.HUAWEI_ASCEND: "Huawei Ascend",
    Hardware.INTEL_GPU: "Intel GPU",
    Hardware.AWS_NEURON: "AWS Trainium/Inferentia (Neuron)",
}

#: What the verify step should see, in words a newcomer recognises.
DEVICE_NOUNS: dict[Hardware, str] = {
    Hardware.CPU: "CPU",
    Hardware.NVIDIA_CUDA: "NVIDIA GPU",
    Hardware.AMD_ROCM: "AMD GPU",
    Hardware.GOOGLE_TPU: "TPU",
    Hardware.APPLE_METAL: "Apple GPU (Metal)",
    Hardware.HUAWEI_ASCEND: "Ascend NPU",
    Hardware.INTEL_GPU: "Intel GPU",
    Hardware.AWS_NEURON: "Neuron device (Trainium/Inferentia)",
}

#: Probe accelerator keys -> hardware ids (the mapping in docs/contracts: scoring uses the same one).
_ACCEL_KEYS: tuple[tuple[str, Hardware], ...] = (
    ("tpu", Hardware.GOOGLE_TPU),
    ("rocm", Hardware.AMD_ROCM),
    ("apple_mps", Hardware.APPLE_METAL),
    ("intel_xpu", Hardware.INTEL_GPU),
    ("ascend", Hardware.HUAWEI_ASCEND),
)

#: Which backend to install for when a machine has several: the dedicated accelerator first.
_PREFERENCE: tuple[Hardware, ...] = (
    Hardware.GOOGLE_TPU,
    Hardware.AWS_NEURON,
    Hardware.NVIDIA_CUDA,
    Hardware.AMD_ROCM,
    Hardware.APPLE_METAL,
    Hardware.HUAWEI_ASCEND,
    Hardware.INTEL_GPU,
)

#: Oldest Linux driver (R-series) that supports each CUDA major, from NVIDIA's CUDA toolkit release notes
#: (table 3, "CUDA Toolkit and Minimum Required Driver Version"). Used only when the probe reports the
#: driver version but not the CUDA version the driver supports.
_DRIVER_MIN_FOR_CUDA: tuple[tuple[int, float], ...] = ((13, 580.0), (12, 525.60), (11, 450.80))

_CUDA_IN_LINE = (re.compile(r"cuda[-_]?(\d{2})(?!\d)"), re.compile(r"\bcu(\d{2})\d\b"))


@dataclass(frozen=True)
class ChecklistLink:
    """A link shown under an item."""

    name: str
    url: str
    purpose: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "url": self.url, "purpose": self.purpose}


@dataclass(frozen=True)
class Item:
    """One thing to do; `id` is derived from content and stays the same across regenerations."""

    id: str
    title: str
    detail: str = ""
    code: str | None = None
    code_lang: str = ""
    done_when: str | None = None
    links: tuple[ChecklistLink, ...] = ()
    warning: bool = False
    done: bool = False

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "id": self.id,
            "title": self.title,
            "detail": self.detail,
            "code": self.code,
            "code_lang": self.code_lang or None,
            "done_when": self.done_when,
            "links": [link.to_json() for link in self.links],
            "warning": self.warning,
            "done": self.done,
        }


@dataclass(frozen=True)
class Section:
    """A titled group of items."""

    id: str
    title: str
    items: tuple[Item, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"id": self.id, "title": self.title, "items": [i.to_json() for i in self.items]}


@dataclass(frozen=True)
class Need:
    """Something this machine must change before the framework runs as chosen (team mode lists these)."""

    kind: str  # "driver" | "python"
    detail: str

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": self.kind, "detail": self.detail}


@dataclass(frozen=True)
class Detected:
    """A hardware backend the probe found, with what it saw."""

    backend: Hardware
    detail: str


@dataclass(frozen=True)
class Checklist:
    """The onboarding checklist for one framework, one machine and (optionally) one former framework."""

    framework: str
    framework_name: str
    from_framework: str | None
    from_name: str | None
    targets: tuple[str, ...]
    backend: Hardware
    machine: Mapping[str, Any]
    sections: tuple[Section, ...]
    needs: tuple[Need, ...] = ()
    warnings: tuple[str, ...] = ()
    knowledge: Mapping[str, Any] = field(default_factory=dict)
    stale_done: tuple[str, ...] = ()  # ticked ids that no longer exist in this checklist

    @property
    def items(self) -> tuple[Item, ...]:
        """All items in order."""
        return tuple(item for section in self.sections for item in section.items)

    @property
    def ids(self) -> tuple[str, ...]:
        """All item ids in order."""
        return tuple(item.id for item in self.items)

    def item(self, item_id: str) -> Item | None:
        """The item with this id, or None."""
        return next((i for i in self.items if i.id == item_id), None)

    def with_done(self, done: Collection[str]) -> Checklist:
        """A copy with the items in `done` ticked (and the rest unticked); unknown ids become `stale_done`."""
        ids = set(self.ids)
        sections = tuple(replace(s, items=tuple(replace(i, done=i.id in done) for i in s.items)) for s in self.sections)
        stale = tuple(sorted(d for d in done if d not in ids))
        return replace(self, sections=sections, stale_done=stale)

    @property
    def progress(self) -> tuple[int, int]:
        """(done, total) over all items."""
        items = self.items
        return sum(1 for i in items if i.done), len(items)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (`fwadvisor.checklist/1`)."""
        done, total = self.progress
        return {
            "schema": SCHEMA,
            "framework": self.framework,
            "framework_name": self.framework_name,
            "from": self.from_framework,
            "from_name": self.from_name,
            "targets": list(self.targets),
            "backend": self.backend.value,
            "machine": dict(self.machine),
            "knowledge": dict(self.knowledge),
            "needs": [n.to_json() for n in self.needs],
            "warnings": list(self.warnings),
            "progress": {"done": done, "total": total},
            "sections": [s.to_json() for s in self.sections],
            "stale_done": list(self.stale_done),
        }

    def command(self) -> str:
        """The `fwadvisor checklist` invocation that regenerates this checklist (shown with the tick hint)."""
        parts = ["fwadvisor", "checklist", "--framework", self.framework]
        if self.from_framework:
            parts += ["--from", self.from_framework]
        for target in self.targets:
            parts += ["--target", target]
        return " ".join(parts)

    def to_markdown(self, level: int = 1) -> str:
        """Markdown with GitHub task lists; `level` is the heading level of the title (team mode nests it)."""
        h = "#" * level
        title = f"{self.framework_name} onboarding checklist"
        if self.from_name:
            title += f" (coming from {self.from_name})"
        lines = [f"{h} {title}", ""]
        lines.append(f"Machine: {machine_line(self.machine)}.  ")
        kb = self.knowledge
        if kb:
            lines.append(f"Knowledge base: {kb.get('name', 'unknown')} {kb.get('version', 'unknown')}.")
        done, total = self.progress
        lines += [
            "",
            f"Progress: {done}/{total} done. Tick an item with `{self.command()} --done ID` "
            "(the id is shown after each item).",
            "",
        ]
        for warning in self.warnings:
            # One quote block per warning: consecutive `>` lines would merge into one paragraph.
            lines += [f"> **Warning:** {warning}", ""]
        for section in self.sections:
            lines += [f"{h}# {section.title}", ""]
            if not section.items:
                lines += ["_Nothing known for this section._", ""]
            for item in section.items:
                lines += _item_markdown(item)
            lines.append("")
        if self.stale_done:
            lines.append(
                "Ticked earlier but no longer in this checklist (kept in the progress file): "
                + ", ".join(f"`{s}`" for s in self.stale_done)
            )
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"


def _item_markdown(item: Item) -> list[str]:
    box = "[x]" if item.done else "[ ]"
    mark = "**Warning:** " if item.warning else ""
    pad = "  "
    blocks: list[tuple[str, str]] = [("text", f"- {box} {mark}**{item.title}** `{item.id}`")]
    for line in item.detail.splitlines():
        if line.strip():
            blocks.append(("bullet" if line.lstrip().startswith("- ") else "text", line))
    if item.code:
        # A fence longer than any backtick run inside the code keeps the block intact.
        fence = "```" + "`" * max((len(m) for m in re.findall(r"`+", item.code)), default=0)
        blocks.append(("code", "\n".join([f"{fence}{item.code_lang}", *item.code.splitlines(), fence])))
    if item.done_when:
        blocks.append(("text", f"Done when: {item.done_when}"))
    if item.links:
        blocks.append(("text", "Links: " + ", ".join(_md_link(link) for link in item.links)))
    out: list[str] = []
    for i, (kind, text) in enumerate(blocks):
        following = blocks[i + 1][0] if i + 1 < len(blocks) else None
        if kind == "text" and following == "text":
            text += "  "  # a hard line break: each fact on its own line, rendered or raw
        if i == 0:
            out.append(text)
        else:
            out += [pad + line if line else "" for line in text.split("\n")]
        if kind == "bullet" and following == "text":
            out.append("")  # ends the sub-list; otherwise the next line would continue its last bullet
    return out


def _md_link(link: ChecklistLink) -> str:
    # Purposes stay in the JSON; in Markdown they would drown the links (the detail says what matters).
    return f"[{link.name}]({link.url})"


# --- reading the probe JSON ------------------------------------------------------------------------------------


def _get(data: Any, *keys: str) -> Any:
    """`data[k1][k2]...`, or None where any level is missing or not a mapping."""
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _version_tuple(value: Any) -> tuple[int, int] | None:
    """(major, minor) from "12.4", "12040" (NVML's integer form), 12040 or (12, 4); None if unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value) or value < 0:  # json.loads accepts Infinity and NaN
            return None
        number = int(value)
        return (number // 1000, (number % 1000) // 10) if number >= 1000 else (number, 0)
    if isinstance(value, list | tuple) and value and all(isinstance(v, int) for v in value):
        return int(value[0]), int(value[1]) if len(value) > 1 else 0
    if isinstance(value, str):
        m = re.match(r"\s*(\d+)(?:\.(\d+))?", value)
        if m:
            if m.group(2) is None and len(m.group(1)) >= 4:
                return _version_tuple(int(m.group(1)))
            return int(m.group(1)), int(m.group(2) or 0)
    return None


def cuda_driver_version(probe: Mapping[str, Any]) -> tuple[int, int] | None:
    """The newest CUDA version the installed NVIDIA driver supports, from the probe; None if unknown."""
    gpus = _get(probe, "gpus") or {}
    devices = gpus.get("devices") if isinstance(gpus, Mapping) else None
    first = devices[0] if isinstance(devices, list) and devices and isinstance(devices[0], Mapping) else {}
    for holder in (gpus, first, _get(probe, "software") or {}):
        if not isinstance(holder, Mapping):
            continue
        for key in ("cuda_driver_version", "cuda_driver", "driver_cuda_version", "cuda_version"):
            found = _version_tuple(holder.get(key))
            if found:
                return found
    # Only the driver's own version: the oldest driver each CUDA major needs tells the newest major it runs.
    for holder in (gpus, first):
        if not isinstance(holder, Mapping):
            continue
        driver = holder.get("driver_version")
        if isinstance(driver, str):
            m = re.match(r"\s*(\d+)(?:\.(\d+))?", driver)
            if m:
                number = float(f"{m.group(1)}.{m.group(2) or 0}")
                for major, minimum in _DRIVER_MIN_FOR_CUDA:
                    if number >= minimum:
                        return major, 0
    return None


def driver_version(probe: Mapping[str, Any]) -> str | None:
    """The NVIDIA driver version string from the probe, if any."""
    gpus = _get(probe, "gpus") or {}
    devices = gpus.get("devices") if isinstance(gpus, Mapping) else None
    first = devices[0] if isinstance(devices, list) and devices and isinstance(devices[0], Mapping) else {}
    for holder in (gpus, first):
        if isinstance(holder, Mapping) and isinstance(holder.get("driver_version"), str):
            return str(holder["driver_version"])
    return None


def detect_backends(probe: Mapping[str, Any]) -> list[Detected]:
    """Every accelerator backend the probe found, in install-preference order; the CPU is always last."""
    found: dict[Hardware, str] = {}
    devices = _get(probe, "gpus", "devices")
    if isinstance(devices, list) and devices:
        names = [str(d.get("name", "NVIDIA GPU")) for d in devices if isinstance(d, Mapping)]
        found[Hardware.NVIDIA_CUDA] = _count_names(names) or f"{len(devices)} NVIDIA GPU(s)"
    for key, hw in _ACCEL_KEYS:
        entry = _get(probe, "accelerators", key)
        if isinstance(entry, Mapping) and entry.get("present") is True:
            found[hw] = str(entry.get("detail") or HARDWARE_LABELS[hw])
    ordered = [Detected(hw, found[hw]) for hw in _PREFERENCE if hw in found]
    model = _get(probe, "cpu", "model")
    ordered.append(Detected(Hardware.CPU, str(model) if model else "CPU"))
    return ordered


def _count_names(names: Sequence[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n}x {name}" if n > 1 else name for name, n in counts.items())


def python_version(probe: Mapping[str, Any]) -> str | None:
    """The Python minor version ("3.12") from the probe, or None if it is not there."""
    value = _get(probe, "software", "python")
    if isinstance(value, Mapping):
        value = value.get("version")
    if isinstance(value, str):
        m = re.match(r"\s*(?:CPython\s+|Python\s+)?(\d+)\.(\d+)", value, re.IGNORECASE)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def machine_summary(probe: Mapping[str, Any]) -> dict[str, Any]:
    """The facts about the machine a checklist (and the team table) shows; "unknown" where the probe is silent."""
    detected = detect_backends(probe)
    cuda = cuda_driver_version(probe)
    python_full = _get(probe, "software", "python")
    if isinstance(python_full, Mapping):
        python_full = python_full.get("version")
    return {
        "os": _str_or_unknown(_get(probe, "software", "os")),
        "python": _str_or_unknown(python_full),
        "cpu": _str_or_unknown(_get(probe, "cpu", "model")),
        "arch": _str_or_unknown(_get(probe, "cpu", "arch")),
        "usable_cores": _get(probe, "cpu", "usable_cores"),
        "memory_total_bytes": _get(probe, "memory", "total_bytes"),
        "accelerators": [{"backend": d.backend.value, "detail": d.detail} for d in detected[:-1]],
        "gpu_status": _get(probe, "gpus", "status"),
        "nvidia_driver": driver_version(probe),
        "cuda_driver": f"{cuda[0]}.{cuda[1]}" if cuda else None,
    }


def _str_or_unknown(value: Any) -> str:
    return str(value) if value not in (None, "") else "unknown"


def machine_line(machine: Mapping[str, Any]) -> str:
    """One line describing a machine summary (for Markdown)."""
    labels = {hw.value: label for hw, label in HARDWARE_LABELS.items()}
    accel = ", ".join(
        f"{a['detail']} ({labels[a['backend']]})"
        for a in machine.get("accelerators", [])
        if isinstance(a, Mapping) and a.get("backend") in labels
    )
    parts = [
        f"{machine.get('os', 'unknown')}",
        f"Python {machine.get('python', 'unknown')}",
        f"CPU {machine.get('cpu', 'unknown')}",
        accel or "no accelerator found",
    ]
    if machine.get("cuda_driver"):
        parts.append(f"driver supports CUDA {machine['cuda_driver']}")
    return "; ".join(parts)


# --- building the checklist ------------------------------------------------------------------------------------


def _links(entries: Iterable[Any]) -> tuple[ChecklistLink, ...]:
    return tuple(ChecklistLink(str(e.name), str(e.url), getattr(e, "purpose", None)) for e in entries)


def _sources(urls: Iterable[Any], name: str = "source") -> tuple[ChecklistLink, ...]:
    # Named by host ("docs.jax.dev") or by package (a Package URL, "pkg:pypi/jax"): a row of identical
    # "source" links says nothing.
    out = []
    for url in urls:
        text = str(url)
        label = text.split("@")[0] if text.startswith("pkg:") else (urlsplit(text).hostname or "").removeprefix("www.")
        out.append(ChecklistLink(label or name, text, name))
    return tuple(out)


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


def _check_ids(kb: KnowledgeBase, framework: str, from_framework: str | None, targets: Sequence[str]) -> None:
    if framework not in kb.frameworks:
        raise UsageError(f"unknown framework {framework!r}; known: {', '.join(kb.frameworks)}", field="--framework")
    if from_framework is not None:
        if from_framework not in kb.frameworks:
            raise UsageError(f"unknown framework {from_framework!r}; known: {', '.join(kb.frameworks)}", field="--from")
        if from_framework == framework:
            raise UsageError("--from names the framework being onboarded; leave it out or name another", field="--from")
    for target in targets:
        if target not in kb.targets:
            raise UsageError(
                f"unknown deployment target {target!r}; known: {', '.join(kb.targets) or 'none'}", field="--target"
            )


def build_checklist(
    kb: KnowledgeBase,
    framework: str,
    probe: Mapping[str, Any] | None,
    *,
    from_framework: str | None = None,
    targets: Sequence[str] = (),
    done: Collection[str] = (),
) -> Checklist:
    """The checklist for `framework` on the machine `probe` describes (probe JSON; None = nothing known).

    Raises `UsageError` for an unknown framework, former framework or deployment target.
    """
    _check_ids(kb, framework, from_framework, targets)
    probe = probe if isinstance(probe, Mapping) else {}
    fw = kb.frameworks[framework]
    src = kb.frameworks[from_framework] if from_framework else None
    warnings: list[str] = []
    needs: list[Need] = []
    install, backend = _install_section(kb, fw, probe, warnings, needs)
    sections = (
        Section("install", "Install", install),
        Section("verify", "Verify", _verify_section(kb, fw, backend, warnings)),
        Section("concepts", "Concepts to unlearn and learn", _concepts_section(kb, fw, src, warnings)),
        Section("pitfalls", "Pitfalls", _pitfalls_section(kb, fw)),
        Section("tooling", "Tooling", _tooling_section(kb, fw, targets)),
        Section("first_tasks", "First tasks", _tasks_section(kb, fw, src, backend, targets)),
    )
    if not probe:
        warnings.append("no probe of the machine was given: install lines assume a CPU-only machine")
    packs = kb.packs
    checklist = Checklist(
        framework=framework,
        framework_name=fw.name,
        from_framework=from_framework,
        from_name=src.name if src else None,
        targets=tuple(targets),
        backend=backend,
        machine=machine_summary(probe),
        sections=sections,
        needs=tuple(needs),
        warnings=tuple(warnings),
        knowledge={
            "name": packs[0].name if packs else "unknown",
            "version": kb.version,
            "packs": [p.to_json() for p in packs],
        },
    )
    _assert_unique(checklist)
    return checklist.with_done(done)


def _assert_unique(checklist: Checklist) -> None:
    seen: set[str] = set()
    for item_id in checklist.ids:
        # Two items with one id would make a tick ambiguous; ids come from KB keys, so this is a KB or code bug.
        if item_id in seen:
            raise AssertionError(f"duplicate checklist item id {item_id!r}")
        seen.add(item_id)


def _installed_note(probe: Mapping[str, Any], framework: str) -> str:
    entry = _get(probe, "frameworks", framework)
    if not isinstance(entry, Mapping):
        return ""
    if entry.get("installed") and entry.get("version"):
        dist = entry.get("distribution") or framework
        accel = entry.get("accelerator_ok")
        # `is` tests: a report is untrusted JSON, and an unhashable value must not reach a dict lookup.
        sees = "; it sees an accelerator" if accel is True else "; it sees no accelerator" if accel is False else ""
        return f"Already installed here: {dist} {entry['version']}{sees}."
    return ""


def _install_section(
    kb: KnowledgeBase, fw: Framework, probe: Mapping[str, Any], warnings: list[str], needs: list[Need]
) -> tuple[tuple[Item, ...], Hardware]:
    items: list[Item] = []
    chosen: Detected | None = None
    for det in detect_backends(probe):
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


def verify_command(framework: str) -> str:
    """The `fwadvisor` command that checks again that the framework works on this machine."""
    from advisor.frameworks.registry import adapters

    # `probe --framework` needs an adapter; a framework without one is still covered by a full probe.
    return f"fwadvisor probe --framework {framework}" if framework in adapters() else "fwadvisor probe"


def _verify_section(kb: KnowledgeBase, fw: Framework, backend: Hardware, warnings: list[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    onboarding = kb.onboarding.get(fw.id)
    device = DEVICE_NOUNS[backend]
    if onboarding is not None:
        items.append(
            Item(
                f"verify.snippet.{fw.id}",
                f"Prove {fw.name} computes on the {device}",
                "Save as `verify.py` and run `python verify.py` in the environment you installed into.",
                code=onboarding.verify.rstrip(),
                code_lang="python",
                done_when=f"it runs to the end without an error and names the {device} device.",
            )
        )
    else:
        warnings.append(f"the knowledge base has no verification snippet for {fw.name}")
    items.append(
        Item(
            f"verify.command.{fw.id}",
            "Let fwadvisor check it again",
            f"Re-probes this machine in a child process: imports {fw.name}, lists the devices it sees and runs a "
            "small computation.",
            code=verify_command(fw.id),
            code_lang="bash",
            done_when=f"it reports {fw.name} as installed and working"
            + (f" with the {device} visible." if backend != Hardware.CPU else "."),
        )
    )
    return tuple(items)


def _concepts_section(kb: KnowledgeBase, fw: Framework, src: Framework | None, warnings: list[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    if src is not None:
        migration = kb.migrations.get((src.id, fw.id))
        if migration is not None:
            items.append(
                Item(
                    f"migration.{src.id}.{fw.id}",
                    f"Read why moving from {src.name} to {fw.name} costs what it does ({migration.cost.value})",
                    "\n".join(f"- {d}" for d in migration.drivers),
                    links=_links(migration.tools) + _sources(migration.sources),
                )
            )
        rows = kb.concept_mapping(src.id, fw.id)
        for concept, old, new in rows:
            old_none, old_why = _no_counterpart(old)
            new_none, new_why = _no_counterpart(new)
            detail = [concept.note] if concept.note else []
            if old_none and new_none:
                title = f"{concept.name}: neither framework has a built-in counterpart"
                detail[:0] = [f"{src.name}: {old_why or 'none'}.", f"{fw.name}: {new_why or 'none'}."]
            elif new_none:
                title = f"{concept.name}: `{old}` has no direct counterpart in {fw.name}"
                if new_why:
                    detail.insert(0, f"In {fw.name}: {new_why}.")
            elif old_none:
                title = f"{concept.name}: learn `{new}` (nothing like it in {src.name})"
                if old_why:
                    detail.insert(0, f"In {src.name}: {old_why}.")
            else:
                title = f"{concept.name}: unlearn `{old}`, learn `{new}`"
            items.append(Item(f"concept.{concept.id}", title, "\n".join(detail)))
        if not rows:
            warnings.append(f"the knowledge base maps no concepts between {src.name} and {fw.name}")
    else:
        for concept in kb.concepts.values():
            term = concept.terms.get(fw.id)
            if term and not _no_counterpart(term)[0]:
                items.append(Item(f"concept.{concept.id}", f"{concept.name}: learn `{term}`", concept.note or ""))
    return tuple(items)


def _no_counterpart(term: str) -> tuple[bool, str]:
    """Whether a concept term says "no counterpart" ("-", or "- (why)"), and the why."""
    m = re.fullmatch(r"\s*-\s*(?:\((.*)\))?\s*", term, re.DOTALL)
    return (True, (m.group(1) or "").strip()) if m else (False, "")


def _pitfalls_section(kb: KnowledgeBase, fw: Framework) -> tuple[Item, ...]:
    onboarding = kb.onboarding.get(fw.id)
    if onboarding is None:
        return ()
    return tuple(
        Item(
            f"pitfall.{fw.id}.{p.id}",
            p.title,
            f"{p.detail}\nInstead: {p.instead}",
            links=_sources(p.sources),
        )
        for p in onboarding.pitfalls
    )


def _tooling_section(kb: KnowledgeBase, fw: Framework, targets: Sequence[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    onboarding = kb.onboarding.get(fw.id)
    if onboarding is not None:
        for area, links in onboarding.tooling.items():
            names = ", ".join(link.name for link in links) or "nothing listed"
            items.append(
                Item(
                    f"tooling.{fw.id}.{area}",
                    f"{area.replace('_', ' ').capitalize()}: try {names}",
                    links=_links(links),
                )
            )
    for target in targets:
        name = kb.targets[target].name
        route = kb.route(fw.id, target)
        if route is None:
            items.append(
                Item(
                    f"deploy.{fw.id}.{target}",
                    f"Deploy to {name}: no route known",
                    f"The knowledge base lists no route from {fw.name} to {name}; plan this early.",
                    warning=True,
                )
            )
            continue
        detail = [f"Route: {' '.join(route.route.split())}", f"Status: {route.status.value} (as of {route.as_of})."]
        if route.notes:
            detail.append(route.notes)
        items.append(
            Item(
                f"deploy.{fw.id}.{target}",
                f"Plan the route to {name}",
                "\n".join(detail),
                links=_sources(route.sources),
                warning=not route.status.usable,
            )
        )
    has_deploy_tooling = onboarding is not None and any("deploy" in area for area in onboarding.tooling)
    if not targets and fw.export and not has_deploy_tooling:
        items.append(
            Item(
                f"deploy.{fw.id}.export",
                f"Know the export routes: {', '.join(e.name for e in fw.export)}",
                "Pass `--target` to see the route for your deployment targets.",
                links=_links(fw.export),
            )
        )
    return tuple(items)


#: Concept ids whose term in the chosen framework shows what one training step looks like (first found wins).
_STEP_CONCEPTS = ("train_step",)


def _term(kb: KnowledgeBase, concept_id: str, framework: str) -> str | None:
    concept = kb.concepts.get(concept_id)
    term = concept.terms.get(framework) if concept is not None else None
    return term if term and not _no_counterpart(term)[0] else None


def _tasks_section(
    kb: KnowledgeBase, fw: Framework, src: Framework | None, backend: Hardware, targets: Sequence[str]
) -> tuple[Item, ...]:
    device = DEVICE_NOUNS[backend]
    if src is not None:
        port = Item(
            "task.port_layer",
            f"Port one layer from your {src.name} code to {fw.name}",
            f"Pick a small layer (a linear layer with its activation), copy its weights into the {fw.name} "
            "version and feed both the same input.",
            done_when=f"the {fw.name} layer's output matches the {src.name} layer's within 1e-5 on the same input.",
        )
    else:
        port = Item(
            "task.port_layer",
            f"Write one layer in {fw.name}",
            "A linear layer with an activation, initialised from a fixed seed.",
            done_when="a forward pass on a random batch returns the expected shape and only finite values.",
        )
    idiom = [f"{fw.name}'s idiom: `{term}`." for term in (_term(kb, cid, fw.id) for cid in _STEP_CONCEPTS) if term]
    step = Item(
        "task.train_step",
        f"Write one training step in {fw.name}",
        "\n".join(["Forward pass, loss, gradients and an optimiser update, compiled the idiomatic way.", *idiom]),
        done_when=f"the loss falls over 20 steps on one fixed batch, running on the {device}.",
    )
    route = next(((t, kb.route(fw.id, t)) for t in targets if kb.route(fw.id, t) is not None), None)
    if route is not None:
        target, r = route
        assert r is not None
        export = Item(
            "task.export",
            f"Export the model for {kb.targets[target].name}",
            f"Use the model from the training step. Route: {' '.join(r.route.split())}",
            done_when="the exported model loads in the target runtime and its outputs match "
            f"{fw.name}'s within 1e-4 on the same input.",
            links=_sources(r.sources),
        )
    else:
        # The knowledge base lists the current route first; later entries may be legacy or deprecated.
        first = fw.export[:1]
        how = f"with {first[0].name}" if first else "with the framework's own save/export API"
        export = Item(
            "task.export",
            f"Export the trained model {how}",
            "Use the model from the training step. Pass `--target` for the route to your deployment target.",
            done_when="the exported model loads in a fresh process and gives the same outputs within 1e-4.",
            links=_links(first),
        )
    return port, step, export
