"""Hardware fit on the team's own hardware: that route's status and tier (breadth moves to portability).

The general `hardware_fit` score rates breadth across every accelerator. With the team's hardware known
(found here, `must_run_on`, fleet) that breadth says nothing about how well the framework runs on the
hardware the team will use, and it drags a vendor's own framework down exactly where it fits best
(MindSpore on Ascend, 2/5 for breadth). So the knowledge score becomes, for each of the team's
accelerators, the backend's own `hardware_fit` fact where the base has one, otherwise the route's value
(support status capped by its tier: native 5, plugin 4, community 3); the team needs every accelerator,
so the lowest counts. Breadth beyond that hardware becomes the portability part of governance and vendor
risk (`advisor.scoring.portability`), computed from the routes to the other vendors' accelerators.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware
from advisor.scoring.evidence import HardwareSpecific, Override, _framework_uses, _route_value, route_tier, team_targets

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport

CRITERION = "hardware_fit"


def team_hardware_fit(
    kb: KnowledgeBase,
    framework: str,
    probe: ProbeReport | None,
    required: Sequence[Hardware] = (),
    override: Override | None = None,
) -> HardwareSpecific | None:
    """`framework`'s fit on the team's accelerators (None: no accelerator known, the general score stands)."""
    targets = list(team_targets(probe, required))
    if not targets:
        return None
    fw = kb.frameworks[framework]
    used = _framework_uses(probe, framework) if probe is not None else set()
    general = fw.scores[CRITERION]
    values: list[tuple[float, Hardware]] = []
    reasons: list[str] = []
    sources: list[str] = []
    dates = []
    for hw in targets:
        entry = fw.hardware.get(hw)
        fact = entry.scores.get(CRITERION) if entry is not None else None
        if fact is not None:
            values.append((fact.score, hw))
            reasons.append(f"{hw.value}: {fact.rationale}")
            sources += [str(s) for s in fact.sources]
            dates.append(fact.as_of)
            continue
        value = _route_value(kb, framework, hw, used, override)
        values.append((value, hw))
        status = entry.status.value if entry is not None else "unknown"
        tier = route_tier(kb, framework, hw)
        by = f" ({entry.tier.by})" if entry is not None and entry.tier is not None and entry.tier.by else ""
        reasons.append(f"{hw.value}: {status}, {tier.value} route{by}")
        if entry is not None:
            sources += [str(s) for s in (entry.tier.sources if entry.tier else entry.sources)]
            dates.append((entry.tier.as_of if entry.tier else entry.as_of) or fw.as_of)
    score = min(v for v, _ in values)
    parts = ", ".join(f"{hw.value} {v:.1f}" for v, hw in values)
    return HardwareSpecific(
        score,
        "; ".join(reasons),
        list(dict.fromkeys(sources)) or [str(s) for s in general.sources],
        min(dates) if dates else general.as_of,
        parts,
        general.score,
        breadth=True,
    )
