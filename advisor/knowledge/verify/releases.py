"""Releases read from a project's file list: the latest overall, the newest with a wheel for one target, its date."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from packaging.version import Version

from advisor.knowledge.verify.answers import FileList, IndexFile
from advisor.knowledge.verify.targets import Target


def _wanted(v: Version, pre: bool) -> bool:
    return pre or not (v.is_prerelease or v.is_devrelease)


def live(files: FileList) -> list[IndexFile]:
    """Files that are releases (wheel or sdist) and not yanked."""
    return [f for f in files.files if f.release is not None and not f.yanked]


def latest(files: FileList, pre: bool = False) -> Version | None:
    """The newest release with any file (a wheel for any platform and Python, or an sdist); local labels aside."""
    versions = [f.release[0] for f in live(files) if f.release and _wanted(f.release[0], pre)]
    public = [v for v in versions if v.local is None]
    return max(public or versions, default=None)


def for_target(files: FileList, target: Target, pre: bool = False) -> list[tuple[Version, IndexFile]]:
    """(version, a wheel) for every release with a wheel that installs on `target`, newest first."""
    best: dict[Version, IndexFile] = {}
    for f in live(files):
        assert f.release is not None
        version, wheel = f.release
        if wheel and _wanted(version, pre) and not f.tags.isdisjoint(target.tags):
            best.setdefault(version, f)
    return sorted(best.items(), key=lambda kv: kv[0], reverse=True)


def of_version(files: FileList, version: Version) -> list[IndexFile]:
    """The files of one release."""
    return [f for f in live(files) if f.release and f.release[0] == version]


def requires_python(files: Iterable[IndexFile]) -> tuple[bool, str | None]:
    """(known, value): the Requires-Python the index gives for a release's wheels (known False: it gives none)."""
    # A folder of files (find-links) says nothing; an index page says it, or that the release declares none.
    given = [f.requires_python for f in sorted(files, key=lambda f: not (f.release and f.release[1])) if f.from_page]
    return (True, given[0]) if given else (False, None)


def released(files: Iterable[IndexFile]) -> dt.date | None:
    """When a release was published (its first upload), where the index says."""
    times = [f.uploaded for f in files if f.uploaded is not None]
    return min(times).date() if times else None
