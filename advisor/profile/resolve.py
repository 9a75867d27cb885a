"""A profile checked against the knowledge base: scenario defaults merged, weights on one scale, warnings.

The weight scale: every weight is an importance from 0 (ignore) to 5 (decisive). A scenario preset's
weights are stored as percentages (knowledge/scenarios.yaml) and are read on that scale by scaling the
preset so that its largest weight is 5; a profile's own weights beside a scenario therefore count as
much as the user wrote them (docs/scoring.md, "Weights").
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.errors import ProfileError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Constraints
from advisor.profile.ahp import CR_THRESHOLD, AhpResult, ahp_weights
from advisor.profile.model import Profile
from advisor.profile.warnings import ProfileWarning, ProfileWarningCode, WarningParams
from advisor.sanitize import echo

#: The scenario used when a profile names none and gives no weights of its own.
DEFAULT_SCENARIO = "generic"
#: The top of the documented weight scale (0 = ignore ... 5 = decisive).
WEIGHT_SCALE_MAX = 5.0
#: Below this combined share, the criteria a user weighted beside a scenario are reported as swamped.
SWAMPED_SHARE = 0.5


#: Who set a weight: the profile, the scenario preset, both (a preset weight the profile restated), pairwise
#: judgements, or nobody (every criterion equal).
WeightSource = Literal["profile", "scenario", "scenario+profile", "pairwise", "equal"]


class EffectiveWeight(BaseModel):
    """One criterion's weight on the 0-5 scale, its share of the total and who set it."""

    # The report's `profile.effective_weights` and `profile check --json` carry it keyed by criterion.

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float = Field(ge=0)  # on the 0-5 scale (pairwise: the AHP share times 5)
    share: float = Field(ge=0, le=1)  # normalised: all shares sum to 1
    source: WeightSource


@dataclass(frozen=True)
class ResolvedProfile:
    """A profile checked against the knowledge base, with the scenario's defaults merged in."""

    profile: Profile
    scenario: str | None
    weights: dict[str, float]  # weights on the 0-5 scale, every criterion present (0 where not weighted)
    weight_source: WeightSource
    constraints: Constraints
    policies: tuple[str, ...]  # ids of overlay-pack policies whose constraints were added
    frameworks: tuple[str, ...]  # the frameworks to consider
    ahp: AhpResult | None = None
    warnings: list[ProfileWarning] = field(default_factory=list)
    weight_origin: dict[str, WeightSource] = field(default_factory=dict)  # criterion -> who set its weight
    #: The team's domains: the profile's, or where it names none, the scenario preset's (a list or {domain: weight}).
    domains: list[str] | dict[str, float] = field(default_factory=list)

    @property
    def domain_weights(self) -> dict[str, float]:
        """The domains with their weights (a list gives each weight 1)."""
        if isinstance(self.domains, dict):
            return {k: float(v) for k, v in self.domains.items()}
        return {d: 1.0 for d in self.domains}

    @property
    def normalized_weights(self) -> dict[str, float]:
        """Weights that sum to 1."""
        total = math.fsum(self.weights.values())
        return {k: v / total for k, v in self.weights.items()}

    @property
    def effective_weights(self) -> dict[str, EffectiveWeight]:
        """Per criterion: the value on the 0-5 scale, its share of the total and who set it."""
        norm = self.normalized_weights
        return {
            c: EffectiveWeight(value=w, share=norm[c], source=self.weight_origin.get(c, self.weight_source))
            for c, w in self.weights.items()
        }


def _merge_constraints(base: Constraints, override: Constraints | None) -> Constraints:
    # A list the profile sets replaces the scenario's; a list it leaves out keeps the scenario's.
    if override is None:
        return base
    data = base.model_dump()
    for key in override.model_fields_set:
        data[key] = getattr(override, key)
    return Constraints.model_validate(data)


def scaled_preset(weights: Mapping[str, float]) -> dict[str, float]:
    """A preset's weights read on the 0-5 scale: its largest weight becomes 5 (shares are unchanged)."""
    top = max(weights.values(), default=0.0)
    return {k: WEIGHT_SCALE_MAX * v / top for k, v in weights.items()} if top > 0 else dict(weights)


