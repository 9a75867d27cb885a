"""The sensitivity a person can check: the weight (0-5, others unchanged) that changes the advice, re-scored.

For every scenario profile the one weight the report names is set to the value it names and the profile
scored again: the advice must be the one named. A change that the stay/move rule would overrule is never
named (issue 22 item 10: a 250 kLOC TensorFlow team was told "PyTorch would win" at a migration weight
where the break-even still says stay).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.probe import ProbeReport
from advisor.profile import parse_profile, resolve_profile
from advisor.report import Report, build_report, to_markdown
from advisor.report.models import worded_recommendation
from advisor.report.sensitivity_text import advice_change_line
from advisor.scoring import assess
from advisor.yamlio import load_yaml_file, to_plain

ROOT = Path(__file__).resolve().parent.parent
SAVED = ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json"  # a real `report --no-bench --json`
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.yaml"))
#: 250 kLOC of TensorFlow, migration weighted 4 beside the production preset: TensorFlow ranks first by 0.21,
#: and at a lower migration weight PyTorch ranks first, yet the move (over 400% of the team's capacity) never pays.
BIG_TF_TEAM = {
    "scenario": "production_inference",
    "team": {"current": ["tensorflow"], "size": 6, "experience": {"tensorflow": "expert"}},
    "codebase": {"kloc": 250},
    "weights": {"migration_cost": 4},
}


def _probe() -> ProbeReport:
    return ProbeReport.from_json(json.loads(SAVED.read_text())["probe"])


def _assess(kb: Any, raw: dict[str, Any]) -> Any:
    return assess(kb, resolve_profile(parse_profile(raw), kb), probe=_probe(), draws=500)


def _with_weight(raw: dict[str, Any], weights: dict[str, float], criterion: str, value: float) -> dict[str, Any]:
    out = json.loads(json.dumps(raw))
    if out.get("pairwise") is not None:  # the derived weights, written out, with the one changed
        out.pop("pairwise")
        out["weights"] = dict(weights)
    elif not out.get("scenario") and out.get("weights") is None:
        out["scenario"] = "generic"  # what the resolver reads a profile without scenario or weights as
    out["weights"] = {**(out.get("weights") or {}), criterion: value}
    return out


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_the_named_weight_gives_the_named_advice(kb: Any, path: Path) -> None:
    raw = to_plain(load_yaml_file(path))["profile"]
    a = _assess(kb, raw)
    change = a.sensitivity.advice_change
    if change is None:
        return
    assert change.framework != a.recommendation.framework
    assert abs(change.value - round(change.value, 2)) < 1e-12 and 0 <= change.value <= 5
    again = _assess(kb, _with_weight(raw, a.resolved.weights, change.criterion, change.value))
    assert (again.recommendation.framework, again.recommendation.decision) == (change.framework, change.decision)


def test_a_change_the_stay_rule_overrules_is_not_named(kb: Any) -> None:
    a = _assess(kb, BIG_TF_TEAM)
    assert (a.recommendation.decision, a.recommendation.framework) == ("stay", "tensorflow")
    ranking_flip = a.sensitivity.smallest_change
    assert ranking_flip is not None and ranking_flip.new_winner == "pytorch"
    # At the ranking's threshold PyTorch does rank first, and the break-even still says stay.
    there = _assess(kb, _with_weight(BIG_TF_TEAM, a.resolved.weights, ranking_flip.criterion, ranking_flip.value))
    assert there.ranking[0].framework == "pytorch"
    assert (there.recommendation.decision, there.recommendation.framework) == ("stay", "tensorflow")
    assert a.sensitivity.advice_change is None
    steps = " ".join(worded_recommendation(a.recommendation).next_steps)
    assert "would win" not in steps and "PyTorch wins" not in steps and "Moving to PyTorch is advised" not in steps
    report = build_report(a, kb, probe=_probe(), bench=None, profile_source="test")
    assert advice_change_line(report) == "No single weight on the 0-5 scale changes the advice, the others unchanged."


def test_cli_and_markdown_state_the_same_number(kb: Any, tmp_path: Path, cli_env: dict[str, str]) -> None:
    """The CLI summary, the Markdown and the JSON name the same weight and value (0-5) for a scenario profile."""
    raw = to_plain(load_yaml_file(ROOT / "tests" / "scenarios" / "ocr_greenfield_document_team.yaml"))["profile"]
    profile = tmp_path / "p.yaml"
    profile.write_text(json.dumps(raw))
    base = [sys.executable, "-m", "advisor", "report", "--from-json", str(SAVED), "--profile", str(profile)]
    done = subprocess.run([*base, "--json"], capture_output=True, text=True, env=cli_env, timeout=120)
    assert done.returncode == 0, done.stderr
    change = json.loads(done.stdout)["sensitivity"]["advice_change"]
    assert change is not None
    shown = subprocess.run(base, capture_output=True, text=True, env={**cli_env, "COLUMNS": "400"}, timeout=120)
    markdown = to_markdown(Report.model_validate_json(done.stdout))
    for text in (" ".join(shown.stdout.split()), markdown):
        assert f"to {change['value']:.2f} (now {change['value_now']:.2f}), others unchanged" in text


def test_a_weight_far_past_the_scale_keeps_the_search_bounded() -> None:
    # A member's file may hold a weight of 341321: the search tries 0.01 steps on 0-5 and a bounded number
    # beyond, not 34 million rows (which took minutes and gigabytes in `team decide`).
    from advisor.scoring.decision import _BEYOND_SCALE_POINTS, _weight_grid

    grid = _weight_grid(341321.0)
    assert grid.size <= 501 + _BEYOND_SCALE_POINTS and grid[0] == 0.0 and grid[-1] == 341321.0
    assert list(grid[:501]) == [i / 100 for i in range(501)]  # the scale itself keeps its 0.01 steps
    assert _weight_grid(5.0).size == 501 and _weight_grid(2.0).size == 501
