"""Install lines and checklists for the team's hardware (must_run_on, fleet), not only for this machine."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from _scoring_support import probe_fixture, run_cli

from advisor.knowledge.schema import Hardware
from advisor.profile import load_profile_text, resolve_profile
from advisor.report.build import build_report, to_json_text
from advisor.report.models import worded_recommendation
from advisor.scoring import assess
from advisor.scoring.install_advice import install_sentence, install_steps

TODAY = dt.date(2026, 12, 4)
#: A CUDA team planning on this CPU-only machine (the recorded CPU-only probe; no GPU is faked).
CUDA_FLEET = """
weights: {hardware_fit: 5, ecosystem: 5}
fleet: [{hardware: nvidia_cuda, model: H100, compute_capability: '9.0', count: 8}]
"""


def _advice(kb: Any, text: str) -> Any:
    return assess(kb, resolve_profile(load_profile_text(text), kb), probe=probe_fixture(), today=TODAY).recommendation


def test_a_cuda_fleet_gets_the_cuda_line_and_this_machines_line_beside_it(kb: Any) -> None:
    rec = _advice(kb, CUDA_FLEET)
    fw = kb.frameworks[rec.framework]
    team, here = rec.install
    assert (team.where, team.hardware, team.line) == (
        "team",
        Hardware.NVIDIA_CUDA,
        fw.hardware[Hardware.NVIDIA_CUDA].install,
    )
    assert (here.where, here.hardware) == ("here", Hardware.CPU)
    step = next(s for s in worded_recommendation(rec).next_steps if s.startswith(f"Install {fw.name}"))
    assert "your team's hardware (nvidia_cuda)" in step and "this machine (cpu)" in step
    assert f"`{team.line}`" in step


def test_must_run_on_counts_as_the_team_hardware_too(kb: Any) -> None:
    rec = _advice(kb, "weights: {hardware_fit: 5}\nconstraints: {must_run_on: [google_tpu]}\n")
    assert [s.where for s in rec.install][0] == "team" and rec.install[0].hardware is Hardware.GOOGLE_TPU


def test_without_team_hardware_only_this_machines_line_is_given(kb: Any) -> None:
    rec = _advice(kb, "weights: {hardware_fit: 5, ecosystem: 5}\n")
    assert [(s.where, s.hardware) for s in rec.install] == [("here", Hardware.CPU)]
    assert not any("your team's hardware" in s for s in worded_recommendation(rec).next_steps)


def test_an_amd_team_gets_the_rocm_line_the_knowledge_gives(kb: Any) -> None:
    steps = install_steps(kb, "pytorch", {Hardware.CPU: "x86_64"}, [Hardware.AMD_ROCM])
    line = kb.frameworks["pytorch"].hardware[Hardware.AMD_ROCM].install
    assert line and (steps[0].where, steps[0].hardware, steps[0].line) == ("team", Hardware.AMD_ROCM, line)
    assert f"`{line}`" in (install_sentence("PyTorch", steps) or "")


def test_a_route_without_a_line_says_so_with_its_status(kb: Any) -> None:
    # A route the base knows (status other than none/unknown) for which no source gave a concrete pip line:
    # taken from the base as it is, so the test follows the knowledge rather than one fact of it.
    fid, hw = next((fid, hw) for fid, fw in kb.frameworks.items() for hw, e in fw.hardware.items()
                   if not e.install and e.status.value not in ("none", "unknown") and hw is not Hardware.CPU)
    steps = install_steps(kb, fid, {Hardware.CPU: "x86_64"}, [hw])
    team = steps[0]
    assert (team.where, team.hardware, team.line, team.from_knowledge) == ("team", hw, "", False)
    sentence = install_sentence(kb.frameworks[fid].name, steps) or ""
    assert f"no install line is known for this route (status: {team.status.value})" in sentence
    assert "support)" not in sentence


def test_checklist_from_a_report_uses_the_fleet(kb: Any, tmp_path: Path) -> None:
    # A report for a CUDA fleet scored on this CPU-only machine's probe, then its checklist by the real CLI.
    a = assess(kb, resolve_profile(load_profile_text(CUDA_FLEET), kb), probe=probe_fixture(), today=TODAY)
    data = build_report(a, kb, probe=probe_fixture(), bench=None, profile_source="team.yaml")
    assert data.recommendation.install[0].where == "team"
    report = tmp_path / "report.json"
    report.write_text(to_json_text(data), encoding="utf-8")
    out = run_cli(["checklist", "--report", str(report), "--json"], base=None)
    assert out.returncode == 0, out.stderr
    checklist = json.loads(out.stdout)
    assert checklist["backend"] == "nvidia_cuda"
    items = [i for s in checklist["sections"] for i in s["items"] if i["id"].startswith("install.nvidia_cuda.")]
    assert items and "This machine (CPU) would install" in items[0]["detail"]


def test_the_tui_checklist_uses_the_walks_fleet(kb: Any) -> None:
    # The TUI's Onboarding step for a CUDA fleet, on the recorded CPU-only probe: the same team hardware as the CLI.
    from _tui_support import make_app

    from advisor.tui.data.answers import answer

    app = make_app(kb)
    fleet = [{"hardware": "nvidia_cuda", "model": "H100", "count": 8}]
    app.walk.profile = answer(app.walk.profile, "fleet", value=fleet)
    checklist, _origin = app.walk_checklist("pytorch")
    assert checklist.backend == "nvidia_cuda"
    assert any(i.id.startswith("install.nvidia_cuda.") for s in checklist.sections for i in s.items)
