"""Profiles: shape and reference errors name file, line and field; scenario merging; AHP weights; the template."""

from __future__ import annotations

from pathlib import Path

import pytest
from _scoring_support import load_small_kb

from advisor.errors import ProfileError
from advisor.profile import (
    CR_THRESHOLD,
    CodebaseSize,
    ahp_weights,
    load_profile,
    load_profile_text,
    resolve_profile,
    template,
)
from advisor.profile.warnings import ProfileWarningCode


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    return load_small_kb()


def _error(text: str, small, tmp_path: Path) -> ProfileError:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ProfileError) as info:
        resolve_profile(load_profile(path), small)
    assert info.value.file is not None and str(info.value.file) == str(path)
    return info.value


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ("team:\n  current: [pytorch]\n  favourite: jax\n", 3, "team.favourite", "unknown field"),
        ("weights:\n  performance: 1\n  speed: 2\n", 3, "weights.speed", "unknown criterion"),
        ("weights:\n  performance: -1\n", 2, "weights.performance", "zero or positive"),
        ("weights:\n  performance: 0\n  ecosystem: 0\n", 1, "weights", "at least one weight"),
        ("scenario: nope\n", 1, "scenario", "unknown scenario"),
        ("frameworks: [pytorch, caffe]\n", 1, "frameworks[1]", "unknown framework"),
        ("team:\n  current:\n    - theano\n", 3, "team.current[0]", "unknown framework"),
        ("constraints:\n  must_run_on: [quantum]\n", 2, "constraints.must_run_on[0]", "Input should be"),
        ("constraints:\n  must_deploy_to: [mars]\n", 2, "constraints.must_deploy_to[0]", "unknown deployment target"),
        ("codebase:\n  kloc: -3\n", 2, "codebase.kloc", "greater than or equal"),
        ("pairwise:\n  - [performance, speed, 3]\n", 2, "pairwise[0][1]", "unknown criterion"),
        ("weights: {performance: 1}\npairwise:\n  - [performance, ecosystem, 3]\n", 2, "pairwise", "not both"),
        ("pairwise:\n  - [performance, ecosystem, 0]\n", 2, "pairwise[0][2]", "greater than 0"),
        (
            "fleet:\n  - {hardware: google_tpu, compute_capability: '8.0'}\n",
            2,
            "fleet[0]",
            "compute_capability is for nvidia_cuda entries",
        ),
    ],
)
def test_bad_profile_names_file_line_field(text: str, line: int, field: str, words: str, small, tmp_path: Path):  # type: ignore[no-untyped-def]
    err = _error(text, small, tmp_path)
    assert (err.line, err.field) == (line, field), str(err)
    assert words in err.message
    assert "\n" not in str(err)
    assert "Value error" not in err.message  # pydantic's prefix to our own validators' words is not the user's


