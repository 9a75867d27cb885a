"""Migration as a cost: engineer-months (a range) from kLOC, the pair's difficulty and the team's experience.

The effort model is COCOMO II's post-architecture equation with its reuse (adaptation) model
(Boehm et al. 2000, *Software Cost Estimation with COCOMO II*, ch. 2):

    effort [engineer-months] = A * (kLOC * AAF) ** E * LTEX

* A = 2.94 and E = 1.0997 are COCOMO II.2000's calibrated constant and its exponent at nominal
  scale factors: effort grows slightly faster than size, and is never capped.
* AAF = 0.4 DM + 0.3 CM + 0.3 IM is COCOMO's adaptation adjustment factor (shares of the design
  modified, code modified and integration/test redone). The ranges per difficulty class of the
  migration matrix (`AAF_RANGE`) are this advisor's judgement of DM/CM/IM for a framework port, not a
  COCOMO figure; they give the low and high ends of the range.
* LTEX is COCOMO II's language-and-tool-experience multiplier, read from the team's experience with
  the target framework (very low 1.20 ... very high 0.84).

The cost enters the weighted sum as the migration criterion: the effort's share f of the team's
capacity over the planning horizon (team size x horizon months) scores 5 * exp(-f): 5 for no move,
about 5 * (1 - f) for small moves (the share of capacity left for the team's real work), and still
decreasing past f = 1, so a larger codebase always costs more (docs/scoring.md, "Migration").
"""

from __future__ import annotations

import math

from pydantic import Field

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Cost, Migration, RouteCode
from advisor.profile import Experience, Profile, experience_of
from advisor.scoring.result import FrozenResult

#: COCOMO II.2000 post-architecture constant A and exponent E at nominal scale factors (sum of SF 18.97).
COCOMO_A = 2.94
COCOMO_E = 1.0997
#: Adaptation adjustment factor (low, high) per difficulty class: judgement of DM/CM/IM for a port (see above).
#: low: DM 0, CM 5-15 %, IM 20-40 %; medium: DM 0-10 %, CM 30-60 %, IM 50-80 %;
#: high: DM 10-30 %, CM 70-100 %, IM 80-100 %; very high: DM 30-50 %, CM and IM 100 %.
AAF_RANGE: dict[Cost, tuple[float, float]] = {
    Cost.LOW: (0.075, 0.165),
    Cost.MEDIUM: (0.24, 0.46),
    Cost.HIGH: (0.49, 0.72),
    Cost.VERY_HIGH: (0.72, 0.80),
}
#: COCOMO II.2000 LTEX multipliers: none = very low (<= 2 months), beginner = low (6 months),
#: intermediate = nominal (1 year), expert = very high (6 years).
LTEX: dict[Experience, float] = {
    Experience.NONE: 1.20,
    Experience.BEGINNER: 1.09,
    Experience.INTERMEDIATE: 1.00,
    Experience.EXPERT: 0.84,
}
#: Team size assumed where the profile gives none (conservative: the whole move falls on one engineer).
DEFAULT_TEAM = 1
SOURCES = (
    "Boehm, B. et al. (2000). Software Cost Estimation with COCOMO II. Prentice Hall, ch. 2 "
    "(post-architecture model, reuse model, LTEX)",
    "https://csse.usc.edu/tools/COCOMOII.php",
)


def effort_months(kloc: float, aaf: float, multiplier: float) -> float:
    """COCOMO II effort in engineer-months for adapting `kloc` thousand lines at `aaf` (0 for no code)."""
    size = kloc * aaf
    return COCOMO_A * size**COCOMO_E * multiplier if size > 0 else 0.0


def cost_score(share: float) -> float:
    """The migration criterion's 0-5 score for a move that takes `share` of the team's capacity."""
    return 5.0 * math.exp(-share)


def share_for_score(score: float) -> float:
    """Inverse of `cost_score`: the capacity share that scores `score` (inf for 0)."""
    return math.inf if score <= 0 else -math.log(score / 5.0)


