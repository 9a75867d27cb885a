"""The framework part of the probe: one child process per framework, in parallel, with a timeout each.

Each framework's `probe_module` runs in its own child (see `child.run_child`); its JSON-lines events
become a `FrameworkProbe`. A framework that hangs, crashes or prints garbage is reported as such and
the others still complete. `probe_frameworks_cached` answers from the probe cache where it can.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import Field
from pydantic.dataclasses import dataclass as model

from advisor.evidence.child import ChildResult, Outcome, run_child, split_sections
from advisor.evidence.hardware.requirements import cuda_from_torch_version
from advisor.privacy import scrub_text

if TYPE_CHECKING:
    from advisor.frameworks.base import FrameworkAdapter


@dataclass(frozen=True)
class ProbeEvent:
    """Progress while probing: a section started/finished, or a framework child reported something."""

    kind: str  # "section" | "framework_start" | "framework_event" | "framework_done"
    name: str  # section name ("cpu", "gpus", ...) or framework id
    message: str
    data: Mapping[str, Any] = field(default_factory=dict)


@model
class FrameworkProbe:
    """What one framework's child process found, or why it found nothing (one entry of the probe's `frameworks`)."""

    id: str
    installed: bool
    distribution: str | None
    version: str | None
    outcome: str  # ok | missing | import_error | crashed | timed_out | bad_output | cancelled | skipped
    error: str | None = None
    import_s: float | None = None
    wall_s: float | None = None
    devices: list[dict[str, Any]] = Field(default_factory=list)
    accelerator_ok: bool | None = None  # None: no accelerator device to try
    accelerator_checks: list[dict[str, Any]] = Field(default_factory=list)
    build: dict[str, Any] = Field(default_factory=dict)
    threads: dict[str, Any] = Field(default_factory=dict)
    cuda_build: str | None = None  # the CUDA version the framework was built for, from build info or metadata
    signal: str | None = None
    returncode: int | None = None
    noise_lines: int = 0
    warnings: list[str] = Field(default_factory=list)
    stderr_tail: str | None = None
    cached_age_s: float | None = None  # set when this came from the probe cache: how old the entry is
    # Probed in the same child right after this framework (which it imports anyway, e.g. Keras after its
    # backend): its import_s and wall_s are then its own part only, not the shared framework's import.
    probed_after: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FrameworkProbe:
        """A saved entry; a field an older probe lacks is unknown (see `advisor.evidence.hardware.saved`)."""
        from advisor.evidence.hardware.saved import known_fields

        return cls(**known_fields(cls, data))


def _metadata_cuda(adapter_id: str, version: str | None) -> str | None:
    """The CUDA build a framework was installed for, from package metadata alone (for --fast)."""
    if adapter_id == "pytorch":
        return cuda_from_torch_version(version)
    if adapter_id == "jax":
        for major in (13, 12, 11):
            try:
                md.version(f"jax-cuda{major}-plugin")
                return str(major)
            except md.PackageNotFoundError:
                continue
    return None


def _cuda_from_build(adapter_id: str, build: Mapping[str, Any]) -> str | None:
    if adapter_id == "pytorch" and build.get("cuda"):
        return str(build["cuda"])
    if adapter_id == "tensorflow" and build.get("is_cuda_build") and build.get("cuda_version"):
        return str(build["cuda_version"])
    return None


def from_child(adapter: FrameworkAdapter, dist: str, dist_version: str, result: ChildResult) -> FrameworkProbe:
    """Turn a child's events and ending into a `FrameworkProbe`."""
    fp = FrameworkProbe(
        id=adapter.id,
        installed=True,
        distribution=dist,
        version=dist_version,
        outcome=result.outcome.value,
        error=result.error,
        wall_s=round(result.wall_s, 3),
        signal=result.signal,
        returncode=result.returncode,
        noise_lines=len(result.noise),
    )
    for ev in result.events:
        kind = ev.get("event")
        if kind == "import" and ev.get("ok"):
            fp.import_s = ev.get("seconds")
        elif kind == "info":
            fp.version = ev.get("version") or fp.version
            fp.build = dict(ev.get("build") or {})
            fp.threads = dict(ev.get("threads") or {})
        elif kind == "device":
            fp.devices.append({k: v for k, v in ev.items() if k != "event"})
        elif kind == "accelerator":
            fp.accelerator_checks.append({k: v for k, v in ev.items() if k != "event"})
        elif kind == "warning":
            fp.warnings.extend(str(e) for e in ev.get("errors") or [])
    if fp.accelerator_checks:
        fp.accelerator_ok = all(bool(c.get("ok")) for c in fp.accelerator_checks)
    if result.noise:
        fp.warnings.append(f"{len(result.noise)} stray stdout line(s), e.g. {result.noise[0][:120]!r}")
    if result.outcome != Outcome.OK:
        fp.stderr_tail = result.stderr_tail[-1500:] or None
    fp.cuda_build = _cuda_from_build(adapter.id, fp.build) or _metadata_cuda(adapter.id, dist_version)
    return fp