def test_yaml_syntax_error_and_non_mapping(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    err = _error("weights: [1,\n", small, tmp_path)
    assert "YAML syntax error" in err.message and err.line is not None
    err = _error("- just\n- a list\n", small, tmp_path)
    assert "mapping" in err.message


def test_scenario_defaults_and_profile_overrides(small) -> None:  # type: ignore[no-untyped-def]
    p = load_profile_text("scenario: mobile\nweights:\n  performance: 4\nconstraints:\n  licenses: [Apache-2.0]\n")
    r = resolve_profile(p, small)
    assert r.weight_source == "scenario+profile"
    # The preset (deployment 3, ecosystem 1, performance 1) is read on the 0-5 scale: its top weight becomes 5.
    assert r.weights["deployment"] == 5 and r.weights["performance"] == 4 and r.weights["community"] == 0
    assert r.effective_weights["performance"].source == "profile"
    assert r.effective_weights["deployment"].source == "scenario"
    # The profile sets licenses only: the scenario's must_deploy_to stays.
    assert r.constraints.must_deploy_to == ["mobile"] and r.constraints.licenses == ["Apache-2.0"]
    assert abs(sum(r.normalized_weights.values()) - 1.0) < 1e-12


def test_cli_scenario_overrides_file_and_default_scenario(small) -> None:  # type: ignore[no-untyped-def]
    r = resolve_profile(load_profile_text("scenario: research\n"), small, scenario="mobile")
    assert r.scenario == "mobile"
    r = resolve_profile(load_profile_text(""), small)
    assert r.scenario == "generic" and r.weight_source == "scenario"
    with pytest.raises(ProfileError, match="unknown scenario"):
        resolve_profile(load_profile_text(""), small, scenario="nope")


def test_weights_without_scenario_leave_other_criteria_at_zero(small) -> None:  # type: ignore[no-untyped-def]
    r = resolve_profile(load_profile_text("weights: {performance: 2, ecosystem: 1}\n"), small)
    assert r.weight_source == "profile" and r.scenario is None
    assert r.normalized_weights["performance"] == pytest.approx(2 / 3)
    assert r.normalized_weights["community"] == 0


def test_codebase_size_from_kloc() -> None:
    sizes = [load_profile_text(f"codebase: {{kloc: {k}}}\n").codebase.effective_size() for k in (0, 5, 50, 500)]
    assert sizes == [CodebaseSize.NONE, CodebaseSize.SMALL, CodebaseSize.MEDIUM, CodebaseSize.LARGE]
    assert load_profile_text("").codebase.effective_size() is CodebaseSize.MEDIUM


def test_ahp_consistent_judgements_give_exact_ratios() -> None:
    res = ahp_weights([("a", "b", 2.0), ("b", "c", 2.0), ("a", "c", 4.0)])
    assert res.weights["a"] == pytest.approx(4 / 7) and res.weights["c"] == pytest.approx(1 / 7)
    assert res.consistency_ratio == pytest.approx(0.0, abs=1e-9)
    assert res.lambda_max == pytest.approx(3.0)


def test_ahp_harker_fills_missing_judgements() -> None:
    # Consistent but incomplete (a/c missing): Harker's method recovers the consistent weights.
    res = ahp_weights([("a", "b", 3.0), ("b", "c", 2.0)])
    assert res.missing_pairs == 1
    assert res.weights["a"] / res.weights["c"] == pytest.approx(6.0)


def test_ahp_inconsistent_judgements_warn(small) -> None:  # type: ignore[no-untyped-def]
    text = (
        "pairwise:\n  - [performance, ecosystem, 9]\n  - [ecosystem, community, 9]\n  - [community, performance, 9]\n"
    )
    r = resolve_profile(load_profile_text(text), small)
    assert r.ahp is not None and r.ahp.consistency_ratio is not None and r.ahp.consistency_ratio > CR_THRESHOLD
    assert [w.code for w in r.warnings] == [ProfileWarningCode.PAIRWISE_INCONSISTENT]
    assert r.warnings[0].params == {"consistency_ratio": r.ahp.consistency_ratio, "threshold": CR_THRESHOLD}
    assert r.weight_source == "pairwise" and r.weights["deployment"] == 0


def test_ahp_disconnected_judgements_are_an_error(small) -> None:  # type: ignore[no-untyped-def]
    text = "pairwise:\n  - [performance, ecosystem, 2]\n  - [community, deployment, 3]\n"
    with pytest.raises(ProfileError, match="do not link"):
        resolve_profile(load_profile_text(text), small)


def test_template_loads_and_resolves_for_every_scenario(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for sid in [None, *small.scenarios]:
        path = tmp_path / f"{sid}.yaml"
        path.write_text(template(small, sid))
        r = resolve_profile(load_profile(path), small)
        assert r.scenario == (sid or "generic")
        assert "#" in path.read_text()  # commented


def test_template_for_shipped_knowledge(kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.yaml"
    path.write_text(template(kb))
    r = resolve_profile(load_profile(path), kb)
    assert set(r.weights) == set(kb.criteria)


def test_save_and_reload_round_trip(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from advisor.profile import save_profile

    text = (
        "scenario: research\nteam: {current: [pytorch], experience: {jax: beginner}}\ncodebase: {kloc: 12}\n"
        "pairwise:\n  - [performance, ecosystem, 3]\nconstraints: {must_run_on: [nvidia_cuda]}\n"
    )
    original = load_profile_text(text)
    path = save_profile(original, tmp_path / "saved.yaml")
    again = load_profile(path)
    assert again.model_dump() == original.model_dump()  # (== would also compare the file name kept inside)
    assert resolve_profile(again, small).weights == resolve_profile(original, small).weights
