"""The ecosystem criterion for the team's application domains: per-domain facts weighted by the profile.

    ecosystem_f = sum_d v_d * s_fd / sum_d v_d

where v_d is the profile's weight for domain d (1 each for a plain list) and s_fd the knowledge base's
ecosystem score of framework f in d (`knowledge/domains.yaml`). A domain without a fact for f counts as
f's general ecosystem score, and says so. Without domains the general score stands.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass

from advisor.knowledge.base import KnowledgeBase


@dataclass(frozen=True)
class DomainEcosystem:
    """The ecosystem score for the team's domains, with the facts it comes from."""

    score: float
    rationale: str
    sources: list[str]
    as_of: dt.date  # the oldest fact used
    shown: str  # each domain with its score, e.g. "nlp 4.5, vision 3.0"
    general: float  # the general ecosystem score it replaces
    parts: list[dict[str, object]]


def domain_ecosystem(kb: KnowledgeBase, framework: str, domains: Mapping[str, float]) -> DomainEcosystem | None:
    """The domain-weighted ecosystem score of `framework` for `domains` ({domain: weight}); None without any."""
    weights = {d: v for d, v in domains.items() if v > 0 and d in kb.domains}
    total = math.fsum(weights.values())
    if not weights or total <= 0:
        return None
    general = kb.frameworks[framework].scores["ecosystem"]
    parts: list[dict[str, object]] = []
    shown: list[str] = []
    rationale: list[str] = []
    sources: list[str] = []
    dates: list[dt.date] = []
    acc = 0.0
    for did, v in weights.items():
        fact = kb.domains[did].ecosystem.get(framework)
        if fact is None:
            s = general.score
            rationale.append(f"{did}: no domain fact, the general ecosystem score {s:g} is used")
            sources += [str(u) for u in general.sources]
            dates.append(general.as_of)
        else:
            s = fact.score
            rationale.append(f"{did}: {fact.rationale}")
            sources += [str(u) for u in fact.sources]
            dates.append(fact.as_of)
        acc += v * s
        parts.append({"domain": did, "weight": v / total, "score": s, "fact": fact is not None})
        shown.append(f"{did} {s:.1f}")
    score = acc / total
    return DomainEcosystem(score, " ".join(rationale), list(dict.fromkeys(sources)), min(dates), ", ".join(shown),
                           general.score, parts)
