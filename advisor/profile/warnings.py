"""What is worth knowing about a resolved profile: a code and its parameters (the words are the edge's)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

#: A profile warning's parameters: words and figures, never a sentence.
WarningParams = dict[str, str | int | float]


class ProfileWarningCode(StrEnum):
    """The kinds of profile warning; `advisor.report.words.profile_warning_words` writes their words."""

    PAIRWISE_INCONSISTENT = "pairwise_inconsistent"  # params: consistency_ratio, threshold
    EQUAL_WEIGHTS = "equal_weights"  # params: scenario (the default scenario the knowledge base lacks)
    WEIGHT_ABOVE_SCALE = "weight_above_scale"  # params: criterion, weight, scale (beside a scenario's weights)
    WEIGHTS_SWAMPED = "weights_swamped"  # params: criteria (the user's, comma-separated), share, others (a count)
    NO_TEAM_SIZE = "no_team_size"  # no params: the migration's cost assumes a team of one engineer


class ProfileWarning(BaseModel):
    """One warning about a profile as resolved against the knowledge base."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: ProfileWarningCode
    params: WarningParams = {}
