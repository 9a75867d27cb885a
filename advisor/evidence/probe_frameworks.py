"""The framework part of the probe: one child process per framework, in parallel, with a timeout each.

Each framework's `probe_module` runs in its own child (see `child.run_child`); its JSON-lines events
become a `FrameworkProbe`. A framework that hangs, crashes or prints garbage is reported as such and
the others still complete. `probe_frameworks_cached` answers from the probe cache where it can.
"""

from __future__ import annotations

import importlib.metadata as md
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.evidence.child import ChildResult, Outcome, run_child
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


@dataclass
class FrameworkProbe:
    """What one framework's child process found (or why it found nothing)."""

    id: str
    installed: bool
    distribution: str | None
    version: str | None
    outcome: str  # ok | missing | import_error | crashed | timed_out | bad_output | cancelled | skipped
    error: str | None = None
    import_s: float | None = None
    wall_s: float | None = None
    devices: list[dict[str, Any]] = field(default_factory=list)
    accelerator_ok: bool | None = None  # None: no accelerator device to try
    accelerator_checks: list[dict[str, Any]] = field(default_factory=list)
    build: dict[str, Any] = field(default_factory=dict)
    threads: dict[str, Any] = field(default_factory=dict)
    cuda_build: str | None = None  # the CUDA version the framework was built for, from build info or metadata
    signal: str | None = None
    returncode: int | None = None
    noise_lines: int = 0
    warnings: list[str] = field(default_factory=list)
    stderr_tail: str | None = None
    cached_age_s: float | None = None  # set when this came from the probe cache: how old the entry is

    def to_json(self) -> dict[str, Any]:
        """JSON form (one entry of the probe schema's `frameworks`)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FrameworkProbe:
        """Inverse of `to_json`."""
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


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
        adapter.probe_module, root=adapter.script_root(), timeout=timeout, on_event=relay, cancel=cancel, env=env
    )
    fp = from_child(adapter, dist, version, result)
    emit(ProbeEvent("framework_done", adapter.id, f"{adapter.display_name}: {fp.outcome}", {"outcome": fp.outcome}))
    return fp


def probe_frameworks(
    adapters: Sequence[FrameworkAdapter],
    *,
    fast: bool = False,
    timeout: float = 60,
    on_event: Callable[[ProbeEvent], None] | None = None,
    cancel: threading.Event | None = None,
    envs: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, FrameworkProbe]:
    """Probe several frameworks in parallel (one thread and one child each); keyed by adapter id, in input order.

    `envs` adds environment variables to one adapter's child (keyed by adapter id); tests use it to
    put broken stand-in packages first on a child's path.
    """
    envs = envs or {}
    if not adapters:
        return {}
    with ThreadPoolExecutor(max_workers=len(adapters), thread_name_prefix="fwprobe") as pool:
        futures = {
            a.id: pool.submit(
                probe_framework, a, fast=fast, timeout=timeout, on_event=on_event, cancel=cancel, env=envs.get(a.id)
            )
            for a in adapters
        }
        out: dict[str, FrameworkProbe] = {}
        for adapter in adapters:
            try:
                out[adapter.id] = futures[adapter.id].result()
            except Exception as exc:  # noqa: BLE001 - e.g. a plugin adapter that cannot find its scripts
                error = f"probe failed: {type(exc).__name__}: {exc}"
                out[adapter.id] = FrameworkProbe(adapter.id, True, None, None, Outcome.CRASHED.value, error=error)
        return out


def probe_frameworks_cached(
    adapters: Sequence[FrameworkAdapter],
    *,
    fresh: bool,
    timeout: float,
    on_event: Callable[[ProbeEvent], None] | None,
    cancel: threading.Event | None,
) -> dict[str, FrameworkProbe]:
    """`probe_frameworks`, answered from the probe cache where an entry matches (unless `fresh`)."""
    from advisor.evidence import probe_cache

    keys = {a.id: probe_cache.cache_key(a) for a in adapters}
    found: dict[str, FrameworkProbe] = {}
    for a in adapters:
        hit = None if fresh else probe_cache.load(a.id, keys[a.id])
        if hit is not None:
            fp, age = hit
            fp.cached_age_s = round(age, 1)
            found[a.id] = fp
            if on_event is not None:
                on_event(ProbeEvent("framework_done", a.id, f"{a.display_name}: {fp.outcome} (cached)",
                                    {"outcome": fp.outcome, "cached": True}))
    misses = [a for a in adapters if a.id not in found]
    probed = probe_frameworks(misses, timeout=timeout, on_event=on_event, cancel=cancel)
    for fid, fp in probed.items():
        probe_cache.store(fp, keys[fid])
    found.update(probed)
    return {a.id: found[a.id] for a in adapters}
