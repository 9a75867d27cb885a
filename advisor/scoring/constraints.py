"""Hard constraints, applied before any scoring: a framework that cannot meet one is excluded, with the reason."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from pydantic import Field

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Constraints, Support
from advisor.profile import FleetEntry, Profile, ResolvedProfile
from advisor.scoring.fleet import FloorFinding, nvidia_finding
from advisor.scoring.result import FrozenResult


class ExclusionCode(StrEnum):
    """Why a framework is left out, so programs decide on the code; the words are written at the edge."""

    NOT_CONSIDERED = "not_considered"  # not in the profile's (or a member's) list of frameworks to consider
    EXCLUDED = "excluded"  # named in `exclude`
    HARDWARE = "hardware"  # params: hardware, framework (its name), support (must_run_on: its support there)
    NO_ROUTE = "no_route"  # params: target (must_deploy_to, no route known)
    ROUTE = "route"  # params: target, route, support (must_deploy_to, the route's support)
    LICENCE = "licence"  # params: licence, allowed
    JURISDICTION = "jurisdiction"  # params: maintainer (may be ""), jurisdiction (may be ""), allowed
    MULTI_BACKEND = "multi_backend"  # params: detail (the knowledge base's portability fact, or "")
    OS = "os"  # params: os (the framework does not run natively on one of the team's operating systems)
    NVIDIA = "nvidia"  # params: detail (the fleet's finding on the team's NVIDIA GPUs)
    SAVED = "saved"  # params: words (a report written before exclusions carried codes: its words as saved)


#: Whose constraint it is: the profile's, a team member's (name: their label) or a policy's (name: its id).
By = Literal["profile", "member", "policy"]


class ExclusionCause(FrozenResult):
    """One reason a framework is left out: its code, whose constraint, and the parameters its words take."""

    code: ExclusionCode
    by: By = "profile"
    name: str = Field(default="", description="the member's label or the policy's id (by member or policy)")
    params: dict[str, str] = Field(default_factory=dict)


class Exclusion(FrozenResult):
    """A framework left out, and why (each cause a code and parameters; the words are written at the edge)."""

    framework: str
    kind: Literal["constraint", "not_considered"]  # cannot meet a hard constraint, or left out by the profile
    causes: list[ExclusionCause] = Field(default_factory=list, description="why, as codes (since report 1.4)")


@dataclass
class ConstraintResult:
    """The frameworks still in the running, and those excluded."""

    candidates: list[str] = field(default_factory=list)
    exclusions: list[Exclusion] = field(default_factory=list)


def licence_allowed(licence: str, allowed: Iterable[str]) -> bool:
    """Whether the framework's own licence (the SPDX expression before any prose) is allowed.

    Text after "(" or ";" is commentary (e.g. the licences of bundled third-party code) and is
    ignored; "A OR B" needs one allowed id, "A AND B" needs all of them.
    """
    ok = {a.strip().lower() for a in allowed}
    expr = re.split(r"[;(]", licence, maxsplit=1)[0].strip()
    if re.search(r"\sOR\s", expr, flags=re.IGNORECASE):
        return any(p.strip().lower() in ok for p in re.split(r"\sOR\s", expr, flags=re.IGNORECASE))
    return all(p.strip().lower() in ok for p in re.split(r"\sAND\s", expr, flags=re.IGNORECASE))


def check_constraints(
    kb: KnowledgeBase, framework: str, cons: Constraints, by: By = "profile", name: str = ""
) -> list[ExclusionCause]:
    """Why `framework` fails `cons` (empty when it meets them); `by` and `name` say whose constraints they are."""
    fw = kb.frameworks[framework]

    def cause(code: ExclusionCode, **params: str) -> ExclusionCause:
        return ExclusionCause(code=code, by=by, name=name, params=params)

    reasons: list[ExclusionCause] = []
    if framework in cons.exclude:
        reasons.append(cause(ExclusionCode.EXCLUDED))
    for hw in cons.must_run_on:
        status = kb.hardware_support(framework, hw)
        if not status.usable:
            reasons.append(cause(ExclusionCode.HARDWARE, hardware=hw.value, framework=fw.name, support=status.value))
    for target in cons.must_deploy_to:
        route = kb.route(framework, target)
        if route is None:
            reasons.append(cause(ExclusionCode.NO_ROUTE, target=str(target)))
        elif not route.status.usable:
            reasons.append(cause(ExclusionCode.ROUTE, target=str(target), route=route.route,
                                 support=route.status.value))
    if cons.licenses:
        if not licence_allowed(fw.license, cons.licenses):
            own = re.split(r"[;(]", fw.license, maxsplit=1)[0].strip()
            reasons.append(cause(ExclusionCode.LICENCE, licence=own, allowed=", ".join(cons.licenses)))
    steward = kb.stewardship.get(framework)
    if cons.maintainer_jurisdictions:
        # Sovereignty: an unknown jurisdiction cannot be shown to meet the requirement, so it fails it.
        where = steward.jurisdiction if steward else None
        if where not in cons.maintainer_jurisdictions:
            reasons.append(cause(
                ExclusionCode.JURISDICTION, maintainer=steward.maintainer if steward and where else "",
                jurisdiction=where or "", allowed=", ".join(cons.maintainer_jurisdictions),
            ))
    if cons.multi_backend and not (steward and steward.multi_backend):
        reasons.append(cause(ExclusionCode.MULTI_BACKEND, detail=steward.portability if steward else ""))
    return reasons


def os_causes(kb: KnowledgeBase, framework: str, profile: Profile, by: By, name: str) -> list[ExclusionCause]:
    """The team's operating systems `framework` does not run on natively (empty: it does, or unknown)."""
    steward = kb.stewardship.get(framework)
    return [
        ExclusionCause(code=ExclusionCode.OS, by=by, name=name, params={"os": os_id.value})
        for os_id in profile.environment.os
        if steward is not None and steward.os.get(os_id) is Support.NONE
    ]


