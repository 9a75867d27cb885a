"""A cache of the framework part of the probe, so a repeated `report --no-bench` need not import every framework.

One JSON file per framework in the user cache folder (`FWADVISOR_CACHE_DIR` overrides, for tests and
fleets), named by a hash of everything that could change what the framework's child finds: the
versions of every adapter's distributions (Keras' answer depends on its backend's), the interpreter,
the probe script itself, a hardware fingerprint (architecture, usable cores, CPU model, device nodes
of accelerators) and the environment the child inherits (the allow-list of `child.ENV_ALLOW`). Only
successful probes are stored; an entry older than `MAX_AGE_S` is ignored, and `--fresh` skips the cache.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from advisor import __version__
from advisor.errors import AdvisorError, validation_words
from advisor.evidence.child import ENV_ALLOW
from advisor.jsonio import model_json, read_json

if TYPE_CHECKING:
    from advisor.evidence.probe import FrameworkProbe
    from advisor.frameworks.base import FrameworkAdapter

#: An entry older than this is probed again (a driver update or a new device changes nothing in the key).
MAX_AGE_S = 24 * 3600.0
#: Bumped when the stored shape changes.
_FORMAT = 1
#: Device nodes whose presence means an accelerator a framework could see.
_DEVICE_GLOBS = ("/dev/nvidia[0-9]*", "/dev/kfd", "/dev/accel*", "/dev/davinci[0-9]*", "/dev/dri/renderD*")


def cache_dir() -> Path:
    """Where the probe cache lives: FWADVISOR_CACHE_DIR, else the platform's user cache folder."""
    env = os.environ.get("FWADVISOR_CACHE_DIR")
    if env:
        return Path(env) / "probe"
    import platformdirs  # deferred: only when the cache is touched

    return Path(platformdirs.user_cache_dir("fwadvisor", appauthor=False)) / "probe"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "Hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


class HardwareFingerprint(TypedDict):
    """Cheap facts about the machine that name a cache entry: CPU counts and model, the accelerator device nodes."""

    machine: str
    system: str
    cpus: int | None
    usable: int
    cpu_model: str
    devices: list[str]


def hardware_fingerprint() -> HardwareFingerprint:
    """Cheap facts that change when the machine (or the container's view of it) changes."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    nodes = sorted(p for pattern in _DEVICE_GLOBS for p in glob.glob(pattern))
    return {"machine": platform.machine(), "system": platform.system(), "cpus": os.cpu_count(), "usable": usable,
            "cpu_model": _cpu_model(), "devices": nodes}


def _script_digest(adapter: FrameworkAdapter) -> str:
    path = Path(adapter.script_root(), *adapter.probe_module.split(".")).with_suffix(".py")
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return "unreadable"


def cache_key(adapter: FrameworkAdapter, env: Mapping[str, str] | None = None) -> str:
    """The hash that names one framework's entry (`env`: variables added to its child's environment)."""
    from advisor.frameworks import adapters as registry

    versions = {a.id: a.installed() for a in [*registry().values(), adapter]}
    child_vars = {k: v for k, v in os.environ.items() if k in ENV_ALLOW}
    child_vars.update(env or {})
    material = {
        "format": _FORMAT, "fwadvisor": __version__, "adapter": adapter.id, "module": adapter.probe_module,
        "script": _script_digest(adapter), "versions": versions, "python": sys.executable,
        "python_version": sys.version, "hardware": hardware_fingerprint(), "env": dict(sorted(child_vars.items())),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()[:32]


class CacheError(AdvisorError):
    """A cache entry that cannot be used: unreadable, not a regular file, or of the wrong shape."""


#: Entries are a few kB; anything near this is not one of ours.
MAX_ENTRY_BYTES = 1024 * 1024


class _Entry(BaseModel):
    """One stored entry, validated like any other input: the cache folder may be shared or tampered with."""

    model_config = ConfigDict(extra="forbid")

    key: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
    stored: Annotated[float, Field(allow_inf_nan=False)]
    probe: dict[str, Any]


def _probe_model() -> Any:
    from pydantic import TypeAdapter

    from advisor.evidence.probe import FrameworkProbe

    return TypeAdapter(FrameworkProbe)


def _read(path: Path) -> _Entry:
    """The entry at `path` (never through a link: the folder is ours), or `CacheError` naming what is wrong."""
    data = read_json(path, CacheError, limit=MAX_ENTRY_BYTES, follow_links=False)
    try:
        return _Entry.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        words = validation_words(first)
        raise CacheError(f"not a probe-cache entry ({words})", file=path, field=where or None) from None


def load(
    adapter_id: str, key: str, max_age_s: float = MAX_AGE_S, problems: list[str] | None = None
) -> tuple[FrameworkProbe, float] | None:
    """(the stored probe, its age in seconds), or None when there is none, it is too old or unusable.

    An entry that exists but cannot be used (a FIFO, a link, wrong shape or types) is a miss too; why is
    appended to `problems` (one line each) so the probe can say so instead of failing or staying silent.
    """
    from advisor.sanitize import one_line

    path = cache_dir() / f"{adapter_id}-{key}.json"
    if not os.path.lexists(path):
        return None
    try:
        entry = _read(path)
        fp = _probe_model().validate_python(entry.probe)
        if fp.id != adapter_id or fp.outcome != "ok":
            raise CacheError("holds another framework's or a failed probe", file=path, field="probe")
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(["probe", *(str(p) for p in first["loc"])])
        problem = str(CacheError(f"not a probe-cache entry ({validation_words(first)})", file=path, field=where))
    except CacheError as exc:
        problem = str(exc)
    else:
        age = time.time() - entry.stored
        if not 0 <= age <= max_age_s or entry.key != key:
            return None
        return fp, age
    if problems is not None:
        problems.append(one_line(f"probe cache: {problem}; probed again"))
    return None


def last_wall_s(adapter_id: str) -> float | None:
    """How long this framework's newest stored probe took, whatever its key or age: a scheduling estimate only."""
    try:
        entries = [p for p in cache_dir().glob(f"{adapter_id}-*.json") if p.is_file() and not p.is_symlink()]
        newest = max(entries, key=lambda p: p.stat().st_mtime, default=None)
        if newest is None:
            return None
        wall = _read(newest).probe.get("wall_s")
        return float(wall) if isinstance(wall, int | float) and 0 <= wall < MAX_AGE_S else None
    except (OSError, CacheError):
        return None


def store(fp: FrameworkProbe, key: str) -> None:
    """Keep a successful probe; failures are always probed again. A cache that cannot be written is no error."""
    if fp.outcome != "ok":
        return
    from advisor.atomic import atomic_write_text

    folder = cache_dir()
    try:
        now = time.time()
        for old in folder.glob(f"{fp.id}-*.json"):  # drop entries past the age limit (other keys may be in use)
            if now - old.lstat().st_mtime > MAX_AGE_S:
                old.unlink(missing_ok=True)
        # owned: a link or FIFO planted under an entry's name is replaced, never written through
        atomic_write_text(folder / f"{fp.id}-{key}.json",
                          json.dumps({"key": key, "stored": time.time(), "probe": model_json(fp)}), owned=True)
    except OSError:
        pass
