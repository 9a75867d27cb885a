"""What the team decision warns about, as codes with the words rendered once beside them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TeamWarningCode(StrEnum):
    """The kinds of team warning; programs decide on these, people read the message."""

    MEMBER_LEFT_OUT = "member_left_out"  # a member file could not be used
    MEMBER_PROFILE = "member_profile"  # a warning about one member's own profile
    MEMBERS_DIFFER = "members_differ"  # members state a situation field differently (`field` names it)
    NO_GROUP_MATRIX = "no_group_matrix"  # pairwise members' judgements do not link up into one matrix
    GROUP_INCONSISTENT = "group_inconsistent"  # the pooled judgements' consistency ratio is above 0.10
    TEAM_OF_ONE = "team_of_one"  # one member: the team's answer is theirs


@dataclass(frozen=True)
class TeamWarning:
    """One team warning: its code, the sentence for people, and the field or member it is about."""

    code: TeamWarningCode
    message: str
    field: str | None = None  # members_differ: the profile field, e.g. "team.size"
    member: str | None = None  # member_profile / member_left_out: the member's label or file
