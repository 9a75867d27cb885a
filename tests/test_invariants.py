"""Invariants over every scenario profile: a team of one decides as `report`; profiles and reports round-trip.

Each `tests/scenarios/*.yaml` profile, with its recorded evidence, against the shipped knowledge base and
the small test pack. The team and `report` must agree on the winner, the stay/move decision and the
break-even (the whole comparison, cost included), and exclude the same frameworks; once more through the
real CLI (`report --no-bench --json` against `team decide --no-bench --json`, the probe of this machine).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import SCENARIOS, load_scenario, load_small_kb, run_cli

from advisor.errors import ProfileError
from advisor.profile import load_profile_text, profile_to_json, profile_to_yaml, resolve_profile
from advisor.report import Report, build_report, to_json_text
from advisor.scoring import assess
from advisor.team.decide import decide
from advisor.team.members import Member

TODAY = dt.date(2026, 12, 1)
IDS = [p.stem for p in SCENARIOS]


@pytest.fixture(scope="module", params=["shipped", "kb_small"])
def any_kb(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """The shipped knowledge base and the small test pack, with their names."""
    return ("kb_small", load_small_kb()) if request.param == "kb_small" else ("shipped", request.getfixturevalue("kb"))


def _verdict(rec: Any) -> tuple[Any, ...]:
    """What the advice decides: the framework, stay/move/choose, how sure, and the break-even in full."""
    return rec.framework, rec.decision, rec.verdict, rec.tied_with, rec.break_even


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_a_team_of_one_decides_as_report(path: Path, any_kb: tuple[str, Any]) -> None:
    kb_name, kb = any_kb
    _, profile, probe, bench = load_scenario(path)
    try:
        resolved = resolve_profile(profile, kb)
    except ProfileError as exc:  # the small test pack lacks some of the shipped base's domains and serving stacks
        if kb_name == "shipped":
            raise
        pytest.skip(f"the test pack cannot read this profile: {exc}")
    alone = assess(kb, resolved, probe=probe, bench=bench, today=TODAY)
    team = decide(kb, [Member(path.stem, str(path), resolved)], probe=probe, bench=bench, today=TODAY).team
    assert _verdict(team.recommendation) == _verdict(alone.recommendation)
    assert team.break_even == alone.break_even
    assert [(b.framework, b.total) for b in team.ranking] == [(b.framework, b.total) for b in alone.ranking]
    assert {x.framework for x in team.exclusions} == {x.framework for x in alone.exclusions}
    assert team.migration == alone.migration
    assert (team.recommendation.audience, alone.recommendation.audience) == ("team", "profile")


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_profile_yaml_round_trip(path: Path, kb: Any) -> None:
    _, profile, _, _ = load_scenario(path)
    again = load_profile_text(profile_to_yaml(profile), "again.yaml")
    assert again.model_dump() == profile.model_dump()
    assert profile_to_json(again) == profile_to_json(profile)  # the same fields stated, not only the same values
    # Resolved alike too (the profile object itself differs only in the file it was read from).
    assert dataclasses.replace(resolve_profile(again, kb), profile=profile) == resolve_profile(profile, kb)


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_report_json_round_trip(path: Path, kb: Any) -> None:
    _, profile, probe, bench = load_scenario(path)
    result = assess(kb, resolve_profile(profile, kb), probe=probe, bench=bench, today=TODAY)
    report = build_report(result, kb, probe=probe, bench=bench, profile_source=path.name)
    text = to_json_text(report)
    again = Report.model_validate(json.loads(text))
    assert again == report
    assert to_json_text(again) == text


# A four-person Windows team with 5 kLOC of tf.keras code (issue 21): `report` advised PyTorch while the team of
# that one member was told to stay, its move costed for "1 engineer (assumed)".
WINDOWS_TEAM = """\
team:
  current: [tensorflow]
  size: 4
  experience: {tensorflow: intermediate}
codebase:
  by_framework: {tensorflow: 5}
environment:
  os: [windows]
  python: "3.11"
"""
CLI_PROFILES = {
    "windows_tf_team": WINDOWS_TEAM,
    **{
        name: profile_to_yaml(load_scenario(p)[1])
        for p in SCENARIOS
        if (name := p.stem) in {"legacy_tensorflow_serving", "small_tf_codebase_moves_to_pytorch"}
    },
}


@pytest.mark.parametrize("name", sorted(CLI_PROFILES))
def test_the_cli_team_of_one_decides_as_the_cli_report(name: str, tmp_path: Path) -> None:
    """The real commands on this machine's probe (cached for the session): same advice, word for word."""
    profile = tmp_path / f"{name}.yaml"
    profile.write_text(CLI_PROFILES[name])
    report = run_cli(["report", "--profile", str(profile), "--no-bench", "--json"], base=None)
    assert report.returncode == 0, report.stderr
    team = run_cli(["team", "decide", str(profile), "--no-bench", "--json"], base=None)
    assert team.returncode == 0, team.stderr
    alone, ours = json.loads(report.stdout), json.loads(team.stdout)["team"]
    keys = ("framework", "decision", "verdict", "tied_with", "break_even", "steps", "next_steps")
    assert {k: ours["recommendation"][k] for k in keys} == {k: alone["recommendation"][k] for k in keys}
    assert [(e["framework"], e["total"]) for e in ours["ranking"]] == [
        (e["framework"], e["total"]) for e in alone["ranking"]
    ]
    assert ours["recommendation"]["audience"] == "team" and alone["recommendation"]["audience"] == "profile"
    if name == "windows_tf_team":
        cost = ours["recommendation"]["break_even"]["cost"]
        assert cost["team_size"] == 4 and not cost["team_size_assumed"]
