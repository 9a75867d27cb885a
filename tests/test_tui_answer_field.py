"""The Team step's typed answers: each reads, checks (with the profile loader) and writes its own field."""

from __future__ import annotations

from advisor.profile import Profile
from advisor.tui.data.answers import kloc, with_current
from advisor.tui.widgets.answer_field import HORIZON, JURISDICTIONS, PYTHON, TEAM_SIZE, kloc_answer


def test_a_refused_value_has_the_loaders_line_and_an_empty_field_is_not_checked() -> None:
    assert TEAM_SIZE.problem("0") and TEAM_SIZE.problem("six") and HORIZON.problem("241")
    assert PYTHON.problem("three") and JURISDICTIONS.problem("CHN")
    assert TEAM_SIZE.problem("") is None and PYTHON.problem("") is None and HORIZON.problem("") is None
    assert TEAM_SIZE.problem("6") is None and PYTHON.problem("3.12") is None


def test_each_answer_goes_to_its_own_field_and_an_equal_one_changes_nothing() -> None:
    profile = Profile()
    sized = TEAM_SIZE.answered(profile, "6")
    assert sized.team.size == 6 and TEAM_SIZE.answered(sized, "6") is sized
    longer = HORIZON.answered(profile, "36")
    assert longer.team.horizon_months == 36.0 and HORIZON.answered(longer, "36") is longer
    assert HORIZON.answered(longer, "").team.horizon_months == profile.team.horizon_months  # empty: the default
    assert PYTHON.answered(profile, "3.12").environment.python == "3.12"
    codes = JURISDICTIONS.answered(profile, "cn, us")
    assert codes.constraints is not None and codes.constraints.maintainer_jurisdictions == ["CN", "US"]
    assert JURISDICTIONS.answered(profile, "") is profile


def test_a_frameworks_kloc_is_its_own_and_its_error_line_names_it() -> None:
    profile = with_current(Profile(), ["pytorch", "tensorflow"])
    field = kloc_answer("tensorflow", "TensorFlow")
    assert field.error_line == "kloc:tensorflow" and field.expected.startswith("TensorFlow: ")
    assert field.problem("-1") and field.problem("50") is None
    given = field.answered(profile, "50")
    assert kloc(given, "tensorflow") == 50.0 and kloc(given, "pytorch") is None
    assert field.answered(given, "50") is given
