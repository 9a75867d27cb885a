"""One rule for a Windows team's NVIDIA GPUs on every path (report, team decide, compare, TUI), and no warning
for an excluded framework.

The NVIDIA T4 probe is a recorded fake (this machine has no GPU): the GPUs reach the rule only as the probe's
findings, the way the TUI and a plain `fwadvisor report` on that machine see them.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import probe_fixture, probe_json, run_cli

from advisor.knowledge import load_knowledge
from advisor.profile import Profile, load_profile_text, resolve_profile
from advisor.report import build_report, to_json_text
from advisor.scoring import assess
from advisor.tui import core

#: Frameworks whose knowledge says "no native NVIDIA GPU support on Windows" (stewardship.yaml gpu_os).
NO_WINDOWS_GPU = {"tensorflow", "jax", "mlx"}
#: The same Windows team written three ways: GPUs only from the probe, GPUs required, GPUs in the fleet.
PROFILES = {
    "probe_gpus": "environment: {os: [windows], python: '3.10'}\n",
    "must_run_on": "environment: {os: [windows], python: '3.10'}\nconstraints: {must_run_on: [nvidia_cuda]}\n",
    "fleet": (
        "environment: {os: [windows], python: '3.10'}\n"
        "fleet: [{hardware: nvidia_cuda, model: RTX 4090, compute_capability: '8.9', count: 3}]\n"
    ),
}


@pytest.fixture(scope="module")
def kb():  # type: ignore[no-untyped-def]
    return load_knowledge(include_user=False)


@pytest.fixture(scope="module")
def saved(kb, tmp_path_factory: pytest.TempPathFactory) -> Path:  # type: ignore[no-untyped-def]
    """A saved report whose evidence is the fake T4 probe (re-scored by the CLI with --from-json)."""
    probe = probe_fixture("probe_fake_nvidia_t4.json")
    a = assess(kb, resolve_profile(Profile(), kb), probe=probe, today=dt.date(2026, 12, 1), draws=200)
    path = tmp_path_factory.mktemp("saved") / "t4.json"
    path.write_text(to_json_text(build_report(a, kb, probe=probe, bench=None, profile_source="test")))
    return path


def _nvidia_exclusions(exclusions: list[dict[str, Any]]) -> set[str]:
    return {x["framework"] for x in exclusions if any("NVIDIA GPUs" in r for r in x["reasons"])}


def _check(doc: dict[str, Any], where: str) -> None:
    ranked = {b["framework"] for b in doc["ranking"]}
    assert not ranked & NO_WINDOWS_GPU, f"{where}: ranked {sorted(ranked & NO_WINDOWS_GPU)}"
    assert _nvidia_exclusions(doc["exclusions"]) == NO_WINDOWS_GPU, where
    # No warning about a framework the advice already left out (JAX's Python-version warning was one).
    warned = {w.get("framework") for w in doc["warnings"]}
    assert not warned & NO_WINDOWS_GPU, f"{where}: warnings for excluded {sorted(warned & NO_WINDOWS_GPU)}"


@pytest.mark.parametrize("name", list(PROFILES))
def test_report_excludes_the_same_frameworks_however_the_gpus_are_known(
    name: str, saved: Path, tmp_path: Path
) -> None:
    profile = tmp_path / f"{name}.yaml"
    profile.write_text(PROFILES[name])
    proc = run_cli(["report", "--from-json", str(saved), "--profile", str(profile), "--json"], base=None)
    assert proc.returncode == 0, proc.stderr
    _check(json.loads(proc.stdout), f"report ({name})")


def test_team_decide_and_compare_apply_the_same_rule(saved: Path, tmp_path: Path) -> None:
    paths = []
    for name, text in PROFILES.items():
        (tmp_path / f"{name}.yaml").write_text(f"member: {name}\n" + text)
        paths.append(str(tmp_path / f"{name}.yaml"))
    one = run_cli(["team", "decide", paths[0], "--from-json", str(saved), "--json"], base=None)
    assert one.returncode == 0, one.stderr
    _check(json.loads(one.stdout)["team"], "team decide (one member)")
    three = run_cli(["team", "decide", *paths, "--from-json", str(saved), "--json"], base=None)
    assert three.returncode == 0, three.stderr
    doc = json.loads(three.stdout)
    _check(doc["team"], "team decide (three members)")
    for member in doc["members"]:
        assert not {r["framework"] for r in member["ranking"]} & NO_WINDOWS_GPU, member["label"]
    reports = []
    for name in ("probe_gpus", "must_run_on"):
        out = tmp_path / f"{name}.json"
        proc = run_cli(["report", "--from-json", str(saved), "--profile", paths[0 if name == "probe_gpus" else 1],
                        "--json", "-o", str(out)], base=None)
        assert proc.returncode == 0, proc.stderr
        reports.append(str(out))
    cmp = run_cli(["compare", *reports, "--json"], base=None)
    assert cmp.returncode == 0, cmp.stderr
    rows = {r["framework"]: r for r in json.loads(cmp.stdout)["ranking"]}
    for fid in NO_WINDOWS_GPU:  # excluded (or absent) under both ways of stating the GPUs, never ranked
        assert fid not in rows or all(c["state"] != "ranked" for c in rows[fid]["cells"]), fid


def test_tui_scores_with_the_same_rule(kb) -> None:  # type: ignore[no-untyped-def]
    from advisor.tui.data.answers import edited
    from advisor.tui.data.state import Walk

    walk = Walk()
    walk.profile = edited(walk.profile, {("environment", "os"): ["windows"], ("environment", "python"): "3.10"})
    from advisor.evidence.probe import ProbeReport

    report = core.assess(kb, walk.profile, ProbeReport.from_json(probe_json("probe_fake_nvidia_t4.json")), None,
                         draws=200)
    _check(report.model_dump(mode="json"), "TUI")


def test_one_function_decides_on_the_support_code(kb) -> None:  # type: ignore[no-untyped-def]
    from advisor.knowledge.schema import Support
    from advisor.scoring.constraints import nvidia_route_none
    from advisor.scoring.fleet import FloorForm, floor_words, team_fleet

    profile = load_profile_text(PROFILES["probe_gpus"])
    fleet = team_fleet(profile, probe_fixture("probe_fake_nvidia_t4.json"))
    found = {fid: nvidia_route_none(kb, fid, profile, fleet) for fid in kb.frameworks}
    assert {f for f, x in found.items() if x is not None} == NO_WINDOWS_GPU
    assert all(x.support is Support.NONE for x in found.values() if x is not None)
    # The way out is named where the exclusion is read: TensorFlow's GPU route under WSL2.
    tf = found["tensorflow"]
    assert tf is not None and tf.form is FloorForm.OS_GPU and tf.facts["os"] == "windows" and tf.facts["wsl2"]
    assert "under WSL2 it is" in floor_words(tf.params)
    linux = load_profile_text("environment: {os: [linux]}\n")
    assert all(nvidia_route_none(kb, fid, linux, fleet) is None for fid in NO_WINDOWS_GPU)
