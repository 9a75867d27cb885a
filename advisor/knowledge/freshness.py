"""When a fact is due for review: its as-of date plus a review interval (per fact, else per kind, else 180 days)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from advisor.knowledge.base import KnowledgeBase

#: Days a fact stays current without a re-check, unless the fact sets its own `review_days`.
DEFAULT_REVIEW_DAYS = 180
#: Per kind: package facts (latest release, wheels) move fastest; `kb verify` re-checks them in seconds.
REVIEW_DAYS_BY_KIND: dict[str, int] = {"score": DEFAULT_REVIEW_DAYS, "package": 90}


@dataclass(frozen=True)
class StaleFact:
    """A fact past its review interval."""

    id: str  # e.g. "mindspore.scores.community", "jax.hardware.google_tpu.scores.performance", "jax.packages.jaxlib"
    kind: str  # score | package
    framework: str
    subject: str  # the criterion id or the distribution name
    as_of: dt.date
    review_days: int


def review_days(kind: str, own: int | None) -> int:
    """The interval that applies to a fact of `kind` that sets `own` (or not)."""
    return own if own is not None else REVIEW_DAYS_BY_KIND.get(kind, DEFAULT_REVIEW_DAYS)


def stale_facts(kb: KnowledgeBase, today: dt.date) -> list[StaleFact]:
    """Every score (general or per backend) and package claim whose as-of date is older than its interval."""
    out: list[StaleFact] = []

    def check(fact_id: str, kind: str, fid: str, subject: str, as_of: dt.date, own: int | None) -> None:
        days = review_days(kind, own)
        if (today - as_of).days > days:
            out.append(StaleFact(fact_id, kind, fid, subject, as_of, days))

    for fid, fw in kb.frameworks.items():
        for cid, score in fw.scores.items():
            check(f"{fid}.scores.{cid}", "score", fid, cid, score.as_of, score.review_days)
        for hw, support in fw.hardware.items():
            for cid, score in support.scores.items():
                check(f"{fid}.hardware.{hw.value}.scores.{cid}", "score", fid, cid, score.as_of, score.review_days)
        for dist in fw.packages.distributions if fw.packages else ():
            check(f"{fid}.packages.{dist.name}", "package", fid, dist.name, dist.as_of, dist.review_days)
    return out
