"""The team's situation merged from its members' full profiles: each rule, and a warning code where they differ."""

from __future__ import annotations

from typing import Any

import pytest
from _scoring_support import probe_fixture

from advisor.profile import CodebaseSize, Experience, load_profile_text, resolve_profile
from advisor.report.words import exclusion_reasons, team_warning_words
from advisor.team.decide import TeamDecision, decide
from advisor.team.members import Member
from advisor.team.warnings import TeamWarningCode

ANA = """\
member: ana
scenario: research_prototyping
team: {current: [tensorflow], size: 4, horizon_months: 36, experience: {tensorflow: expert}}
codebase: {by_framework: {tensorflow: 5}}
environment: {os: [windows], python: "3.12"}
serving: [tf_serving]
fleet: [{hardware: nvidia_cuda, model: V100, compute_capability: "7.0", count: 2}]
constraints: {must_run_on: [nvidia_cuda]}
"""
BEN = """\
member: ben
weights: {developer_experience: 3, deployment: 1}
team: {current: [pytorch], size: 6, horizon_months: 12, experience: {tensorflow: beginner, pytorch: expert}}
codebase: {by_framework: {tensorflow: 40, pytorch: 10}}
environment: {os: [linux], python: "3.11"}
"""


def member(kb: Any, text: str) -> Member:
    profile = load_profile_text(text, "m.yaml")
    return Member(str(profile.member), "m.yaml", resolve_profile(profile, kb))


def decided(kb: Any, *texts: str) -> TeamDecision:
    return decide(kb, [member(kb, t) for t in texts], probe=probe_fixture(), draws=200)


def test_every_situation_field_is_merged_by_its_rule(kb: Any) -> None:
    team = decided(kb, ANA, BEN).team.resolved.profile
    assert team.team.current == ["tensorflow", "pytorch"]  # union, in member order
    assert team.team.experience == {"tensorflow": Experience.EXPERT, "pytorch": Experience.EXPERT}  # the most
    assert team.team.size == 6  # the largest stated
    assert team.team.horizon_months == 12  # the shortest stated
    assert team.codebase.by_framework == {"tensorflow": 40, "pytorch": 10}  # per framework, the largest
    assert team.codebase.effective_size() is CodebaseSize.MEDIUM
    assert [o.value for o in team.environment.os] == ["windows", "linux"]  # the code must run on both
    assert team.environment.python == "3.11"  # the oldest
    assert team.serving == ["tf_serving"]
    assert [(f.model, f.count) for f in team.fleet] == [("V100", 2)]
    assert team.scenario is None and team.pairwise is None


def test_the_team_move_is_costed_for_the_merged_team(kb: Any) -> None:
    d = decided(kb, ANA, BEN)
    for cost in d.team.migration.values():
        assert (cost.team_size, cost.team_size_assumed, cost.horizon_months) == (6, False, 12)


def test_where_members_differ_a_warning_with_a_code_names_the_field(kb: Any) -> None:
    d = decided(kb, ANA, BEN)
    fields = {w.field for w in d.warnings if w.code is TeamWarningCode.MEMBERS_DIFFER}
    assert fields == {
        "scenario",
        "team.current",
        "team.size",
        "team.horizon_months",
        "codebase",
        "environment.python",
    }
    size = next(w for w in d.warnings if w.field == "team.size")
    assert size.params == {"values": "4, 6", "used": 6}
    assert team_warning_words(size) == "members state team.size differently (4, 6); the largest (6) is used"


def test_members_who_agree_raise_no_difference_warning(kb: Any) -> None:
    twin = BEN.replace("member: ben", "member: bo")
    d = decided(kb, BEN, twin)
    assert not [w for w in d.warnings if w.code is TeamWarningCode.MEMBERS_DIFFER]
    assert d.team.resolved.profile.team.size == 6


def test_a_members_operating_system_excludes_as_in_their_own_report(kb: Any) -> None:
    """Each member's environment and fleet apply to the team's candidates, with the member named."""
    ana = member(kb, ANA)
    own = {x.framework for x in decided(kb, ANA).members[0].assessment.exclusions if x.kind == "constraint"}
    d = decide(kb, [ana, member(kb, BEN)], probe=probe_fixture(), draws=200)
    reasons = {x.framework: exclusion_reasons(x) for x in d.team.exclusions if x.kind == "constraint"}
    assert own and own <= set(reasons)
    for fid in own:
        assert any("ana's profile" in r for r in reasons[fid]), reasons[fid]


@pytest.mark.parametrize("text", [ANA, BEN], ids=["ana", "ben"])
def test_the_merge_of_one_profile_is_that_profile(kb: Any, text: str) -> None:
    m = member(kb, text)
    assert decide(kb, [m], probe=probe_fixture(), draws=200).team.resolved.profile is m.resolved.profile
