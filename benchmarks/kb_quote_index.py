"""The package index side of kb_quote_check: PEP 691 listings, cached sha256-checked downloads, Range reads."""

from __future__ import annotations

import hashlib
import io
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from advisor.knowledge.sourcing import PIP_NEWEST

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
RETRY_PAUSE = 1.0  # seconds before the second try; doubled before the third


class Unreachable(Exception):
    """The index cannot be reached (or answers with a server error): the run stops with exit 2."""


@dataclass
class Release:
    """What was learned about one release: per quote where it was found, what was searched, what failed."""

    name: str
    version: str
    found: dict[str, tuple[str, str, bool]] = field(default_factory=dict)  # quote -> (kind, place, markup removed)
    searched: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    downloaded: int = 0


def fetch_json(url: str) -> dict[str, Any]:
    """A PEP 691 page; a 404 reads as a project with no files; an unreachable index raises `Unreachable`."""
    request = urllib.request.Request(url, headers={"Accept": JSON_TYPE})
    for attempt in range(3):
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                data: dict[str, Any] = json.load(reply)
                return data
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return {"files": [], "missing": True}
            if attempt == 2:
                raise Unreachable(f"{url}: HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            if attempt == 2:
                raise Unreachable(f"{url}: {getattr(exc, 'reason', exc)}") from None
        time.sleep(RETRY_PAUSE * (1 + attempt))
    raise AssertionError("unreachable")


def of_version(filename: str, version: str) -> bool:
    """Whether a distribution file belongs to `version` (wheels and sdists by their parsed names)."""
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1] == Version(version)
        return parse_sdist_filename(filename)[1] == Version(version)
    except (ValueError, InvalidVersion):
        return re.search(rf"-{re.escape(version)}[-.]", filename) is not None


def listing(index: str, name: str, version: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The release's files as the index lists them (with absolute URLs), and every version the index has."""
    url = f"{index.rstrip('/')}/{canonicalize_name(name)}/"
    page = fetch_json(url)
    files = [dict(f, url=urllib.parse.urljoin(url, f["url"])) for f in page.get("files", [])]
    versions = list(page.get("versions") or {v for f in files if (v := version_of(f["filename"]))})
    return [f for f in files if of_version(f["filename"], version)], versions


def version_of(filename: str) -> str | None:
    try:
        if filename.endswith(".whl"):
            return str(parse_wheel_filename(filename)[1])
        return str(parse_sdist_filename(filename)[1])
    except (ValueError, InvalidVersion):
        return None


def pip_line(quote: str, name: str, version: str, versions: list[str]) -> bool:
    """Whether the quote is pip's `NAME (VERSION)` line for this release, every version it lists on the index.

    That line is pip's output, not text of the release: it is checked against the index, newest first, the
    versions listed in descending order (pip hides pre-releases and releases for other Pythons, so gaps pass).
    """
    m = PIP_NEWEST.fullmatch(quote)
    if not m or canonicalize_name(m[1]) != canonicalize_name(name) or m[2] != version:
        return False
    listed = [version] + re.findall(r"[^\s,]+", quote.partition("Available versions:")[2])
    try:
        parsed, known = [Version(v) for v in listed[1:] or listed], {Version(v) for v in versions}
    except InvalidVersion:
        return False
    return parsed[0] == Version(version) and parsed == sorted(parsed, reverse=True) and set(parsed) <= known


def download(url: str, target: Path, sha256: str | None, rel: Release) -> Path | None:
    """The file from the cache, or downloaded into it; None (and a problem recorded) when its sha256 is wrong."""
    if target.is_file() and (sha256 is None or file_sha(target) == sha256):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    for attempt in range(3):
        try:
            with urllib.request.urlopen(url, timeout=120) as reply, part.open("wb") as out:
                digest = hashlib.sha256()
                while block := reply.read(1 << 20):
                    digest.update(block)
                    out.write(block)
            break
        except (urllib.error.URLError, OSError) as exc:
            if attempt == 2:
                rel.problems.append(f"{target.name}: download failed: {getattr(exc, 'reason', exc)}")
                part.unlink(missing_ok=True)
                return None
            time.sleep(RETRY_PAUSE * 2 * (1 + attempt))
    rel.downloaded += part.stat().st_size
    if sha256 is not None and digest.hexdigest() != sha256:
        rel.problems.append(f"{target.name}: sha256 mismatch (index {sha256}, got {digest.hexdigest()})")
        part.unlink()
        return None
    part.replace(target)
    return target


def file_sha(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


class Ranged(io.RawIOBase):
    """A remote file read with HTTP Range requests: enough for zipfile to read a wheel's central directory."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.pos, self.fetched = url, size, 0, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = offset + (0, self.pos, self.size)[whence]
        return self.pos

    def tell(self) -> int:
        return self.pos

    def readinto(self, buffer: Any) -> int:
        end = min(self.pos + len(buffer), self.size)
        if end <= self.pos:
            return 0
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={self.pos}-{end - 1}"})
        with urllib.request.urlopen(request, timeout=60) as reply:
            if reply.status != 206:
                raise OSError("the server does not answer Range requests")
            data = reply.read()
        buffer[: len(data)] = data
        self.pos += len(data)
        self.fetched += len(data)
        return len(data)


def remote_names(f: dict[str, Any], rel: Release) -> list[str] | None:
    """A wheel's member names from its central directory, fetched by Range requests without the wheel."""
    try:
        raw = Ranged(f["url"], int(f["size"]))
        with zipfile.ZipFile(io.BufferedReader(raw, 1 << 20)) as zf:
            names = zf.namelist()
        rel.downloaded += raw.fetched
        return names
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, urllib.error.URLError):
        return None
