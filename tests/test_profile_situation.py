"""The team's situation in a profile: size, kLOC per framework, domains, serving, OS/Python, fleet; the weight scale."""

from __future__ import annotations

from pathlib import Path

import pytest
from _scoring_support import load_small_kb, run_cli

from advisor.errors import ProfileError
from advisor.knowledge import load_knowledge
from advisor.profile import WEIGHT_SCALE_MAX, load_profile, load_profile_text, resolve_profile, template
from advisor.profile.warnings import ProfileWarning, ProfileWarningCode
from advisor.report.words import profile_warning_words


@pytest.fixture(scope="module")
def shipped():  # type: ignore[no-untyped-def]
    return load_knowledge(include_user=False)


FULL = """\
scenario: production_inference
team:
  current: [paddlepaddle]
  experience: {paddlepaddle: expert, pytorch: beginner}
  size: 6
  horizon_months: 18
codebase:
  by_framework: {paddlepaddle: 60}
domains: {ocr_document: 3, vision: 1}
serving: [paddle_inference]
environment:
  os: [linux, windows]
  python: "3.12"
fleet:
  - {hardware: nvidia_cuda, model: T4, compute_capability: "7.5", count: 8}
constraints:
  maintainer_jurisdictions: [CN]
  multi_backend: false
"""


def test_every_new_field_loads_and_resolves(shipped) -> None:  # type: ignore[no-untyped-def]
    p = load_profile_text(FULL)
    assert p.team.size == 6 and p.team.horizon_months == 18
    assert p.codebase.total_kloc() == 60 and p.codebase.kloc_range("paddlepaddle", ["paddlepaddle"]) == (60, 60)
    assert p.domain_weights() == {"ocr_document": 3.0, "vision": 1.0}
    assert p.fleet[0].compute_capability == "7.5" and p.environment.python == "3.12"
    r = resolve_profile(p, shipped)
    assert r.constraints.maintainer_jurisdictions == ["CN"]


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ("domains: [ocr]\n", 1, "domains[0]", "unknown domain"),
        ("domains: {speech: 1, knitting: 2}\n", 1, "domains.knitting", "unknown domain"),
        ("serving: [tfserving]\n", 1, "serving[0]", "unknown serving stack"),
        (
            "fleet:\n  - {hardware: nvidia_cuda, compute_capability: seven}\n",
            2,
            "fleet[0].compute_capability",
            "MAJOR.MINOR",
        ),
        (
            "constraints:\n  maintainer_jurisdictions: [China]\n",
            2,
            "constraints.maintainer_jurisdictions[0]",
            "two-letter",
        ),
        ("team:\n  size: 0\n", 2, "team.size", "greater than or equal"),
        ("codebase:\n  by_framework: {pytorch: -3}\n", 2, "codebase.by_framework.pytorch", "greater than or equal"),
        ("codebase:\n  by_framework: {torch: 3}\n", 2, "codebase.by_framework.torch", "unknown framework"),
        ("environment:\n  os: [beos]\n", 2, "environment.os[0]", "Input should be"),
        ("environment:\n  python: '2.7'\n", 2, "environment.python", "Python version is 3 and a minor"),
    ],
)
def test_bad_situation_fields_name_file_line_and_field(  # type: ignore[no-untyped-def]
    text: str, line: int, field: str, words: str, shipped, tmp_path: Path
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ProfileError) as info:
        resolve_profile(load_profile(path), shipped)
    err = info.value
    assert str(err.file) == str(path) and err.line == line and err.field == field and words in err.message


def test_user_weights_beside_a_scenario_are_not_swamped(shipped) -> None:  # type: ignore[no-untyped-def]
    # Before: the preset's 5-30 percentages beside a user's 1-5 weights left the user's two criteria ~7%.
    r = resolve_profile(load_profile_text("scenario: production_inference\nweights: {migration_cost: 5}\n"), shipped)
    assert r.weights["migration_cost"] == 5 and max(r.weights.values()) == WEIGHT_SCALE_MAX
    assert r.effective_weights["migration_cost"].share > 0.2  # as much as the preset's top criterion
    swamped = [w for w in r.warnings if w.code is ProfileWarningCode.WEIGHTS_SWAMPED]  # still under half: said so
    assert [w.params["criteria"] for w in swamped] == ["migration_cost"] and float(swamped[0].params["share"]) < 0.5


def test_off_scale_weights_beside_a_scenario_are_warned(shipped) -> None:  # type: ignore[no-untyped-def]
    r = resolve_profile(load_profile_text("scenario: generic\nweights: {performance: 30}\n"), shipped)
    above = {"criterion": "performance", "weight": 30, "scale": WEIGHT_SCALE_MAX}
    assert ProfileWarning(code=ProfileWarningCode.WEIGHT_ABOVE_SCALE, params=above) in r.warnings
    assert "0-5 scale" in profile_warning_words(r.warnings[0].code, r.warnings[0].params)
    alone = resolve_profile(load_profile_text("weights: {performance: 30, ecosystem: 10}\n"), shipped)
    assert not alone.warnings  # without a scenario only the ratios matter


def test_template_documents_every_new_field_and_loads(shipped, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = template(shipped, "ascend_china")
    for key in (
        "size:",
        "horizon_months",
        "by_framework",
        "domains:",
        "serving:",
        "environment:",
        "fleet:",
        "maintainer_jurisdictions",
        "multi_backend",
        "ocr_document",
        "vllm",
    ):
        assert key in text
    path = tmp_path / "t.yaml"
    path.write_text(text)
    r = resolve_profile(load_profile(path), shipped)
    assert r.scenario == "ascend_china"


def test_small_pack_without_domains_rejects_domains() -> None:
    with pytest.raises(ProfileError, match="known: none"):
        resolve_profile(load_profile_text("domains: [speech]\n"), load_small_kb())


def test_profile_check_prints_effective_percentages_and_warns(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("scenario: production_inference\nweights: {migration_cost: 4, community: 4}\n")
    out = run_cli(["profile", "check", str(path)], base=None)
    assert out.returncode == 0, out.stderr
    assert "migration_cost" in out.stdout and "(profile)" in out.stdout and "(scenario)" in out.stdout
    assert "0-5" in out.stdout
    assert "carry" in out.stderr  # the user's two criteria carry less than half: warned
    js = run_cli(["profile", "check", str(path), "--json"], base=None)
    assert js.returncode == 0
    import json

    data = json.loads(js.stdout)
    eff = data["effective_weights"]
    assert abs(sum(e["share"] for e in eff.values()) - 1) < 1e-9 and eff["community"]["source"] == "profile"
