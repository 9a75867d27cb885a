"""When a fact is due for review: its as-of date plus a review interval (the fact's own, else its kind's)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.facts import FactKind, iter_facts
from advisor.knowledge.schema import Score

#: Days a fact of each kind stays current without a re-read of its sources, unless it sets `review_days`.
#: Vendor SDK routes and serving engines move with monthly releases (a chip generation gains or loses a
#: framework); package facts with each release (`kb verify` re-checks them in seconds); governance yearly.
REVIEW_DAYS_BY_KIND: dict[FactKind, int] = {
    FactKind.HARDWARE: 30,
    FactKind.ENGINE: 30,
    FactKind.PACKAGE: 30,
    FactKind.ROUTE: 90,
    FactKind.PLATFORM: 90,
    FactKind.FLOOR: 90,
    FactKind.FRAMEWORK: 90,
    FactKind.SERVING: 90,
    FactKind.TIER: 90,  # who ships a route changes with a vendor's plans (IPEX retired, TorchTPU replacing torch-xla)
    FactKind.SCORE: 180,
    FactKind.MIGRATION: 180,
    FactKind.GOVERNANCE: 365,
}
#: For a kind missing above (none today; a new kind must be added there).
DEFAULT_REVIEW_DAYS = 180


@dataclass(frozen=True)
class StaleFact:
    """A fact past its review interval."""

    id: str  # e.g. "mindspore.scores.community", "jax.hardware.google_tpu.generations.tpu7x", "jax.packages.jaxlib"
    kind: FactKind
    framework: str | None  # the framework the fact is about; None for an engine (it serves several)
    subject: str  # a score's criterion id; otherwise the fact's path below its framework or its id
    as_of: dt.date
    review_days: int


def review_days(kind: FactKind | str, own: int | None) -> int:
    """The interval that applies to a fact of `kind` that sets `own` (or not)."""
    return own if own is not None else REVIEW_DAYS_BY_KIND.get(FactKind(kind), DEFAULT_REVIEW_DAYS)


def _framework_facts(fid: str, fw: BaseModel) -> Iterator[tuple[str, FactKind, str, BaseModel]]:
    for at in iter_facts(fw):
        if not hasattr(at.fact, "as_of"):
            continue  # a fact the base does not date on its own (none today) cannot be checked
        parts = [str(p) for p in at.path]
        if at.kind is FactKind.PACKAGE:
            # Package claims are named by distribution (or install line number), not by list position.
            name = getattr(at.fact, "name", None)
            parts = ["packages", name] if name else ["packages", "installs", parts[-1]]
        subject = parts[-1] if isinstance(at.fact, Score) else ".".join(parts) or "framework"
        yield ".".join([fid, *parts]), at.kind, subject, at.fact


def _all_facts(kb: KnowledgeBase) -> Iterator[tuple[str, FactKind, str | None, str, BaseModel]]:
    """(id, kind, framework, subject, fact) for every fact of the merged base."""
    for fid, fw in kb.frameworks.items():
        for fact_id, kind, subject, fact in _framework_facts(fid, fw):
            yield fact_id, kind, fid, subject, fact
    for fid, st in kb.stewardship.items():
        for fact_id, kind, subject, fact in _framework_facts(f"stewardship.{fid}", st):
            yield fact_id, kind, fid, subject.replace("framework", "stewardship"), fact
    for (target, fid), route in kb.routes.items():
        yield f"routes.{target}.{fid}", FactKind.ROUTE, fid, f"route to {target}", route
    for eid, engine in kb.engines.items():
        yield f"engines.{eid}", FactKind.ENGINE, None, f"engine {eid}", engine
    for did, domain in kb.domains.items():
        for fid, score in domain.ecosystem.items():
            yield f"domains.{did}.ecosystem.{fid}", FactKind.SCORE, fid, "ecosystem", score
    for (src, dst), migration in kb.migrations.items():
        yield f"migrations.{src}.{dst}", FactKind.MIGRATION, dst, f"migration from {src}", migration
    for sid, stack in kb.serving.items():
        yield f"serving.{sid}", FactKind.SERVING, None, f"serving stack {sid}", stack


def stale_facts(kb: KnowledgeBase, today: dt.date) -> list[StaleFact]:
    """Every fact with an as-of date older than its review interval on `today` (passed in: tests pin it)."""
    out: list[StaleFact] = []
    for fact_id, kind, fid, subject, fact in _all_facts(kb):
        as_of: dt.date | None = getattr(fact, "as_of", None)
        if as_of is None and fid in kb.frameworks:
            as_of = kb.frameworks[fid].as_of  # an undated backend route is as current as its framework file
        if as_of is None:
            continue
        days = review_days(kind, getattr(fact, "review_days", None))
        if (today - as_of).days > days:
            out.append(StaleFact(fact_id, kind, fid, subject, as_of, days))
    return out