def redact(fp: FrameworkProbe) -> FrameworkProbe:
    """Hide paths and names that tracebacks and stderr carry (home folder, user, host); used without --identify."""

    def clean(text: str | None) -> str | None:
        return None if text is None else scrub_text(text)  # the one scrubber (advisor.privacy)

    fp.error = clean(fp.error)
    fp.stderr_tail = clean(fp.stderr_tail)
    fp.warnings = [clean(w) or "" for w in fp.warnings]
    return fp


def probe_framework(
    adapter: FrameworkAdapter,
    *,
    fast: bool = False,
    timeout: float = 60,
    on_event: Callable[[ProbeEvent], None] | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
) -> FrameworkProbe:
    """Probe one framework: metadata only when `fast` or not installed, else its child script."""
    emit = on_event or (lambda _e: None)
    found = adapter.installed()
    if found is None:
        return FrameworkProbe(adapter.id, False, None, None, Outcome.MISSING.value, error="not installed")
    dist, version = found
    if fast:
        return FrameworkProbe(
            adapter.id, True, dist, version, "skipped", error="--fast: not imported",
            cuda_build=_metadata_cuda(adapter.id, version),
        )
    if cancel is not None and cancel.is_set():
        return FrameworkProbe(adapter.id, True, dist, version, Outcome.CANCELLED.value, error="cancelled")
    emit(ProbeEvent("framework_start", adapter.id, f"importing {adapter.display_name} {version}"))

    def relay(ev: dict[str, Any]) -> None:
        what = ev.get("event", "?")
        emit(ProbeEvent("framework_event", adapter.id, f"{adapter.display_name}: {what}", ev))

    result = run_child(
        adapter.probe_module, root=adapter.script_root(), timeout=timeout, on_event=relay, cancel=cancel, env=env,
    )
    fp = from_child(adapter, dist, version, result)
    emit(ProbeEvent("framework_done", adapter.id, f"{adapter.display_name}: {fp.outcome}", {"outcome": fp.outcome}))
    return fp


def _groups(
    adapters: Sequence[FrameworkAdapter], envs: Mapping[str, Mapping[str, str]]
) -> list[list[FrameworkAdapter]]:
    """Adapters in child-sized groups: one each, except one that `probe_with`s another joins that one's child.

    Only installed adapters of the built-in script folder group, and none with a test's extra environment.
    """
    by_id = {a.id: a for a in adapters}
    groups: dict[str, list[FrameworkAdapter]] = {a.id: [a] for a in adapters}
    for a in adapters:
        try:
            host = by_id.get(a.probe_with() or "")
            joins = not (host is None or host is a or host.probe_with() is not None or a.id in envs
                         or host.id in envs or host.script_root() != a.script_root()
                         or host.installed() is None or a.installed() is None or not groups[host.id])
        except Exception:  # noqa: BLE001 - a faulty plugin adapter is probed (and reported) alone
            joins = False
        if joins and host is not None:
            groups[host.id].append(a)
            groups[a.id] = []
    return [g for g in groups.values() if g]


def probe_together(
    adapters: Sequence[FrameworkAdapter],
    *,
    timeout: float = 60,
    on_event: Callable[[ProbeEvent], None] | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, FrameworkProbe]:
    """Probe installed adapters one after another in one child (`probes.together`); keyed by adapter id.

    A script that never began (the child died before it) is probed again in a child of its own.
    """
    emit = on_event or (lambda _e: None)
    found = {a.id: a.installed() for a in adapters}
    for a in adapters:
        emit(ProbeEvent("framework_start", a.id, f"importing {a.display_name} {(found[a.id] or ('', ''))[1]}"))
    current = [adapters[0]]
    modules = [a.probe_module for a in adapters]

    def relay(ev: dict[str, Any]) -> None:
        if ev.get("event") == "section":
            current[0] = next((a for a in adapters if a.probe_module == ev.get("module")), current[0])
            return
        if ev.get("event") == "sections_end":
            return
        a = current[0]
        emit(ProbeEvent("framework_event", a.id, f"{a.display_name}: {ev.get('event', '?')}", ev))

    result = run_child("probes.together", modules, root=adapters[0].script_root(), timeout=timeout * len(adapters),
                       on_event=relay, cancel=cancel)
    out: dict[str, FrameworkProbe] = {}
    for k, (a, part) in enumerate(zip(adapters, split_sections(result, modules), strict=True)):
        dist, version = found[a.id] or (None, None)
        if part is None:
            if result.outcome == Outcome.CANCELLED:
                out[a.id] = FrameworkProbe(a.id, True, dist, version, Outcome.CANCELLED.value, error="cancelled")
            else:
                out[a.id] = probe_framework(a, timeout=timeout, on_event=on_event, cancel=cancel)
            continue
        fp = from_child(a, dist or "", version or "", part)
        fp.probed_after = adapters[0].id if k else None
        out[a.id] = fp
        emit(ProbeEvent("framework_done", a.id, f"{a.display_name}: {fp.outcome}", {"outcome": fp.outcome}))
    return out