def nvidia_route_none(
    kb: KnowledgeBase, framework: str, profile: Profile, fleet: list[FleetEntry]
) -> FloorFinding | None:
    """The one rule for the team's NVIDIA GPUs: the finding that excludes `framework` (None: it stays).

    Wherever the team has NVIDIA GPUs (`must_run_on`, its `fleet`, or the probe's GPUs in `fleet`), a
    framework whose route to them is `none` (no native GPU support on one of the team's operating systems,
    or no release for its oldest GPU) is excluded: report, team decide, and the TUI all come here, so a
    Windows team is never told TensorFlow is excluded on one path and ranked on another. Decided on the
    finding's support code, never on its words.
    """
    finding = nvidia_finding(kb, framework, profile, fleet)
    return finding if finding is not None and finding.support is Support.NONE else None


def apply_constraints(
    kb: KnowledgeBase,
    resolved: ResolvedProfile,
    frameworks: Iterable[str] | None = None,
    fleet: list[FleetEntry] | None = None,
    member: str | None = None,
) -> ConstraintResult:
    """Split the knowledge base's frameworks into candidates and exclusions (profile + overlay policies).

    `fleet` is the team's hardware (profile plus probe, see `advisor.scoring.fleet.team_fleet`); `member` is the
    team member whose profile this is (a team decision names them in the causes).
    """
    fleet = list(resolved.profile.fleet) if fleet is None else fleet
    by: By = "profile" if member is None else "member"
    name = member or ""
    considered = set(resolved.frameworks)
    out = ConstraintResult()
    for fid in frameworks if frameworks is not None else kb.frameworks:
        if fid not in considered:
            out.exclusions.append(Exclusion(
                framework=fid, kind="not_considered",
                causes=[ExclusionCause(code=ExclusionCode.NOT_CONSIDERED, by=by, name=name)],
            ))
            continue
        reasons = check_constraints(kb, fid, resolved.constraints, by, name)
        reasons += os_causes(kb, fid, resolved.profile, by, name)
        if (route := nvidia_route_none(kb, fid, resolved.profile, fleet)) is not None:
            nvidia = route.params
            reasons.append(ExclusionCause(code=ExclusionCode.NVIDIA, by=by, name=name, params=nvidia))
        for pid in resolved.policies:
            reasons += check_constraints(kb, fid, kb.policies[pid].constraints, "policy", pid)
        if reasons:
            out.exclusions.append(Exclusion(framework=fid, kind="constraint", causes=reasons))
        else:
            out.candidates.append(fid)
    return out
