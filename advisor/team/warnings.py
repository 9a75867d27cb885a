"""What the team decision warns about, as codes with the words rendered once beside them."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from advisor.scoring.result import FrozenResult


class TeamWarningCode(StrEnum):
    """The kinds of team warning; programs decide on these, people read the message."""

    MEMBER_LEFT_OUT = "member_left_out"  # a member file could not be used
    MEMBER_PROFILE = "member_profile"  # a warning about one member's own profile
    MEMBERS_DIFFER = "members_differ"  # members state a situation field differently (`field` names it)
    NO_GROUP_MATRIX = "no_group_matrix"  # pairwise members' judgements do not link up into one matrix
    GROUP_INCONSISTENT = "group_inconsistent"  # the pooled judgements' consistency ratio is above 0.10
    TEAM_OF_ONE = "team_of_one"  # one member: the team's answer is theirs


class TeamWarning(FrozenResult):
    """Something to know about the team decision: a code to decide on, and the sentence to read."""

    code: TeamWarningCode
    message: str  # never names `member` first: the edge puts it there (`advisor.report.words`)
    field: str | None = Field(default=None, description="members_differ: the profile field, e.g. team.size")
    member: str | None = Field(default=None, description="the member (label, or file when left out) it is about")
