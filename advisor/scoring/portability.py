"""Portability beyond the team's hardware: the hardware-vendor part of governance and vendor risk.

Without the team's hardware the general `hardware_fit` score rates breadth across accelerators. Once that
hardware is known, hardware fit rates only the team's own routes (`advisor.scoring.hardware_fit`), and
breadth answers a different question: if the team later has to leave its hardware vendor (price, supply,
a sanction, a chip that stops being made), can its models follow? That is a vendor risk, so it joins the
`governance` criterion ("Governance and vendor risk") as its second part:

* **portability** = the mean, over the hardware vendors other than the team's, of the framework's best
  route to that vendor's accelerators, each valued as hardware fit values a route (support status capped
  by tier: `evidence.SUPPORT_VALUE`, `tiers.TIER_CAP`); the CPU is every framework's and counts for none;
* **stewardship** = the knowledge base's governance fact (who controls the roadmap, licence, maintenance);
* the criterion's knowledge score is their mean (`PORTABILITY_SHARE`).

Each route fact is then counted once: the team's routes in hardware fit, the others here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware
from advisor.scoring.evidence import Override, _route_value, _support, route_tier, team_targets
from advisor.scoring.explain import Part, PartCode
from advisor.scoring.result import FrozenResult, Param

if TYPE_CHECKING:
    from advisor.evidence.probe import ProbeReport

#: The criterion whose knowledge score gains the portability part on the team's hardware.
CRITERION = "governance"
#: Portability's share of that score: the criterion names two risks of equal standing, the steward's
#: ("who controls the roadmap") and "dependence on a single vendor", which on known hardware is also the
#: chip vendor's.
PORTABILITY_SHARE = 0.5

#: Who makes each accelerator: leaving a vendor means leaving all of its hardware ids (a Jetson is NVIDIA's).
VENDOR: dict[Hardware, str] = {
    Hardware.NVIDIA_CUDA: "nvidia",
    Hardware.NVIDIA_JETSON: "nvidia",
    Hardware.AMD_ROCM: "amd",
    Hardware.GOOGLE_TPU: "google",
    Hardware.APPLE_METAL: "apple",
    Hardware.HUAWEI_ASCEND: "huawei",
    Hardware.INTEL_GPU: "intel",
    Hardware.AWS_NEURON: "aws",
}


class VendorRoute(FrozenResult):
    """A framework's best route to one other vendor's accelerators, valued as hardware fit values it (a figure)."""

    vendor: str
    hardware: Hardware
    status: str
    tier: str
    value: float


@dataclass(frozen=True)
class Portability:
    """How far a framework reaches beyond the team's hardware vendors (0-5) and the routes it rests on."""

    score: float
    team_vendors: tuple[str, ...]
    routes: tuple[VendorRoute, ...]

    def governance(self, stewardship: float) -> tuple[float, list[Part]]:
        """The criterion's knowledge score on the team's hardware, and its two parts."""
        share = PORTABILITY_SHARE
        parts = [
            Part(code=PartCode.STEWARDSHIP.value, score=stewardship, share=1.0 - share),
            Part(code=PartCode.PORTABILITY.value, score=self.score, share=share,
                 figures=[r.model_dump(mode="json") for r in self.routes]),
        ]
        return (1.0 - share) * stewardship + share * self.score, parts

    def note(self) -> dict[str, Param]:
        """The figures its note and evidence text are written from (`advisor.scoring.note_words`)."""
        return {"vendors": ", ".join(self.team_vendors), "score": self.score,
                "reach": ", ".join(f"{r.vendor} {r.value:.1f}" for r in self.routes)}


def team_portability(
    kb: KnowledgeBase,
    framework: str,
    probe: ProbeReport | None,
    required: Sequence[Hardware] = (),
    override: Override | None = None,
) -> Portability | None:
    """`framework`'s reach beyond the team's hardware vendors (None: no team hardware known, or no other vendor)."""
    targets = [hw for hw in team_targets(probe, required) if hw in VENDOR]
    if not targets:
        return None
    mine = tuple(dict.fromkeys(VENDOR[hw] for hw in targets))
    best: dict[str, VendorRoute] = {}
    for hw, vendor in VENDOR.items():
        if vendor in mine:
            continue
        # Knowledge only: a route used here is on the team's hardware, which is hardware fit's to count.
        route = VendorRoute(vendor=vendor, hardware=hw, status=_support(kb, framework, hw, override).value,
                            tier=route_tier(kb, framework, hw).value,
                            value=_route_value(kb, framework, hw, (), override))
        if vendor not in best or route.value > best[vendor].value:
            best[vendor] = route
    if not best:
        return None
    routes = tuple(best.values())
    return Portability(sum(r.value for r in routes) / len(routes), mine, routes)
