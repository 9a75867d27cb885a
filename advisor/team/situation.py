"""The team's one `Profile` from its members' full profiles: each situation field merged by a stated rule.

The rules (docs/scoring.md, section 9, "The team's situation"): a list is the union in member order, a
level or a size the largest stated, the horizon the shortest, the Python the oldest; the weights are the
aggregated ones (`aggregate.team_weights`) on the 0-5 scale. The merge of one profile is that profile, as
written (its own weights are the aggregate of one), so a team of one is scored exactly as `report` scores
its member. Where members state a field differently, a `TeamWarning` with code `members_differ` names it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from advisor.knowledge.schema import Constraints
from advisor.profile import (
    WEIGHT_SCALE_MAX,
    Codebase,
    CodebaseSize,
    Environment,
    Experience,
    FleetEntry,
    Profile,
    ResolvedProfile,
    Team,
)
from advisor.scoring.engine import Param
from advisor.team.warnings import TeamWarning, TeamWarningCode

T = TypeVar("T")
_LEVEL = list(Experience)
_SIZE = list(CodebaseSize)


def _union(lists: Sequence[Sequence[T]]) -> list[T]:
    out: list[T] = []
    for items in lists:
        out += [x for x in items if x not in out]
    return out


def _stated(profiles: Sequence[Profile], part: Callable[[Profile], Any], name: str) -> list[Any]:
    """The values of a field that members wrote (a default left unset is no statement)."""
    return [getattr(part(p), name) for p in profiles if name in part(p).model_fields_set]


def _differ(values: Sequence[Any], field: str, used: Param | None, notes: list[TeamWarning]) -> None:
    """A MEMBERS_DIFFER warning where members state `field` differently; `used` is what the team's profile takes."""
    distinct = [v for i, v in enumerate(values) if v not in values[:i]]
    if len(distinct) > 1:
        shown = ", ".join(str(getattr(v, "value", v)) for v in distinct)
        params: dict[str, Param] = {"values": shown}
        if used is not None:
            params["used"] = used
        notes.append(TeamWarning(code=TeamWarningCode.MEMBERS_DIFFER, params=params, field=field))


def _team(profiles: Sequence[Profile], notes: list[TeamWarning]) -> Team:
    teams = [p.team for p in profiles]
    current = _union([t.current for t in teams])
    _differ(
        [sorted(t.current) for t in teams if t.current],
        "team.current",
        str(current),
        notes,
    )
    experience: dict[str, Experience] = {}
    for t in teams:
        for fid, level in t.experience.items():
            if fid not in experience or _LEVEL.index(level) > _LEVEL.index(experience[fid]):
                experience[fid] = level  # the team knows a framework as well as its most experienced member
    sizes = [t.size for t in teams if t.size is not None]
    _differ(sizes, "team.size", max(sizes, default=0), notes)
    horizons = _stated(profiles, lambda p: p.team, "horizon_months")
    _differ(horizons, "team.horizon_months", min(horizons, default=0), notes)
    data: dict[str, Any] = {"current": current, "experience": experience}
    if sizes:
        data["size"] = max(sizes)
    if horizons:
        data["horizon_months"] = min(horizons)
    return Team.model_validate(data)


def _codebase(profiles: Sequence[Profile], notes: list[TeamWarning]) -> Codebase:
    bases = [p.codebase for p in profiles if p.codebase.model_fields_set]
    data: dict[str, Any] = {}
    by: dict[str, float] = {}
    for c in bases:
        for fid, k in c.by_framework.items():
            by[fid] = max(by.get(fid, 0.0), k)  # the same code, measured by several: the largest count
    if by:
        data["by_framework"] = by
    klocs = [c.kloc for c in bases if c.kloc is not None]
    if klocs:
        data["kloc"] = max(klocs)
    sizes = [c.size for c in bases if c.size is not None]
    if sizes:
        data["size"] = max(sizes, key=_SIZE.index)
    shares = [c.keras_share for c in bases if c.keras_share is not None]
    if shares:
        data["keras_share"] = min(shares)  # the cheap route covers only what every member counts as pure Keras
    merged = Codebase.model_validate(data)
    said = [_said(c) for c in bases]
    _differ(said, "codebase", _said(merged), notes)
    return merged


def _said(c: Codebase) -> str:
    return f"{c.total_kloc():g} kLOC" if c.total_kloc() is not None else c.effective_size().value


def _domains(resolved: Sequence[ResolvedProfile]) -> list[str] | dict[str, float]:
    # Each member's domains as resolved: their own, or their scenario preset's.
    if all(isinstance(r.domains, list) for r in resolved):
        return _union([list(r.domain_weights) for r in resolved])
    # Weighted domains: each member's domain weights as shares, averaged, so that every member has the same say.
    shares: dict[str, float] = {}
    stating = [r.domain_weights for r in resolved if r.domains]
    for own in stating:
        total = math.fsum(own.values())
        for d, w in own.items():
            shares[d] = shares.get(d, 0.0) + w / total / len(stating)
    return shares


def _environment(profiles: Sequence[Profile], notes: list[TeamWarning]) -> Environment:
    pythons = [p.environment.python for p in profiles if p.environment.python]
    oldest = min(pythons, key=lambda v: tuple(int(x) for x in v.split(".")), default=None)
    _differ(pythons, "environment.python", oldest, notes)
    data: dict[str, Any] = {"os": _union([p.environment.os for p in profiles])}
    if oldest is not None:
        data["python"] = oldest
    return Environment.model_validate(data)


def _constraints(resolved: Sequence[ResolvedProfile]) -> Constraints:
    """Requirements every member states, together; allow-lists stay per member (`decide.team_candidates`)."""
    cons = [r.constraints for r in resolved]
    return Constraints(
        must_run_on=_union([c.must_run_on for c in cons]),
        must_deploy_to=_union([c.must_deploy_to for c in cons]),
        exclude=_union([c.exclude for c in cons]),
        multi_backend=any(c.multi_backend for c in cons),
    )


def team_profile(resolved: Sequence[ResolvedProfile], weights: dict[str, float], notes: list[TeamWarning]) -> Profile:
    """The team's profile from its members' (at least one); `weights` are the aggregated shares (sum 1).

    One member: their profile as written. Several: every situation field merged (module docstring), the
    weights the aggregate on the 0-5 scale, no scenario (each member's preset is already in their weights
    and constraints), and the frameworks any member restricts to, intersected.
    """
    if len(resolved) == 1:
        return resolved[0].profile
    profiles = [r.profile for r in resolved]
    scenarios = [r.scenario for r in resolved]
    _differ(scenarios, "scenario", None, notes)
    considered = [set(p.frameworks) for p in profiles if p.frameworks]
    frameworks = [f for f in _union([p.frameworks for p in profiles]) if all(f in s for s in considered)]
    top = max(weights.values())
    fleet: list[FleetEntry] = _union([p.fleet for p in profiles])
    return Profile(
        team=_team(profiles, notes),
        codebase=_codebase(profiles, notes),
        domains=_domains(resolved),
        serving=_union([p.serving for p in profiles]),
        environment=_environment(profiles, notes),
        fleet=fleet,
        frameworks=frameworks,
        weights={c: WEIGHT_SCALE_MAX * w / top for c, w in weights.items()},
        constraints=_constraints(resolved),
    )
