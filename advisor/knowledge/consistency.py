"""One fact, one place: facts the base states twice are derived where one is absent, and compared where both are.

A fact stated in two places can drift apart (a per-OS table in stewardship.yaml against the framework's own
`platforms`); the loader derives the second from the first where a pack leaves it out, and `disagreements`
lists every pair that a pack states both ways and that does not agree. Rules are codes (`Rule`), so that a
caller decides on them, never on the words of the description.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Framework, Hardware, Os, Stewardship, Support
from advisor.knowledge.sourcing import Source
from advisor.knowledge.verify.lines import install_lines


class Rule(StrEnum):
    """Which two places disagree."""

    OS_NATIVE = "os_native"  # stewardship `os` vs the framework's `platforms.<os>.native`
    MULTI_BACKEND = "multi_backend"  # stewardship `multi_backend` vs the framework's `kind`
    GENERATION = "generation"  # a backend's status vs the status of its chip generations
    GPU_OS = "gpu_os"  # stewardship `gpu_os` (native NVIDIA GPU per OS) vs `hardware.nvidia_cuda.status`
    SERVING_ENGINE = "serving_engine"  # a serving stack's frameworks vs the engine of the same id's feeds
    ROUTE_ENGINE = "route_engine"  # a deployment route vs an engine that serves the target and takes the framework
    PYTHON_WHEELS = "python_wheels"  # `python_versions` vs the main binary distribution's wheel tags
    PYTHON_FLOOR = "python_floor"  # `python_versions` vs the main distribution's Requires-Python
    STABLE_LATEST = "stable_latest"  # `stable_version` older than the main distribution's latest release line
    FLOOR_RELEASE = "floor_release"  # the GPU floor's release line vs `stable_version`
    INSTALL_LINE = "install_line"  # a package claim's install line vs the hardware install lines
    SOURCE_QUOTE = "source_quote"  # two quotes of one source that are one sentence with words added or dropped


@dataclass(frozen=True)
class Disagreement:
    """Two places that state one fact differently."""

    rule: Rule
    framework: str | None
    subject: str  # what the fact is about, e.g. "windows", "google_tpu.tpu7x", "edge"
    first: str  # "<file> <field path> = <value>"
    second: str

    def key(self) -> tuple[str, str | None, str]:
        """(rule, framework, subject): stable across wording, for tests and listings."""
        return (self.rule.value, self.framework, self.subject)


def derive_stewardship(st: Stewardship, fw: Framework | None) -> Stewardship:
    """Fill what a stewardship entry leaves out from the framework file, which states it once."""
    if fw is None:
        return st
    update: dict[str, object] = {}
    if "os" not in st.model_fields_set and fw.platforms:
        update["os"] = {Os(o.value): note.native for o, note in fw.platforms.items()}
    if "multi_backend" not in st.model_fields_set:
        update["multi_backend"] = fw.kind == "multi_backend"
    return st.model_copy(update=update) if update else st


def _file(fid: str) -> str:
    return f"frameworks/{fid}.yaml"


def _framework_rules(fid: str, fw: Framework, st: Stewardship | None) -> list[Disagreement]:
    out: list[Disagreement] = []
    fwf = _file(fid)
    if st is not None:
        for o, note in fw.platforms.items():
            stated = st.os.get(Os(o.value), Support.UNKNOWN)
            if stated is not note.native:
                out.append(
                    Disagreement(
                        Rule.OS_NATIVE,
                        fid,
                        o.value,
                        f"stewardship.yaml {fid}.os.{o.value} = {stated.value}",
                        f"{fwf} platforms.{o.value}.native = {note.native.value}",
                    )
                )
        if st.multi_backend != (fw.kind == "multi_backend"):
            out.append(
                Disagreement(
                    Rule.MULTI_BACKEND,
                    fid,
                    "multi_backend",
                    f"stewardship.yaml {fid}.multi_backend = {st.multi_backend}",
                    f"{fwf} kind = {fw.kind}",
                )
            )
        cuda = fw.hardware.get(Hardware.NVIDIA_CUDA)
        cuda_status = cuda.status if cuda else Support.UNKNOWN
        for gpu_os, status in st.gpu_os.items():
            if status.usable and not cuda_status.usable:
                out.append(
                    Disagreement(
                        Rule.GPU_OS,
                        fid,
                        gpu_os.value,
                        f"stewardship.yaml {fid}.gpu_os.{gpu_os.value} = {status.value}",
                        f"{fwf} hardware.nvidia_cuda.status = {cuda_status.value}",
                    )
                )
        if st.gpu is not None and st.gpu.release != fw.stable_version:
            out.append(
                Disagreement(
                    Rule.FLOOR_RELEASE,
                    fid,
                    "release",
                    f"stewardship.yaml {fid}.gpu.release = {st.gpu.release}",
                    f"{fwf} stable_version = {fw.stable_version}",
                )
            )
    for hw, support in fw.hardware.items():
        gens = support.generations
        usable = [g for g, s in gens.items() if s.status.usable]
        if (support.status is Support.NONE and usable) or (gens and support.status.usable and not usable):
            shown = ", ".join(f"{g} = {s.status.value}" for g, s in gens.items())
            out.append(
                Disagreement(
                    Rule.GENERATION,
                    fid,
                    hw.value,
                    f"{fwf} hardware.{hw.value}.status = {support.status.value}",
                    f"{fwf} hardware.{hw.value}.generations: {shown}",
                )
            )
    out += _package_rules(fid, fw)
    return out


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits or digits != piece:
            break
        parts.append(int(digits))
    return tuple(parts)


def _floor(requires_python: str | None) -> tuple[int, ...] | None:
    for spec in (requires_python or "").split(","):
        spec = spec.strip()
        if spec.startswith(">="):
            return _version(spec[2:].strip())[:2]
    return None


def _package_rules(fid: str, fw: Framework) -> list[Disagreement]:
    if fw.packages is None:
        return []
    out: list[Disagreement] = []
    fwf = _file(fid)
    claims = {c.name: c for c in fw.packages.distributions}
    listed = [claims[d] for d in fw.distributions if d in claims]
    stated = sorted({_version(v) for v in fw.python_versions})
    shown_py = ", ".join(fw.python_versions)
    if listed:
        main = listed[0]
        low = _floor(main.requires_python)
        if low is not None and stated and stated[0] < low:
            out.append(
                Disagreement(
                    Rule.PYTHON_FLOOR,
                    fid,
                    main.name,
                    f"{fwf} python_versions = {shown_py}",
                    f"{fwf} packages {main.name}.requires_python = {main.requires_python}",
                )
            )
        line = _version(fw.stable_version)[:2]
        if _version(main.latest)[: len(line)] > line:
            out.append(
                Disagreement(
                    Rule.STABLE_LATEST,
                    fid,
                    main.name,
                    f"{fwf} stable_version = {fw.stable_version}",
                    f"{fwf} packages {main.name}.latest = {main.latest}",
                )
            )
    binary = next((c for c in listed if any(t.startswith("cp") for tags in c.wheels.values() for t in tags)), None)
    if binary is not None:
        tags = {t.removesuffix("t") for tags in binary.wheels.values() for t in tags if t.startswith("cp")}
        wheels = sorted({(3, int(t[3:])) for t in tags})
        if wheels != stated:
            found = ", ".join(f"3.{minor}" for _, minor in wheels)
            out.append(
                Disagreement(
                    Rule.PYTHON_WHEELS,
                    fid,
                    binary.name,
                    f"{fwf} python_versions = {shown_py}",
                    f"{fwf} packages {binary.name}.wheels at {binary.latest}: {found}",
                )
            )
    known = install_lines(fw)
    for i, inst in enumerate(fw.packages.installs):
        if inst.line.strip() not in known:
            out.append(
                Disagreement(
                    Rule.INSTALL_LINE,
                    fid,
                    inst.line.strip(),
                    f"{fwf} packages.installs[{i}].line = {inst.line.strip()}",
                    f"{fwf} hardware.*.install: no such line",
                )
            )
    return out


def _deployment_rules(kb: KnowledgeBase) -> list[Disagreement]:
    out: list[Disagreement] = []
    for eid, engine in kb.engines.items():
        stack = kb.serving.get(eid)
        native = sorted(f for f, feed in engine.feeds.items() if feed.status is Support.SUPPORTED)
        if stack is not None and sorted(stack.frameworks) != native:
            out.append(
                Disagreement(
                    Rule.SERVING_ENGINE,
                    None,
                    eid,
                    f"stewardship.yaml serving.{eid}.frameworks = {sorted(stack.frameworks)}",
                    f"deployment.yaml engines.{eid}.feeds with status supported = {native}",
                )
            )
        if not engine.status.usable:
            continue
        for target in engine.targets:
            for fid, feed in engine.feeds.items():
                route = kb.route(fid, target)
                if feed.status.usable and route is not None and not route.status.usable:
                    out.append(
                        Disagreement(
                            Rule.ROUTE_ENGINE,
                            fid,
                            f"{target} via {eid}",
                            f"deployment.yaml routes[{target}, {fid}].status = {route.status.value}",
                            f"deployment.yaml engines.{eid} serves {target} and takes {fid} ({feed.status.value})",
                        )
                    )
    return out


def _sources(value: object, where: str) -> Iterator[tuple[str, Source]]:
    """Every source under `value`, with the field path it sits at."""
    if isinstance(value, Source):
        yield where, value
    elif isinstance(value, BaseModel):
        for name, info in type(value).model_fields.items():
            yield from _sources(getattr(value, name), f"{where}.{info.alias or name}")
    elif isinstance(value, dict):
        for k, v in value.items():
            key = ", ".join(k) if isinstance(k, tuple) else getattr(k, "value", k)
            yield from _sources(v, f"{where}[{key}]")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _sources(v, f"{where}[{i}]")


def _reworded(a: str, b: str) -> bool:
    """One sentence with a few words added or dropped inside it: the page at two times, so one is stale.

    A quote that extends another (a longer excerpt) is not this, nor two lines of a list that differ in one
    value (`... 3.12`, `... 3.13`): only words inserted or deleted between words both quotes share.
    """
    wa, wb = a.split(), b.split()
    if min(len(wa), len(wb)) < 6 or " ".join(wa) in " ".join(wb) or " ".join(wb) in " ".join(wa):
        return False
    ops = [o for o in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes() if o[0] != "equal"]
    changed = sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in ops)
    return bool(ops) and all(o[0] in ("insert", "delete") for o in ops) and changed <= 3


def _quote_rules(kb: KnowledgeBase) -> list[Disagreement]:
    places: list[tuple[str, object]] = [(_file(f), fw) for f, fw in kb.frameworks.items()]
    places += [("stewardship.yaml", kb.stewardship), ("stewardship.yaml serving", kb.serving),
               ("deployment.yaml routes", kb.routes), ("deployment.yaml engines", kb.engines),
               ("deployment.yaml targets", kb.targets), ("migration.yaml", kb.migrations),
               ("domains.yaml", kb.domains), ("concepts.yaml", kb.concepts), ("onboarding", kb.onboarding)]
    by_url: dict[str, list[tuple[str, str]]] = {}
    for name, value in places:
        for where, src in _sources(value, name):
            if src.quote:
                by_url.setdefault(str(src.url), []).append((where, src.quote))
    out: list[Disagreement] = []
    for url, quotes in by_url.items():
        seen: set[tuple[str, str]] = set()
        for i, (wa, qa) in enumerate(quotes):
            for wb, qb in quotes[i + 1:]:
                if (qa, qb) not in seen and _reworded(qa, qb):
                    seen.add((qa, qb))
                    first, second = f"{wa} quote = {qa!r}", f"{wb} quote = {qb!r}"
                    out.append(Disagreement(Rule.SOURCE_QUOTE, None, url, first, second))
    return out


def disagreements(kb: KnowledgeBase) -> list[Disagreement]:
    """Every fact the merged base states in two places that do not agree."""
    out: list[Disagreement] = []
    for fid, fw in kb.frameworks.items():
        out += _framework_rules(fid, fw, kb.stewardship.get(fid))
    return out + _deployment_rules(kb) + _quote_rules(kb)
