"""What the team decision warns about, as codes and parameters (the words are written at the edge)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from advisor.scoring.engine import Param
from advisor.scoring.result import FrozenResult


class TeamWarningCode(StrEnum):
    """The kinds of team warning; programs decide on these, `advisor.report.words` writes the words."""

    MEMBER_LEFT_OUT = "member_left_out"  # a member file could not be used; params: reason (the loader's words)
    MEMBER_PROFILE = "member_profile"  # a warning about one member's own profile; params: kind and its params
    MEMBERS_DIFFER = "members_differ"  # members state `field` differently; params: values, used (what is used)
    NO_GROUP_MATRIX = "no_group_matrix"  # pairwise members' judgements do not link up into one matrix
    GROUP_INCONSISTENT = "group_inconsistent"  # the pooled consistency ratio is above 0.10; params: consistency_ratio
    TEAM_OF_ONE = "team_of_one"  # one member: the team's answer is theirs


class TeamWarning(FrozenResult):
    """Something to know about the team decision: a code to decide on, and its parameters."""

    code: TeamWarningCode
    params: dict[str, Param] = {}
    field: str | None = Field(default=None, description="members_differ: the profile field, e.g. team.size")
    member: str | None = Field(default=None, description="the member (label, or file when left out) it is about")
