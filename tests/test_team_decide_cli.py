"""`fwadvisor team decide` through the real CLI: three members (weights, pairwise, constraints), JSON and Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from _scoring_support import ROOT, run_cli

from advisor.report.words import left_out_words
from advisor.sanitize import markdown_text
from advisor.team.decision_schema import SCHEMA_PATH, LeftOutSection, schema_text

EXAMPLES = ROOT / "docs" / "examples" / "team"
MEMBERS = [str(EXAMPLES / n) for n in ("researcher.yaml", "platform.yaml", "lead.yaml")]
SAVED = str(ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json")  # a real `report --no-bench --json`


def test_committed_schema_matches_the_models() -> None:
    expected = schema_text()
    assert SCHEMA_PATH.read_text(encoding="utf-8") == expected, "regenerate: python -m advisor.team.decision_schema"
    assert (ROOT / "docs" / "team-decision.schema.json").read_text(encoding="utf-8") == expected


def _validate(doc: dict[str, object]) -> None:
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text())).validate(doc)


@pytest.fixture(scope="module")
def bad_member(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("members") / "dana.yaml"
    path.write_text("member: Dana\nweights:\n  deployment: lots\n")
    return path


def test_three_members_probe_here_json(bad_member: Path) -> None:
    """--no-bench: the real probe of this machine (no benchmarks), then the team decision as JSON."""
    result = run_cli(["team", "decide", *MEMBERS, str(bad_member), "--no-bench", "--json"], base=None)
    assert result.returncode == 0, result.stderr
    left_lines = [line for line in result.stderr.splitlines() if "left out" in line]
    assert len(left_lines) == 1  # one line, naming the file, its line and field
    assert left_lines[0].startswith(f"fwadvisor: warning: left out {bad_member}: line 3: weights.deployment: ")
    doc = json.loads(result.stdout)
    _validate(doc)
    assert doc["schema_version"] == "2.5" and doc["kind"] == "team_decision"
    assert doc["evidence"]["source"] == "probe here, no benchmarks" and doc["evidence"]["probe"] is True
    labels = [m["label"] for m in doc["members"]]
    assert labels == ["Rita (research)", "Pat (platform)", "lead"]  # the profile's name, else the file stem
    assert [m["input"] for m in doc["members"]] == ["weights", "pairwise", "weights"]
    (left,) = doc["left_out"]
    assert left["file"] == str(bad_member) and left["code"] == "invalid" and left["reason"]
    assert left["reason"] == left_out_words(LeftOutSection.model_validate(left))
    assert doc["aggregation"]["pairwise_members"] == ["Pat (platform)"]
    assert doc["aggregation"]["aij"]["consistency_ratio"] < 0.1
    team = doc["team"]
    winner = team["recommendation"]["framework"]
    assert team["ranking"][0]["framework"] == winner and team["sensitivity"]["winner"] == winner
    # The lead's constraints apply to everyone: no NVIDIA CUDA route -> excluded, and the reason says whose.
    excluded = {x["framework"]: x["reasons"] for x in team["exclusions"]}
    assert "mindspore" in excluded and any("lead's profile" in r for r in excluded["mindspore"])
    # Every member's own answer, and the consensus figures over the team's candidates.
    for m in doc["members"]:
        assert m["winner"] == m["ranking"][0]["framework"]
        assert set(m["team_ranks"]) == set(doc["consensus"]["candidates"])
    cons = doc["consensus"]
    assert 0 <= cons["kendall_w"] <= 1
    assert cons["winner_share"] == pytest.approx(len(cons["agreeing"]) / 3)
    assert doc["disagreements"] and doc["disagreements"][0]["spread"] >= doc["disagreements"][-1]["spread"]
    assert doc["fragility"]["verdict"] in ("fragile", "robust") and doc["fragility"]["statement"]
    # Contributions still add up to each team total exactly.
    for row in team["ranking"]:
        assert sum(c["contribution"] for c in row["contributions"]) == pytest.approx(row["total"], abs=1e-12)


def test_three_members_markdown_from_a_saved_report(bad_member: Path, tmp_path: Path) -> None:
    out = tmp_path / "team.md"
    result = run_cli(["team", "decide", *MEMBERS, str(bad_member), "--from-json", SAVED, "-o", str(out)], base=None)
    assert result.returncode == 0, result.stderr
    md = out.read_text()
    assert md.startswith("# Team decision: ") and "best fit for this team" in md
    assert "**Rita (research)** (weights), **Pat (platform)** (pairwise), **lead** (weights)" in md
    assert f"Left out (1): {markdown_text(str(bad_member))}" in md  # shown literally, escaped once
    for heading in (
        "## Answer",
        "## Members",
        "## Weights",
        "## Where the members disagree",
        "## Fragility",
        "## Team ranking",
        "### Ranking",
        "### Sensitivity",
        "### Exclusions",
    ):
        assert f"\n{heading}\n" in md, heading
    assert "Kendall's W = " in md and "| Member | Input | Own winner |" in md
    assert "| Criterion | Team | Rita (research) | Pat (platform) | lead |" in md


def test_from_json_decides_from_the_saved_evidence_and_measures_nothing(tmp_path: Path) -> None:
    """--from-json once probed and benchmarked this machine anyway, and then called that "saved report"."""
    saved = json.loads(Path(SAVED).read_text())
    saved["probe"]["cpu"]["model"] = "Saved Machine CPU"  # no machine has this: it can only come from the file
    saved["probe"]["memory"]["total_bytes"] = 123 * 2**30
    report = tmp_path / "elsewhere.json"
    report.write_text(json.dumps(saved))
    result = run_cli(["team", "decide", *MEMBERS[:2], "--from-json", str(report), "--json"], base=None)
    assert result.returncode == 0, result.stderr
    assert "probing" not in result.stderr and "benchmarking" not in result.stderr
    doc = json.loads(result.stdout)
    assert doc["machine"]["cpu"] == "Saved Machine CPU" and doc["machine"]["memory_total_bytes"] == 123 * 2**30
    assert doc["evidence"] == {"source": f"saved report {report}", "probe": True, "benchmarks": None}


def test_a_bad_saved_report_is_one_line_before_anything_runs(tmp_path: Path) -> None:
    report = tmp_path / "broken.json"
    report.write_text('{"schema_version": ')
    result = run_cli(["team", "decide", *MEMBERS[:1], "--from-json", str(report)], base=None)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and str(report) in result.stderr and "probing" not in result.stderr


def test_all_members_bad_exits_2_with_one_line_each(bad_member: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nobody.yaml"
    result = run_cli(["team", "decide", str(bad_member), str(missing), "--from-json", SAVED], base=None)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 3 and "Traceback" not in result.stderr
    assert lines[0].startswith(f"fwadvisor: warning: left out {bad_member}: ")
    assert lines[1].startswith(f"fwadvisor: warning: left out {missing}: ")
    assert lines[2].startswith("fwadvisor: error: profiles: no usable member profile")


@pytest.mark.parametrize(("flags", "field"), [(["--seed", "-1"], "--seed"), (["--from-json", ""], "--from-json")])
def test_bad_flags_are_one_line_exit_2(flags: list[str], field: str) -> None:
    result = run_cli(["team", "decide", *MEMBERS, *flags], base=None)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [result.stderr.strip()] and f"error: {field}: " in result.stderr


def test_an_unknown_preset_is_refused_before_anything_runs() -> None:
    """It used to be accepted, probed the machine, and only then failed in the benchmark engine."""
    result = run_cli(["team", "decide", *MEMBERS[:1], "--preset", "bogus"], base=None)
    assert result.returncode == 2 and "Traceback" not in result.stderr and "probing" not in result.stderr
    assert "argument --preset: invalid choice: 'bogus'" in result.stderr