class RouteUse(FrozenResult):
    """A named route (`RouteCode`) taken for part of a pair's code, with the figures it was costed with.

    `share` is the profile's share of the source's code the route covers; None when the profile does not
    say, in which case the route is named but not costed (the pair's own class applies to all the code).
    Its sentence is rendered from these at the edge (`route_sentence`).
    """

    code: RouteCode
    through: str
    backend: str  # the target framework whose backend the code runs on
    cost: str  # the route's difficulty class for the code it covers
    share: float | None
    kloc: tuple[float, float]  # the code the route covers (0 when not costed)
    #: Engineer-months for the code the route covers.
    effort: tuple[float, float] = Field(
        validation_alias="effort_engineer_months", serialization_alias="effort_engineer_months"
    )
    #: The whole pair costed without the route, for comparison.
    direct_effort: tuple[float, float] = Field(
        validation_alias="direct_effort_engineer_months", serialization_alias="direct_effort_engineer_months"
    )


class PairEstimate(FrozenResult):
    """Moving one incumbent framework's code to the target (the migration criterion's figures)."""

    source: str = Field(validation_alias="from", serialization_alias="from")
    target: str = Field(validation_alias="to", serialization_alias="to")
    cost: str  # the matrix's difficulty class
    kloc: tuple[float, float]
    aaf: tuple[float, float]
    ltex: float
    effort: tuple[float, float] = Field(
        validation_alias="effort_engineer_months", serialization_alias="effort_engineer_months"
    )
    route: RouteUse | None = None  # a cheaper route for part of the code (named even where not costed)


class MoveCost(FrozenResult):
    """The whole move to one framework: effort range, the team's capacity, and the criterion score."""

    target: str = Field(validation_alias="to", serialization_alias="to")
    effort: tuple[float, float] = Field(
        validation_alias="effort_engineer_months", serialization_alias="effort_engineer_months"
    )
    #: Months the move takes with the whole team on it (no allowance for Brooks's law).
    calendar_months: tuple[float, float]
    team_size: int
    team_size_assumed: bool
    horizon_months: float
    #: The move's share of the team's capacity over the horizon.
    share: tuple[float, float] = Field(
        validation_alias="capacity_share", serialization_alias="capacity_share"
    )
    score: float  # cost_score of the midpoint share
    pairs: list[PairEstimate]
    missing: list[str] = Field(default_factory=list)  # incumbents without a matrix entry

    @property
    def capacity(self) -> float:
        """Engineer-months the team has over the horizon."""
        return self.team_size * self.horizon_months

    def kloc_for_share(self, share: float) -> float | None:
        """The codebase size (all incumbents scaled alike) at which the move's midpoint share equals `share`."""
        mid = (self.effort[0] + self.effort[1]) / 2
        total = sum((p.kloc[0] + p.kloc[1]) / 2 for p in self.pairs)
        if mid <= 0 or total <= 0 or not math.isfinite(share):
            return None
        # effort scales as kLOC**E for every pair alike, so solve mid * s**E = share * capacity for the factor s.
        factor = (share * self.capacity / mid) ** (1.0 / COCOMO_E)
        return total * factor


def _rest(kloc: float, share: float, aaf: float, ltex: float) -> float:
    """The pair's own effort for the code the route does not cover."""
    return effort_months(kloc * (1.0 - share), aaf, ltex)


def _route(
    entry: Migration, kloc: tuple[float, float], ltex: float, share: float | None, direct: tuple[float, float]
) -> RouteUse | None:
    """The pair's cheaper route for the code it covers (the profile's `codebase.keras_share` of it).

    Each part is costed by the same COCOMO equation at its own class: the covered code at the route's
    class, the rest at the pair's. Effort is summed per part (the exponent E applies per part, a slight
    under-estimate against one project of the whole size, within the range's width).
    """
    via = entry.via
    if via is None:
        return None
    if share is None:
        return RouteUse(code=via.route, through=via.through, backend=entry.to, cost=via.cost.value, share=None,
                        kloc=(0.0, 0.0), effort=(0.0, 0.0), direct_effort=direct)
    aaf = AAF_RANGE[via.cost]
    covered = (kloc[0] * share, kloc[1] * share)
    effort = (effort_months(covered[0], aaf[0], ltex), effort_months(covered[1], aaf[1], ltex))
    return RouteUse(code=via.route, through=via.through, backend=entry.to, cost=via.cost.value, share=share,
                    kloc=covered, effort=effort, direct_effort=direct)


