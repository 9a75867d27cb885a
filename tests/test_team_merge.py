"""Team mode: merging reports from several machines, with corrupt, foreign and other-version files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import ReportError, UsageError
from advisor.jsonio import model_json
from advisor.knowledge import load_knowledge
from advisor.privacy import scrub_text
from advisor.team import SavedKind, classify, load_reports, merge_reports, saved_report

ROOT = Path(__file__).resolve().parent.parent
TEAM = ROOT / "tests" / "fixtures" / "team"
FAKE_GPU = TEAM / "alice-fake-gpu.json"  # a hand-written probe with two (fake) H100s: no GPU here
SCHEMA2 = TEAM / "bob-schema2.json"
CORRUPT = TEAM / "carol-corrupt.json"
FOREIGN = TEAM / "foreign.json"
THREE = [FAKE_GPU, SCHEMA2, CORRUPT]


@pytest.fixture(scope="module")
def fkb():  # type: ignore[no-untyped-def]
    """The fixture knowledge base (tests/fixtures/checklist/kb)."""
    return load_knowledge(include_user=False, base=ROOT / "tests" / "fixtures" / "checklist" / "kb")


def test_fake_gpu_schema2_and_corrupt_reports_merge(fkb) -> None:  # type: ignore[no-untyped-def]
    summary = merge_reports(fkb, THREE)
    assert summary.framework == "jax" and "recommended by 2 of 2" in summary.chosen_by
    assert [s.path for s in summary.skipped] == [str(CORRUPT)]
    assert "not valid JSON" in summary.skipped[0].reason and "line 5" in summary.skipped[0].reason
    alice, bob = summary.machines
    assert alice.label == "alice-ws" and bob.label == "bob-laptop"
    # The fake GPU machine: JAX is installed but its probe saw only the CPU -> reinstall with the CUDA line.
    assert alice.accelerator.status.value == "after_install"
    assert alice.checklist.backend.value == "nvidia_cuda"
    assert alice.checklist.item("install.nvidia_cuda.jax").code == 'pip install -U "jax[cuda12]"'  # type: ignore[union-attr]
    assert [b.benchmark for b in alice.benchmarks] == ["gemm", "train_mlp"]  # JAX's figures only
    # The other-schema machine: CPU only, Python 3.10 is too old for JAX in the fixture base.
    assert bob.accelerator.status.value == "no"
    assert [n.kind for n in bob.checklist.needs] == ["python"]
    assert bob.benchmarks == ()
    text = " ".join(summary.warnings)
    assert "schema_version 2.0" in text and "has no benchmarks section" in text and "has no ranking section" in text
    assert "different knowledge versions" in text and "2027.03" in text
    assert str(CORRUPT) not in text  # skipped files are listed once, under skipped


def test_markdown_summary_is_readable_and_names_the_skipped_file(fkb) -> None:  # type: ignore[no-untyped-def]
    md = merge_reports(fkb, THREE).to_markdown()
    assert md.startswith("# Team summary: JAX")
    assert "## Skipped files" in md and f"- `{CORRUPT}`: not valid JSON" in md
    assert "| | alice-ws | bob-laptop |" in md
    assert "| Accelerators | 2x NVIDIA H100 80GB HBM3 | none found |" in md
    assert "| NVIDIA driver (CUDA) | 550.54.15 (CUDA 12.4) | none |" in md
    assert "## Upgrades needed" in md and "**bob-laptop** (python)" in md
    assert "| gemm fp32-1024 (cpu) | 1.51e+03 GFLOP/s | — |" in md
    assert md.count("onboarding checklist") == 1 and "For alice-ws, bob-laptop." in md
    assert "- [ ] **Install JAX for NVIDIA CUDA 12** `install.nvidia_cuda.jax` — for alice-ws" in md
    assert "- [ ] **Install JAX (CPU-only build)** `install.cpu.jax` — for bob-laptop" in md


def test_json_summary(fkb) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(json.dumps(model_json(merge_reports(fkb, THREE, framework="pytorch"))))
    assert data["schema"] == "fwadvisor.team/1" and data["framework"] == "pytorch"
    assert data["chosen_by"] == "chosen with --framework"
    assert data["skipped"] == [{"path": str(CORRUPT), "reason": data["skipped"][0]["reason"]}]
    alice = data["machines"][0]
    assert alice["accelerator"]["status"] == "yes"  # its (fake) probe says torch ran on the GPU
    assert alice["benchmarks"][0]["device"] == "gpu"
    assert alice["checklist"]["framework"] == "pytorch"
    assert data["files_read"] == 3


def test_fake_gpu_old_driver_needs_upgrade(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = json.loads(FAKE_GPU.read_text())
    report["probe"]["gpus"]["cuda_driver_version"] = "11.4"
    report["probe"]["gpus"]["driver_version"] = "470.57"
    path = tmp_path / "old-driver.json"
    path.write_text(json.dumps(report))
    summary = merge_reports(fkb, [path], framework="jax")
    (m,) = summary.machines
    assert m.accelerator.status.value == "needs_upgrade"
    assert [n.kind for n in m.checklist.needs] == ["driver"]
    assert "(driver)" in summary.to_markdown()


def test_foreign_and_missing_files_are_skipped(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"schema": "fwadvisor.bench/1", "results": []}))
    listing = tmp_path / "list.json"
    listing.write_text("[1, 2, 3]")
    missing = tmp_path / "missing.json"
    loaded, skipped = load_reports([FAKE_GPU, FOREIGN, bench, listing, missing, tmp_path])
    assert [r.path for r in loaded] == [str(FAKE_GPU)]
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert "not an fwadvisor report" in reasons["foreign.json"]
    assert "bench file, not a report" in reasons["bench.json"]
    assert "a list" in reasons["list.json"]
    assert reasons["missing.json"] == "no such file"
    assert "folder" in reasons[tmp_path.name]


def test_bare_probe_is_used_with_a_warning(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    probe = json.loads(FAKE_GPU.read_text())["probe"]
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(probe))
    assert classify(probe) == ("probe", "")
    summary = merge_reports(fkb, [path], framework="jax")
    assert summary.machines[0].checklist.backend.value == "nvidia_cuda"
    assert any("a probe, not a full report" in w for w in summary.warnings)


def test_report_without_probe_is_unknown_not_a_crash(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "thin.json"
    path.write_text(json.dumps({"schema_version": "1.0", "recommendation": {"framework": "tensorflow"}}))
    summary = merge_reports(fkb, [path])
    (m,) = summary.machines
    assert summary.framework == "tensorflow" and m.accelerator.status.value == "unknown"
    assert any("has no probe section" in w for w in summary.warnings)
    assert "| Python | unknown |" in summary.to_markdown()


def test_odd_values_inside_a_report_do_not_crash(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "odd.json"
    path.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "probe": {"cpu": None, "gpus": {"devices": [None, 3]}, "frameworks": {"jax": "yes"}},
                "benchmarks": {"results": [None, {"framework": "jax", "value": "fast"}]},
                "knowledge": "2026",
                "recommendation": {"framework": 7},
                "ranking": [{"framework": "jax"}],
            }
        )
    )
    summary = merge_reports(fkb, [path])
    assert summary.framework == "jax"  # from the ranking, since the recommendation is not a string
    assert "unknown" in summary.to_markdown()


def test_all_files_unusable_is_a_report_error(fkb) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReportError, match="no usable report"):
        merge_reports(fkb, [CORRUPT, FOREIGN])


def test_no_recommendation_needs_framework_flag(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"schema_version": "1.0", "probe": {}}))
    with pytest.raises(UsageError, match="pass --framework"):
        merge_reports(fkb, [path])
    with pytest.raises(UsageError, match="unknown framework 'caffe'"):
        merge_reports(fkb, [path], framework="caffe")


def test_tied_recommendations_warn(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for name, fw in (("a.json", "jax"), ("b.json", "pytorch")):
        (tmp_path / name).write_text(json.dumps({"schema_version": "1.0", "recommendation": {"framework": fw}}))
    summary = merge_reports(fkb, [tmp_path / "a.json", tmp_path / "b.json"])
    assert any("tied" in w for w in summary.warnings)


def test_duplicate_labels_are_made_unique(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "again.json"  # another report of the same host (a later run): not a duplicate
    report = json.loads(FAKE_GPU.read_text())
    report["generated_at"] = "2026-12-01T10:00:00+00:00"
    copy.write_text(json.dumps(report))
    summary = merge_reports(fkb, [FAKE_GPU, copy])
    assert [m.label for m in summary.machines] == ["alice-ws", "alice-ws (2)"]


def test_recommended_framework_shapes() -> None:
    def recommended(data: dict[str, Any]) -> str | None:
        return saved_report(data, "r.json", SavedKind.REPORT).recommendation

    assert recommended({"recommendation": {"framework": "jax"}}) == "jax"
    assert recommended({"recommendation": {"framework": None}, "ranking": [{"framework": "mlx"}]}) == "mlx"
    assert recommended({}) is None


# --- the command line, with the shipped knowledge base ----------------------------------------------------------


def test_cli_team_merge_three_reports(tmp_path: Path) -> None:
    """A real subprocess: skipped files are named on stderr, the summary goes to stdout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["FWADVISOR_NO_USER_PACKS"] = "1"
    result = subprocess.run(
        [sys.executable, "-m", "advisor", "team", "merge", *map(str, THREE), "--markdown"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"skipped {CORRUPT}: not valid JSON" in result.stderr
    out = result.stdout
    assert out.startswith("# Team summary: JAX")
    # Shown as the team would see it: under a home folder the path starts with ~ (advisor.privacy).
    assert f"`{scrub_text(str(CORRUPT))}`" in out and "| | alice-ws | bob-laptop |" in out
    assert "### JAX onboarding checklist" in out and "For alice-ws, bob-laptop." in out


@pytest.mark.parametrize("fmt", ["--json", "--markdown"])
def test_cli_team_merge_hides_home_folders_unless_identify(tmp_path: Path, fmt: str) -> None:
    """Reports under a home folder: the shared summary says ~/..., not the folder that names its user."""
    home = tmp_path / "home" / "alice-example"
    reports = home / "reports"
    reports.mkdir(parents=True)
    for src in (FAKE_GPU, SCHEMA2, CORRUPT):
        (reports / src.name).write_bytes(src.read_bytes())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FWADVISOR_NO_USER_PACKS": "1", "HOME": str(home)}
    files = [str(reports / src.name) for src in (FAKE_GPU, SCHEMA2, CORRUPT)]

    def merge(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "advisor", "team", "merge", *files, fmt, *extra],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)

    shared = merge()
    assert shared.returncode == 0, shared.stderr
    assert str(home) not in shared.stdout and "alice-example" not in shared.stdout
    assert "~/reports/carol-corrupt.json" in shared.stdout
    assert f"skipped {reports / CORRUPT.name}" in shared.stderr  # the user's own terminal keeps the path given
    identified = merge("--identify")
    assert identified.returncode == 0 and str(reports / CORRUPT.name) in identified.stdout


def test_cli_team_merge_json_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli import main

    assert main(["team", "merge", *map(str, THREE), "--json", "--framework", "pytorch"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["framework"] == "pytorch" and len(data["machines"]) == 2 and len(data["skipped"]) == 1
    written = tmp_path / "team.md"
    assert main(["team", "merge", *map(str, THREE), "-o", str(written)]) == 0
    assert written.read_text().startswith("# Team summary")


def test_cli_team_merge_nothing_usable_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli import main

    assert main(["team", "merge", str(CORRUPT), str(FOREIGN)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "no usable report" in err and "carol-corrupt.json" in err


# --- a real report written by `fwadvisor report --no-bench --json` on the test machine ----------------------------

REAL = TEAM / "real-cpu-no-bench.json"


def test_real_report_merges_beside_fake_gpu_and_corrupt(kb) -> None:  # type: ignore[no-untyped-def]
    """The shipped knowledge base, a real report of this machine, a fake-GPU report and a corrupt file."""
    summary = merge_reports(kb, [REAL, FAKE_GPU, CORRUPT], framework="jax")
    assert [s.path for s in summary.skipped] == [str(CORRUPT)]
    real, alice = summary.machines
    assert real.label == "real-cpu-no-bench"  # no host name without --identify: the file name stands in
    assert real.checklist.backend.value == "cpu" and real.accelerator.status.value == "no"
    assert real.recommendation == json.loads(REAL.read_text())["recommendation"]["framework"]
    assert alice.checklist.backend.value == "nvidia_cuda"
    md = summary.to_markdown()
    assert "| | real-cpu-no-bench | alice-ws |" in md and "## Skipped files" in md
    # The real report was made without benchmarks: said once, not an error.
    assert any("was made without benchmarks" in w for w in summary.warnings)
    assert not any("schema_version" in w and "real-cpu" in w for w in summary.warnings)


def test_profile_current_framework_becomes_from(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = json.loads(FAKE_GPU.read_text())
    report["profile"]["as_written"] = {"team": {"current": ["pytorch"]}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    summary = merge_reports(fkb, [path])
    assert summary.machines[0].checklist.from_framework == "pytorch"
    assert summary.machines[0].checklist.item("migration.pytorch.jax") is not None


def test_real_report_with_benchmarks_fills_the_table(kb) -> None:  # type: ignore[no-untyped-def]
    quick = TEAM / "real-cpu-quick.json"  # `fwadvisor report --json` (quick preset) on the test machine
    report = json.loads(quick.read_text())
    fw = report["recommendation"]["framework"]
    summary = merge_reports(kb, [quick, FAKE_GPU], framework=fw)
    real = summary.machines[0]
    expected = [r for r in report["benchmarks"]["results"] if r["framework"] == fw]
    assert len(real.benchmarks) == len(expected) > 0
    md = summary.to_markdown()
    first = expected[0]
    assert f"| {first['benchmark']} {first['variant']} ({first['device']}) |" in md
    # The profile says the team uses PyTorch today: the checklists start from there unless PyTorch is the choice.
    current = report["profile"]["as_written"]["team"]["current"][0]
    assert real.checklist.from_framework == (None if current == fw else current)
