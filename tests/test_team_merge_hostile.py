"""Team merge with absurd numbers, unreadable JSON and the same report given twice: named, skipped, never an abort."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.jsonio import model_json
from advisor.knowledge import load_knowledge
from advisor.team import load_reports, merge_reports
from advisor.team.sanity import absurd_number

ROOT = Path(__file__).resolve().parent.parent
TEAM = ROOT / "tests" / "fixtures" / "team"
FAKE_GPU = TEAM / "alice-fake-gpu.json"
REAL = TEAM / "real-cpu-no-bench.json"
FIELD = '"usable_cores": '  # a count in the probe of the fake-GPU fixture


@pytest.fixture(scope="module")
def fkb():  # type: ignore[no-untyped-def]
    """The fixture knowledge base (tests/fixtures/checklist/kb)."""
    return load_knowledge(include_user=False, base=ROOT / "tests" / "fixtures" / "checklist" / "kb")


def _edited(tmp_path: Path, name: str, literal: str) -> Path:
    text = FAKE_GPU.read_text()
    assert FIELD in text
    path = tmp_path / name
    path.write_text(text.replace(FIELD, FIELD + literal + ', "was": ', 1))
    return path


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("NaN", "probe.cpu.usable_cores is NaN"),
        ("Infinity", "probe.cpu.usable_cores is infinite"),
        ("1e400", "probe.cpu.usable_cores is infinite"),
        ("-5", "probe.cpu.usable_cores is -5: impossible for a count"),
        ("100000000000", "probe.cpu.usable_cores is 1e+11: impossible for a count"),
        ("1" + "0" * 30, "larger than any figure a report holds"),
        ("9" * 5000, "an integer literal too long to read"),
    ],
)
def test_absurd_number_skips_that_file_and_merges_the_rest(fkb, tmp_path: Path, literal: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    bad = _edited(tmp_path, "bad.json", literal)
    summary = merge_reports(fkb, [bad, REAL], framework="jax")
    assert [m.path for m in summary.machines] == [str(REAL)]
    (skip,) = summary.skipped
    assert skip.path == str(bad) and expected in skip.reason, skip.reason
    json.dumps(model_json(summary), allow_nan=False)  # the output is strict JSON (raises on NaN/Infinity)


def test_negative_memory_and_benchmark_figure_are_absurd() -> None:
    assert absurd_number({"probe": {"memory": {"total_bytes": -1}}}) == (
        "probe.memory.total_bytes is -1: impossible for a byte size"
    )
    assert "never negative" in str(absurd_number({"benchmarks": {"results": [{"value": -3.0}]}}))
    assert absurd_number(json.loads(REAL.read_text())) is None  # a real report passes


def test_deeply_nested_json_is_skipped(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    _loaded, skipped = load_reports([deep])
    assert "nested too deeply" in skipped[0].reason


def test_same_report_twice_is_counted_once_with_a_warning(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "copy-of-alice.json"
    copy.write_text(json.dumps(json.loads(FAKE_GPU.read_text()), indent=4))  # same content, other formatting
    summary = merge_reports(fkb, [FAKE_GPU, copy, REAL, FAKE_GPU])
    assert [m.path for m in summary.machines] == [str(FAKE_GPU), str(REAL)]
    reasons = [(s.path, s.reason) for s in summary.skipped]
    assert reasons == [
        (str(copy), f"duplicate of {FAKE_GPU} (identical content): counted once"),
        (str(FAKE_GPU), f"duplicate of {FAKE_GPU} (identical content): counted once"),
    ]
    assert "recommended by 1 of 2" in summary.chosen_by or "of 2 report(s)" in summary.chosen_by


def test_same_report_id_is_counted_once(fkb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    paths = []
    for name, when in (("a.json", "2026-12-01T10:00:00+00:00"), ("b.json", "2026-12-02T10:00:00+00:00")):
        report = json.loads(FAKE_GPU.read_text())
        report["report_id"], report["generated_at"] = "r-42", when
        (tmp_path / name).write_text(json.dumps(report))
        paths.append(tmp_path / name)
    summary = merge_reports(fkb, paths)
    assert len(summary.machines) == 1
    assert summary.skipped[0].reason == f"duplicate of {paths[0]} (the same report id 'r-42'): counted once"


def test_cli_names_the_absurd_and_the_duplicate_file(tmp_path: Path) -> None:
    """A real subprocess: one warning line per bad file, the merge goes on, exit 0."""
    bad = _edited(tmp_path, "nan.json", "NaN")
    env = dict(os.environ, PYTHONPATH=str(ROOT), FWADVISOR_NO_USER_PACKS="1")
    result = subprocess.run(
        [sys.executable, "-m", "advisor", "team", "merge", str(bad), str(REAL), str(REAL), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("fwadvisor: warning: skipped")]
    assert lines == [
        f"fwadvisor: warning: skipped {bad}: absurd number: probe.cpu.usable_cores is NaN, not a number",
        f"fwadvisor: warning: skipped {REAL}: duplicate of {REAL} (identical content): counted once",
    ]
    data = json.loads(result.stdout)
    assert [m["path"] for m in data["machines"]] == [str(REAL)]
