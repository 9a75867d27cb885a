"""`kb verify --source-dates`: each package source's date against the upload date of the release it cites.

The release is `@VERSION` in the Package URL, or, for `pkg:pypi/NAME` quoting pip's `NAME (VERSION)`, that version.

A package source's `date` is the release's own date. Audits kept finding the day of the check written there
instead, which makes a fact look newer than its evidence; the index's PEP 700 upload times settle it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.sourcing import PIP_NEWEST, Source
from advisor.knowledge.verify.answers import FileList, PipFailed
from advisor.knowledge.verify.releases import of_version, released
from advisor.knowledge.verify.results import Drift, DriftKind, NotChecked, SourceDates, Unchecked


@dataclass(frozen=True)
class PkgSource:
    """One package source of the base: where it is cited, the release it names and the date it gives."""

    where: str  # `frameworks.jax.hardware.cpu`, `routes[mobile, jax]`
    name: str
    version: str
    date: dt.date | None


def _walk(value: object, where: str) -> Iterator[tuple[str, Source]]:
    if isinstance(value, Source):
        yield where, value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _walk(getattr(value, name), where if name == "sources" else f"{where}.{name}")
    elif isinstance(value, dict):
        for key, item in value.items():
            label = ", ".join(str(k) for k in key) if isinstance(key, tuple) else str(key)
            yield from _walk(item, f"{where}[{label}]" if isinstance(key, tuple) else f"{where}.{label}")
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item, where)


def pkg_sources(kb: KnowledgeBase, frameworks: list[str] | None = None) -> list[PkgSource]:
    """Every `pkg:pypi/NAME@VERSION` source: of these frameworks' entries, or of the whole base (None)."""
    roots: dict[str, object] = (
        {f"frameworks.{f}": kb.frameworks[f] for f in frameworks} if frameworks is not None
        else {"frameworks": kb.frameworks, "migrations": kb.migrations, "onboarding": kb.onboarding,
              "targets": kb.targets, "routes": kb.routes, "engines": kb.engines, "domains": kb.domains,
              "stewardship": kb.stewardship, "serving": kb.serving, "criteria": kb.criteria}
    )
    out: dict[tuple[str, str, str, dt.date | None], PkgSource] = {}
    for root, value in roots.items():
        for where, source in _walk(value, root):
            url = str(source.url)
            if not url.startswith("pkg:pypi/"):
                continue
            name, _, version = url.removeprefix("pkg:pypi/").partition("@")
            if not version:  # `pkg:pypi/jax` quoting `jax (0.12.1)`, pip's "newest release" line: that release
                quoted = PIP_NEWEST.fullmatch((source.quote or "").strip())
                if quoted is None or canonicalize_name(quoted.group(1)) != canonicalize_name(name):
                    continue
                version = quoted.group(2)
            out.setdefault((where, name, version, source.date), PkgSource(where, name, version, source.date))
    return list(out.values())


def judge_source_dates(sources: list[PkgSource], files: Callable[[str], FileList | PipFailed]) -> SourceDates:
    """Compare each dated package source with its release's first upload; say what cannot be compared here."""
    result = SourceDates()
    for src in sources:
        subject = f"pkg:pypi/{src.name}@{src.version}"
        answer = files(canonicalize_name(src.name))
        if isinstance(answer, PipFailed) or answer.unreachable or not answer.files:
            result.not_checked.append(NotChecked(Unchecked.NOT_ON_INDEX, subject, src.where))
            continue
        try:
            release = of_version(answer, Version(src.version))
        except InvalidVersion:
            release = []
        if not release:
            result.checks += 1
            result.drift.append(Drift(DriftKind.SOURCE_DATE, subject, src.where, f"release {src.version}",
                                      "no such release on the configured indexes",
                                      f"python -m pip index versions {src.name}"))
            continue
        day = released(release)
        if day is None:
            result.not_checked.append(NotChecked(Unchecked.NO_DATE, subject, src.where))
            continue
        result.checks += 1
        if src.date != day:
            result.drift.append(Drift(DriftKind.SOURCE_DATE, subject, src.where, str(src.date or "no date"),
                                      f"released {day} (first upload)",
                                      f"python -m pip download {src.name}=={src.version} --no-deps"))
    return result