def _probe_group(
    group: Sequence[FrameworkAdapter],
    *,
    fast: bool,
    timeout: float,
    on_event: Callable[[ProbeEvent], None] | None,
    cancel: threading.Event | None,
    envs: Mapping[str, Mapping[str, str]],
) -> dict[str, FrameworkProbe]:
    if len(group) == 1 or fast:
        return {a.id: probe_framework(a, fast=fast, timeout=timeout, on_event=on_event, cancel=cancel,
                                      env=envs.get(a.id)) for a in group}
    if cancel is not None and cancel.is_set():
        return {a.id: probe_framework(a, timeout=timeout, cancel=cancel) for a in group}
    return probe_together(group, timeout=timeout, on_event=on_event, cancel=cancel)


def _schedule(groups: Sequence[Sequence[FrameworkAdapter]], costs: Mapping[str, float]) -> tuple[int, list[int]]:
    """How many children run at once (one per usable core, at least 2), and the groups' start order (longest first).

    Longest-processing-time-first on as many slots as cores: the longest probe (TensorFlow's import, the probe's
    wall time) starts at once with a core to itself and the short ones follow each other on the rest. Three
    imports at once on two cores slowed TensorFlow's by a quarter even with the others at a lower priority
    (shared caches and memory bandwidth, not only CPU share). Two slots at least, so one hung child never
    holds up the rest on a single core.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    cost = [sum(costs.get(a.id, a.typical_probe_s) for a in g) for g in groups]
    order = sorted(range(len(groups)), key=lambda i: -cost[i])  # stable: equal costs keep the input order
    return max(1, min(len(groups), max(cores, 2))), order


def probe_frameworks(
    adapters: Sequence[FrameworkAdapter],
    *,
    fast: bool = False,
    timeout: float = 60,
    on_event: Callable[[ProbeEvent], None] | None = None,
    cancel: threading.Event | None = None,
    envs: Mapping[str, Mapping[str, str]] | None = None,
    costs: Mapping[str, float] | None = None,
) -> dict[str, FrameworkProbe]:
    """Probe several frameworks in parallel (one thread and one child per group); keyed by adapter id, in input order.

    A framework that imports another one anyway (Keras 3 and its backend) is probed in that one's child,
    after it (see `_groups`). `envs` adds environment variables to one adapter's child (keyed by adapter
    id); tests use it to put broken stand-in packages first on a child's path. `costs` (seconds per
    adapter id, e.g. this machine's last probe) decide which children start first (`_schedule`).
    """
    envs = envs or {}
    if not adapters:
        return {}
    groups = _groups(adapters, envs)
    slots, order = _schedule(groups, costs or {})
    if fast:  # metadata only: no child, nothing to share
        slots = len(groups)
    with ThreadPoolExecutor(max_workers=slots, thread_name_prefix="fwprobe") as pool:
        started = {i: pool.submit(_probe_group, groups[i], fast=fast, timeout=timeout, on_event=on_event,
                                  cancel=cancel, envs=envs) for i in order}  # the pool starts them in order
        futures = [(g, started[i]) for i, g in enumerate(groups)]
        got: dict[str, FrameworkProbe] = {}
        for group, future in futures:
            try:
                got.update(future.result())
            except Exception as exc:  # noqa: BLE001 - e.g. a plugin adapter that cannot find its scripts
                error = f"probe failed: {type(exc).__name__}: {exc}"
                for a in group:
                    got[a.id] = FrameworkProbe(a.id, True, None, None, Outcome.CRASHED.value, error=error)
        return {a.id: got[a.id] for a in adapters}


def probe_frameworks_cached(
    adapters: Sequence[FrameworkAdapter],
    *,
    fresh: bool,
    timeout: float,
    on_event: Callable[[ProbeEvent], None] | None,
    cancel: threading.Event | None,
    notes: list[str] | None = None,
) -> dict[str, FrameworkProbe]:
    """`probe_frameworks`, answered from the probe cache where an entry matches (unless `fresh`).

    An entry that cannot be used is probed again, and one line in `notes` says why.
    """
    from advisor.evidence import probe_cache

    keys = {a.id: probe_cache.cache_key(a) for a in adapters}
    found: dict[str, FrameworkProbe] = {}
    for a in adapters:
        hit = None if fresh else probe_cache.load(a.id, keys[a.id], problems=notes)
        if hit is not None:
            fp, age = hit
            fp.cached_age_s = round(age, 1)
            found[a.id] = fp
            if on_event is not None:
                on_event(ProbeEvent("framework_done", a.id, f"{a.display_name}: {fp.outcome} (cached)",
                                    {"outcome": fp.outcome, "cached": True}))
    misses = [a for a in adapters if a.id not in found]
    costs = {a.id: c for a in misses if (c := probe_cache.last_wall_s(a.id)) is not None}
    probed = probe_frameworks(misses, timeout=timeout, on_event=on_event, cancel=cancel, costs=costs)
    for fid, fp in probed.items():
        probe_cache.store(fp, keys[fid])
    found.update(probed)
    return {a.id: found[a.id] for a in adapters}