def move_cost(kb: KnowledgeBase, framework: str, profile: Profile) -> MoveCost | None:
    """The cost of moving the team's code to `framework`; None when there is nothing to move.

    Nothing moves for a greenfield profile or for the team's only framework. A team with several
    frameworks that settles on one of them ports the others' code to it: that consolidation is costed
    like any move. Incumbents without a migration-matrix entry are listed in `missing`; when none has
    an entry the result has no pairs and the caller falls back to the knowledge score.
    """
    current = list(profile.team.current)
    if not current or current == [framework]:
        return None
    ltex = LTEX[experience_of(profile, framework)]
    pairs: list[PairEstimate] = []
    missing: list[str] = []
    for src in current:
        if src == framework:
            continue
        entry = kb.migrations.get((src, framework))
        if entry is None:
            missing.append(src)
            continue
        kloc = profile.codebase.kloc_range(src, current)
        aaf = AAF_RANGE[entry.cost]
        lo, hi = effort_months(kloc[0], aaf[0], ltex), effort_months(kloc[1], aaf[1], ltex)
        route = _route(entry, kloc, ltex, profile.codebase.keras_share, (lo, hi))
        if route is not None and route.share is not None:
            lo, hi = route.effort[0] + _rest(kloc[0], route.share, aaf[0], ltex), route.effort[1] + _rest(
                kloc[1], route.share, aaf[1], ltex
            )
        pairs.append(PairEstimate(source=src, target=framework, cost=entry.cost.value, kloc=kloc, aaf=aaf, ltex=ltex,
                                  effort=(lo, hi), route=route))
    size = profile.team.size or DEFAULT_TEAM
    horizon = profile.team.horizon_months
    effort = (sum(p.effort[0] for p in pairs), sum(p.effort[1] for p in pairs))
    capacity = size * horizon
    share = (effort[0] / capacity, effort[1] / capacity)
    score = cost_score((share[0] + share[1]) / 2)
    return MoveCost(target=framework, effort=effort, calendar_months=(effort[0] / size, effort[1] / size),
                    team_size=size, team_size_assumed=profile.team.size is None, horizon_months=horizon,
                    share=share, score=score, pairs=pairs, missing=missing)


def route_sentence(names: dict[str, str], pair: PairEstimate) -> str | None:
    """The pair's route in words, from its code and parameters (None: the pair has none)."""
    r = pair.route
    if r is None:
        return None
    src, via, to = names.get(pair.source, pair.source), names.get(r.through, r.through), names.get(r.backend, r.backend)
    if r.code is not RouteCode.KERAS3_BACKEND:  # pragma: no cover - one route so far; a new code needs its words
        return f"{src} -> {to} has a cheaper route ({r.code.value}) through {via}"
    if r.share is None:
        return (
            f"{src} code written against tf.keras only can move by {via} on the {to} backend (tf.keras is Keras 3 "
            f"since TensorFlow 2.16), at {r.cost} cost instead of a rewrite: give codebase.keras_share (the share of "
            "the TensorFlow code without tf.* ops, custom train_step or GradientTape loops) to have that route costed"
        )
    return (
        f"{round(100 * r.share)}% of the {src} code moves by {via} on the {to} backend "
        f"({_klocs(r.kloc)} kLOC at {r.cost} cost: {r.effort[0]:.0f}-{r.effort[1]:.0f} engineer-months); the rest "
        f"is ported at {pair.cost} cost. A rewrite of all of it would take {r.direct_effort[0]:.0f}-"
        f"{r.direct_effort[1]:.0f} engineer-months. tf.data pipelines can stay, with TensorFlow installed for them"
    )


def _klocs(k: tuple[float, float]) -> str:
    return f"{k[0]:.3g}" if k[0] == k[1] else f"{k[0]:.3g}-{k[1]:.3g}"
