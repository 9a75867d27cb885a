"""`fwadvisor report`, `profile` and `compare` through the real command line in child processes."""

from __future__ import annotations

import json
from importlib.metadata import distributions
from pathlib import Path

import pytest
from _scoring_support import run_cli
from test_report_schema import make_report

from advisor.report import to_json_text, validate_report


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved report with recorded (CPU-only) probe and bench evidence, as `report -o` writes it."""
    path = tmp_path_factory.mktemp("saved") / "old.json"
    path.write_text(to_json_text(make_report("", "probe_cpu_only.json", "bench_quick_cpu.json")))
    return path


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("weights:\n  performance: -2\n", "p.yaml:2: weights.performance: a weight must be zero or positive"),
        ("team:\n  current: [pytorch]\n  langauge: python\n", "p.yaml:3: team.langauge: unknown field"),
        ("weights:\n  speed: 1\n", "p.yaml:2: weights.speed: unknown criterion 'speed'"),
        ("weights:\n  performance: 0\n", "p.yaml:1: weights: at least one weight must be positive"),
    ],
)
def test_bad_profile_is_one_line_and_exit_2(text: str, where: str, tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    for args in (["profile", "check", str(path)], ["report", "--from-json", "missing.json", "--profile", str(path)]):
        proc = run_cli(args)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and where in lines[0], proc.stderr
        assert proc.stdout == ""


def test_profile_init_writes_a_template_that_checks(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    assert run_cli(["profile", "init", "-o", str(path), "--scenario", "mobile"]).returncode == 0
    assert "scenario: mobile" in path.read_text()
    proc = run_cli(["profile", "init", "-o", str(path)])
    assert proc.returncode == 2 and "--force" in proc.stderr  # never overwrite silently
    proc = run_cli(["profile", "check", str(path), "--json"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["scenario"] == "mobile" and data["constraints"]["must_deploy_to"] == ["mobile"]
    assert abs(sum(data["weights"].values()) - 1) < 1e-9


def test_from_json_rescored_under_a_new_profile(saved: Path, tmp_path: Path) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text("scenario: mobile\nteam: {current: [tensorflow]}\n")
    out = tmp_path / "new.json"
    proc = run_cli(["report", "--from-json", str(saved), "--profile", str(profile), "--json", "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    new = json.loads(proc.stdout)
    validate_report(new)
    assert json.loads(out.read_text()) == {**new, "generated_at": json.loads(out.read_text())["generated_at"]}
    old = json.loads(saved.read_text())
    assert new["probe"] == old["probe"] and new["benchmarks"] == old["benchmarks"]  # nothing re-measured
    assert new["profile"]["scenario"] == "mobile" and new["profile"]["source"] == str(profile)
    assert new["profile"]["normalized_weights"]["deployment"] > old["profile"]["normalized_weights"]["deployment"]
    proc = run_cli(["report", "--from-json", str(saved), "--profile", str(profile), "--scenario", "research", "--json"])
    assert json.loads(proc.stdout)["profile"]["scenario"] == "research"  # --scenario overrides the file


def test_from_json_markdown_and_summary(saved: Path, tmp_path: Path) -> None:
    md = tmp_path / "r.md"
    proc = run_cli(["report", "--from-json", str(saved), "-o", str(md)])
    assert proc.returncode == 0, proc.stderr
    assert md.read_text().startswith("# fwadvisor report")
    assert "Recommendation" in proc.stdout and "Ranking" in proc.stdout  # the Rich summary
    proc = run_cli(["report", "--from-json", str(saved), "--markdown"])
    assert proc.stdout.startswith("# fwadvisor report")


def test_from_json_refuses_a_bad_report(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema_version": "1.0", "tool": {}}))
    proc = run_cli(["report", "--from-json", str(bad)])
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "bad.json" in proc.stderr and "report schema" in proc.stderr


def test_compare_two_reports(saved: Path, tmp_path: Path) -> None:
    other = tmp_path / "b.json"
    other.write_text(to_json_text(make_report("scenario: mobile\n", "probe_fake_nvidia_h100.json")))
    proc = run_cli(["compare", str(saved), str(other), "--json"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    gpus = next(f for f in data["facts"] if f["key"] == "gpus")
    assert gpus["differs"] and gpus["groups"][1] == {"value": "NVIDIA H100 80GB HBM3", "labels": ["B"]}
    figures = {(r["framework"], r["benchmark"], r["variant"]): r for r in data["figures"]}
    # B ran no benchmarks: its blank figures are not differences; the preset mismatch at the top says why.
    assert figures and all(r["values"][1] is None and not r["differs"] for r in figures.values())
    assert "preset_differs" in {m["code"] for m in data["mismatches"]}
    proc = run_cli(["compare", str(saved), str(other)])
    assert proc.returncode == 0 and "[profile_differs]" in proc.stdout and "Ranking" in proc.stdout


def test_live_report_no_bench_with_the_shipped_knowledge(tmp_path: Path) -> None:
    # The real probe (framework children included) and the shipped knowledge base; no benchmarks.
    out = tmp_path / "live.json"
    proc = run_cli(["report", "--no-bench", "--json", "-o", str(out)], base=None)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    validate_report(report)
    assert report["benchmarks"] is None and report["probe"]["schema"] == "fwadvisor.probe/1"
    assert report["ranking"] and report["sensitivity"] is not None
    assert report["machine"]["hostname"] is None
    assert "probing" in proc.stderr  # progress goes to stderr, data to stdout
    assert json.loads(out.read_text())["ranking"] == report["ranking"]
    # A framework counts as installed in the ranking exactly where the probe found it; MLX has an adapter, so it is
    # probed (installed or not), never "no adapter probes it".
    probed = report["probe"]["frameworks"]
    for entry in report["ranking"]:
        fw = probed.get(entry["framework"])
        assert entry["installed"] == (fw["installed"] if fw else None), entry["framework"]
        assert (entry["status_code"] == "not_probed") == (fw is None), entry["framework"]
    assert probed["mlx"]["installed"] == any(d.metadata["Name"] == "mlx" for d in distributions())
