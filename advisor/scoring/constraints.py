"""Hard constraints, applied before any scoring: a framework that cannot meet one is excluded, with the reason."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Constraints, Support
from advisor.profile import FleetEntry, Profile, ResolvedProfile
from advisor.scoring.fleet import FloorFinding, nvidia_finding, platform_reasons
from advisor.scoring.result import FrozenResult


class Exclusion(FrozenResult):
    """A framework left out, and why."""

    framework: str
    kind: Literal["constraint", "not_considered"]  # cannot meet a hard constraint, or left out by the profile
    reasons: list[str]


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


def check_constraints(kb: KnowledgeBase, framework: str, cons: Constraints, who: str) -> list[str]:
    """Why `framework` fails `cons` (empty when it meets them); `who` names where the constraint came from."""
    fw = kb.frameworks[framework]
    reasons: list[str] = []
    if framework in cons.exclude:
        reasons.append(f"excluded by {who}")
    for hw in cons.must_run_on:
        status = kb.hardware_support(framework, hw)
        if not status.usable:
            reasons.append(f"must run on {hw.value} ({who}): {fw.name}'s support is '{status.value}'")
    for target in cons.must_deploy_to:
        route = kb.route(framework, target)
        if route is None:
            reasons.append(f"must deploy to {target} ({who}): the knowledge base knows no route")
        elif not route.status.usable:
            reasons.append(f"must deploy to {target} ({who}): route '{route.route}' is '{route.status.value}'")
    if cons.licenses:
        if not licence_allowed(fw.license, cons.licenses):
            own = re.split(r"[;(]", fw.license, maxsplit=1)[0].strip()
            reasons.append(f"licence {own} is not among the allowed ({who}): {', '.join(cons.licenses)}")
    steward = kb.stewardship.get(framework)
    if cons.maintainer_jurisdictions:
        # Sovereignty: an unknown jurisdiction cannot be shown to meet the requirement, so it fails it.
        where = steward.jurisdiction if steward else None
        if where not in cons.maintainer_jurisdictions:
            allowed = ", ".join(cons.maintainer_jurisdictions)
            by = f"{steward.maintainer}, {where}" if steward and where else "unknown"
            reasons.append(f"maintainer jurisdiction ({by}) is not among the allowed ({who}): {allowed}")
    if cons.multi_backend and not (steward and steward.multi_backend):
        why = steward.portability if steward else "no portability fact in the knowledge base"
        reasons.append(f"one code base must run under several frameworks' backends ({who}): {why}")
    return reasons


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
    who: str = "profile",
) -> ConstraintResult:
    """Split the knowledge base's frameworks into candidates and exclusions (profile + overlay policies).

    `fleet` is the team's hardware (profile plus probe, see `advisor.scoring.fleet.team_fleet`); `who` names
    the profile in the reasons (a team decision names the member).
    """
    fleet = list(resolved.profile.fleet) if fleet is None else fleet
    considered = set(resolved.frameworks)
    out = ConstraintResult()
    for fid in frameworks if frameworks is not None else kb.frameworks:
        if fid not in considered:
            out.exclusions.append(
                Exclusion(
                    framework=fid,
                    kind="not_considered",
                    reasons=["not in the profile's list of frameworks to consider"],
                )
            )
            continue
        reasons = check_constraints(kb, fid, resolved.constraints, who)
        reasons += [f"{r} ({who} environment)" for r in platform_reasons(kb, fid, resolved.profile)]
        if (route := nvidia_route_none(kb, fid, resolved.profile, fleet)) is not None:
            reasons.append(f"cannot use the team's NVIDIA GPUs ({who}): {route.message}")
        for pid in resolved.policies:
            reasons += check_constraints(kb, fid, kb.policies[pid].constraints, f"policy {pid!r}")
        if reasons:
            out.exclusions.append(Exclusion(framework=fid, kind="constraint", reasons=reasons))
        else:
            out.candidates.append(fid)
    return out