def _weight_warnings(profile: Profile, weights: Mapping[str, float], preset: bool) -> list[ProfileWarning]:
    if not preset or profile.weights is None:
        return []
    out = [
        ProfileWarning(
            code=ProfileWarningCode.WEIGHT_ABOVE_SCALE,
            params={"criterion": c, "weight": profile.weights[c], "scale": WEIGHT_SCALE_MAX},
        )
        for c in sorted(profile.weights)
        if profile.weights[c] > WEIGHT_SCALE_MAX
    ]
    total = math.fsum(weights.values())
    mine = [c for c in profile.weights if c in weights]
    share = math.fsum(weights[c] for c in mine) / total if total > 0 else 0.0
    others = [c for c, w in weights.items() if c not in profile.weights and w > 0]
    if mine and others and share < SWAMPED_SHARE:
        params: WarningParams = {"criteria": ", ".join(sorted(mine)), "share": share}
        params["others"] = len(others)
        out.append(ProfileWarning(code=ProfileWarningCode.WEIGHTS_SWAMPED, params=params))
    return out


def _check_references(profile: Profile, kb: KnowledgeBase) -> None:
    criteria = ", ".join(kb.criteria)

    def check_fw(loc: Sequence[str | int], fid: str) -> None:
        if fid not in kb.frameworks:
            close = difflib.get_close_matches(fid, list(kb.frameworks), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise profile.fail(loc, f"unknown framework {echo(fid)}{hint} (known: {', '.join(kb.frameworks)})")

    for i, fid in enumerate(profile.team.current):
        check_fw(("team", "current", i), fid)
    for fid in profile.team.experience:
        check_fw(("team", "experience", fid), fid)
    for fid in profile.codebase.by_framework:
        check_fw(("codebase", "by_framework", fid), fid)
    for i, fid in enumerate(profile.frameworks):
        check_fw(("frameworks", i), fid)
    for i, did in enumerate(profile.domain_weights()):
        if did not in kb.domains:
            loc: tuple[str | int, ...] = ("domains", did) if isinstance(profile.domains, dict) else ("domains", i)
            raise profile.fail(loc, f"unknown domain {echo(did)}; known: {', '.join(kb.domains) or 'none'}")
    if isinstance(profile.domains, dict) and profile.domains and not any(profile.domains.values()):
        raise profile.fail(("domains",), "at least one domain weight must be positive")
    for i, sid in enumerate(profile.serving):
        if sid not in kb.serving:
            raise profile.fail(
                ("serving", i), f"unknown serving stack {echo(sid)}; known: {', '.join(kb.serving) or 'none'}"
            )
    if profile.weights is not None:
        for cid in profile.weights:
            if cid not in kb.criteria:
                raise profile.fail(("weights", cid), f"unknown criterion {echo(cid)}; known: {criteria}")
    if profile.weights is not None and profile.pairwise is not None:
        raise profile.fail(("pairwise",), "give either weights or pairwise judgements, not both")
    if profile.constraints is not None:
        for i, tid in enumerate(profile.constraints.must_deploy_to):
            if tid not in kb.targets:
                known = ", ".join(kb.targets) or "none"
                raise profile.fail(
                    ("constraints", "must_deploy_to", i), f"unknown deployment target {echo(tid)}; known: {known}"
                )
        for i, fid in enumerate(profile.constraints.exclude):
            check_fw(("constraints", "exclude", i), fid)


def resolve_profile(profile: Profile, kb: KnowledgeBase, *, scenario: str | None = None) -> ResolvedProfile:
    """Check `profile` against `kb` and merge defaults; `scenario` (e.g. `--scenario`) overrides the file's."""
    criteria = list(kb.criteria)
    warnings: list[ProfileWarning] = []
    scenario_id = scenario or profile.scenario
    if scenario_id is not None and scenario_id not in kb.scenarios:
        known = ", ".join(kb.scenarios) or "none"
        if scenario is not None:
            raise ProfileError(f"unknown scenario {echo(scenario_id)}; known: {known}", field="--scenario")
        raise profile.fail(("scenario",), f"unknown scenario {echo(scenario_id)}; known: {known}")
    if scenario_id is None and profile.weights is None and profile.pairwise is None:
        if DEFAULT_SCENARIO in kb.scenarios:
            scenario_id = DEFAULT_SCENARIO
    preset = kb.scenarios.get(scenario_id) if scenario_id else None
    _check_references(profile, kb)

    ahp: AhpResult | None = None
    origin: dict[str, WeightSource] = {}
    source: WeightSource
    if profile.pairwise is not None:
        if not profile.pairwise:
            raise profile.fail(("pairwise",), "pairwise needs at least one judgement [a, b, x]")
        for i, (a, b, _x) in enumerate(profile.pairwise):
            for j, cid in enumerate((a, b)):
                if cid not in kb.criteria:
                    known = ", ".join(criteria)
                    raise profile.fail(("pairwise", i, j), f"unknown criterion {echo(cid)}; known: {known}")
        try:
            ahp = ahp_weights(profile.pairwise)
        except ValueError as exc:
            raise profile.fail(("pairwise",), str(exc)) from None
        if ahp.consistency_ratio is not None and ahp.consistency_ratio > CR_THRESHOLD:
            ratio: WarningParams = {"consistency_ratio": ahp.consistency_ratio, "threshold": CR_THRESHOLD}
            warnings.append(ProfileWarning(code=ProfileWarningCode.PAIRWISE_INCONSISTENT, params=ratio))
        weights = {c: WEIGHT_SCALE_MAX * ahp.weights.get(c, 0.0) for c in criteria}
        source = "pairwise"
    elif profile.weights is not None:
        base = scaled_preset(preset.weights) if preset else {}
        weights = {c: float(profile.weights.get(c, base.get(c, 0.0))) for c in criteria}
        origin = {c: "profile" if c in profile.weights else "scenario" for c in criteria}
        source = "scenario+profile" if preset else "profile"
    elif preset is not None:
        scaled = scaled_preset(preset.weights)
        weights = {c: float(scaled.get(c, 0.0)) for c in criteria}
        source = "scenario"
    else:
        weights = {c: 1.0 for c in criteria}
        source = "equal"
        warnings.append(ProfileWarning(code=ProfileWarningCode.EQUAL_WEIGHTS, params={"scenario": DEFAULT_SCENARIO}))
    if not any(w > 0 for w in weights.values()):
        loc = ("weights",) if profile.weights is not None else ("scenario",)
        raise profile.fail(loc, "at least one weight must be positive")
    warnings += _weight_warnings(profile, weights, preset is not None)
    if profile.team.current and profile.team.size is None:
        warnings.append(ProfileWarning(code=ProfileWarningCode.NO_TEAM_SIZE))

    constraints = _merge_constraints(preset.constraints if preset else Constraints(), profile.constraints)
    frameworks = tuple(profile.frameworks) if profile.frameworks else tuple(kb.frameworks)
    # A preset that describes a domain brings it, so the per-domain facts are used; the profile's own replace it.
    domains: list[str] | dict[str, float] = (
        (dict(profile.domains) if isinstance(profile.domains, dict) else list(profile.domains))
        if profile.domains
        else [d for d in (preset.domains if preset else []) if d in kb.domains]
    )
    return ResolvedProfile(
        profile=profile,
        scenario=scenario_id,
        weights=weights,
        weight_source=source,
        constraints=constraints,
        policies=tuple(kb.policies),
        frameworks=frameworks,
        ahp=ahp,
        warnings=warnings,
        weight_origin=origin,
        domains=domains,
    )


def weights_table(weights: Mapping[str, float]) -> dict[str, float]:
    """Normalised copy of `weights` (sum 1), for display."""
    total = math.fsum(weights.values())
    return {k: v / total for k, v in weights.items()} if total > 0 else dict(weights)
