"""Ask the package index through pip itself (a child process), so the user's pip configuration applies."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

#: The oldest pip with `install --dry-run --report` (22.2).
MIN_PIP = Version("22.2")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_FROM_VERSIONS = re.compile(r"\(from versions: ([^)]*)\)")


def redact(text: str) -> str:
    """Text with every URL replaced by `<url>`: no index host reaches the output."""
    return _URL.sub("<url>", text)


@dataclass(frozen=True)
class Resolved:
    """One distribution in pip's installation report."""

    name: str  # canonical
    version: str
    filename: str  # the file pip would install (its name only)
    requires_python: str | None


@dataclass(frozen=True)
class PipResult:
    """The outcome of one `pip install --dry-run --report -`."""

    command: tuple[str, ...]  # as shown to the user (URLs redacted)
    ok: bool
    installs: tuple[Resolved, ...] = ()
    available: tuple[str, ...] | None = None  # on failure: the versions pip saw ("from versions: ...")
    error: str | None = None  # pip's last error line, redacted

    def get(self, name: str) -> Resolved | None:
        """The resolved entry for a distribution name (any spelling)."""
        key = canonicalize_name(name)
        return next((r for r in self.installs if r.name == key), None)

    @property
    def found_nothing(self) -> bool:
        """No version of the requirement at all: the index did not answer, or does not have it."""
        return not self.ok and not self.available


@dataclass
class Pip:
    """Runs pip as `python -m pip` with a timeout, no shell, and the user's environment and config."""

    python: str = sys.executable
    timeout: float = 300.0
    #: A pip constraints file in the user's config caps what pip resolves (a project's pins, not the
    #: index's content), so it is neutralised; index-url, find-links, proxy and certificates stay.
    env_overrides: dict[str, str] = field(default_factory=lambda: {"PIP_CONSTRAINT": os.devnull})

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PYTHONIOENCODING": "utf-8"})
        env.update(self.env_overrides)
        return env

    def version(self) -> Version | None:
        """pip's version, or None when `python -m pip` does not run."""
        try:
            out = subprocess.run(
                [self.python, "-m", "pip", "--version"], capture_output=True, text=True, timeout=60, env=self._env()
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        m = re.match(r"pip (\S+)", out.stdout)
        try:
            return Version(m.group(1)) if out.returncode == 0 and m else None
        except InvalidVersion:
            return None

    def dry_run(self, requirements: Sequence[str], flags: Sequence[str], *, deps: bool) -> PipResult:
        """What `pip install REQS` would install for the target in `flags` (nothing is downloaded but metadata)."""
        with tempfile.TemporaryDirectory(prefix="fwadvisor-verify-") as tmp:
            # --target: pip accepts --platform/--python-version only for an install that is not into
            # this environment; with --dry-run nothing lands there.
            # --ignore-requires-python: `pip install` checks Requires-Python against the Python it runs
            # on, not --python-version (pip 23); the claim's Requires-Python is compared afterwards.
            args = ["install", "--dry-run", "--ignore-installed", "--ignore-requires-python", "--only-binary=:all:",
                    "--quiet", "--report", "-", "--target", os.path.join(tmp, "t"), *flags]
            if not deps:
                args.append("--no-deps")
            args += list(requirements)
            shown = tuple("<tmp>" if a.startswith(tmp) else redact(a) for a in ("python", "-m", "pip", *args))
            try:
                out = subprocess.run(
                    [self.python, "-m", "pip", *args],
                    capture_output=True, text=True, timeout=self.timeout, env=self._env(), cwd=tmp,
                )
            except subprocess.TimeoutExpired:
                return PipResult(shown, False, error=f"pip gave no answer in {self.timeout:g} s")
            except OSError as exc:
                return PipResult(shown, False, error=f"pip did not start: {exc.strerror or exc}")
        if out.returncode != 0:
            return _failure(shown, out.stderr)
        try:
            report: dict[str, Any] = json.loads(out.stdout)
        except json.JSONDecodeError:
            return PipResult(shown, False, error="pip printed no installation report")
        return PipResult(shown, True, installs=tuple(_resolved(item) for item in report.get("install", [])))


def _resolved(item: dict[str, Any]) -> Resolved:
    meta = item.get("metadata", {})
    url = str(item.get("download_info", {}).get("url", ""))
    return Resolved(
        name=canonicalize_name(str(meta.get("name", ""))),
        version=str(meta.get("version", "")),
        filename=url.rsplit("/", 1)[-1].split("#", 1)[0],
        requires_python=meta.get("requires_python"),
    )


def _failure(shown: tuple[str, ...], stderr: str) -> PipResult:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR:")]
    available: tuple[str, ...] | None = None
    for ln in errors:
        m = _FROM_VERSIONS.search(ln)
        if m:
            found = m.group(1).strip()
            available = () if found == "none" else tuple(v.strip() for v in found.split(","))
    last = errors[-1] if errors else (lines[-1] if lines else "pip failed with no message")
    return PipResult(shown, False, available=available, error=redact(last.removeprefix("ERROR: ")))
