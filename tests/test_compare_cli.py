"""`fwadvisor compare` of 2 and 5 real reports: differences first, labels never cut, warnings, bad input."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from _made_reports import SCENARIOS, make_reports
from _scoring_support import run_cli

from advisor.report.compare import MismatchCode


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Five reports of this machine under five scenarios (five profiles), made by the real CLI once."""
    return make_reports(tmp_path_factory.mktemp("reports"))


def _json(paths: list[Path], *extra: str) -> dict[str, Any]:
    proc = run_cli(["compare", *map(str, paths), "--json", *extra])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _text(paths: list[Path], monkeypatch: pytest.MonkeyPatch, *extra: str, columns: int = 80) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setenv("NO_COLOR", "1")
    proc = run_cli(["compare", *map(str, paths), *extra])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_two_reports_rows_come_from_the_reports_and_differences_come_first(reports: list[Path]) -> None:
    a, b = reports[0], reports[4]
    data = _json([a, b])
    assert data["schema"] == "fwadvisor.compare/1"
    assert [r["label"] for r in data["reports"]] == ["A", "B"]
    assert [r["file"] for r in data["reports"]] == [str(a), str(b)]
    originals = [json.loads(p.read_text()) for p in (a, b)]
    totals = [{e["framework"]: e["total"] for e in r["ranking"]} for r in originals]
    for row in data["ranking"]:
        for cell, total in zip(row["cells"], totals, strict=True):
            assert cell["total"] == total.get(row["framework"])
            assert cell["state"] == ("ranked" if row["framework"] in total else cell["state"])
    flags = [row["differs"] for row in data["ranking"]]
    assert flags == sorted(flags, reverse=True)  # every differing row before the first equal one
    assert any(flags)  # two scenarios do rank differently


def test_the_same_report_twice_has_no_warning_and_no_difference(reports: list[Path]) -> None:
    data = _json([reports[0], reports[0]])
    assert data["mismatches"] == []
    assert not any(row["differs"] for row in data["ranking"] + data["facts"])


def test_different_profiles_are_stated_at_the_top_with_a_code(
    reports: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _json(reports[:2])
    (mismatch,) = data["mismatches"]
    assert mismatch["code"] == MismatchCode.PROFILE == "profile_differs"
    assert [g["labels"] for g in mismatch["groups"]] == [["A"], ["B"]]
    assert [g["value"] for g in mismatch["groups"]] == [f"scenario {s}" for s in SCENARIOS[:2]]
    text = _text(reports[:2], monkeypatch)
    warning = text.index("[profile_differs]")
    assert warning < text.index("Ranking")
    assert all(s in " ".join(text[warning:].split()) for s in SCENARIOS[:2])


def test_other_knowledge_and_presets_are_warned_about(reports: list[Path], tmp_path: Path) -> None:
    other = json.loads(reports[0].read_text())
    other["knowledge"]["version"] = "1999.01"
    other["benchmarks"] = {"schema": "fwadvisor.bench/1", "preset": "quick", "results": [], "failures": []}
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    codes = {m["code"]: m for m in _json([reports[0], path])["mismatches"]}
    assert set(codes) == {"knowledge_differs", "preset_differs"}
    assert [g["value"] for g in codes["preset_differs"]["groups"]] == ["no benchmarks", "quick"]


def test_five_reports_read_at_80_columns(reports: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    text = _text(reports, monkeypatch)
    lines = text.splitlines()
    assert lines and max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "…" not in text  # nothing is cut short with an ellipsis
    legend = {line[0]: line for line in lines if re.match(r"[A-Z]  \S", line)}
    assert list(legend) == ["A", "B", "C", "D", "E"]
    for label, path in zip("ABCDE", reports, strict=True):
        assert legend[label].split()[1] == f"{path.name}:"  # each file by its whole name, once
    header = next(line for line in lines if line.split()[:1] == ["framework"])
    assert header.split() == ["framework", "A", "B", "C", "D", "E", "range"]
    names = {e["name"] for p in reports for e in json.loads(p.read_text())["ranking"]}
    table = lines[lines.index(header) + 2:]
    for name in names:  # every framework's whole name on one line of the ranking, never folded or cut
        assert any(line.startswith(name + "  ") for line in table), name


def test_equal_rows_are_hidden_unless_all(reports: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    data = _json([reports[0], reports[0]])
    text = _text([reports[0], reports[0]], monkeypatch)
    assert f"{len(data['ranking'])} framework(s) rank the same in every report (--all shows them)" in text
    shown = _text([reports[0], reports[0]], monkeypatch, "--all")
    for row in data["ranking"]:
        assert row["name"] in shown


def test_same_file_names_in_other_folders_get_told_apart(reports: list[Path], tmp_path: Path) -> None:
    paths = []
    for run in ("run1", "run2"):
        (tmp_path / run).mkdir()
        paths.append(shutil.copy(reports[0], tmp_path / run / "report.json"))
    names = [r["name"] for r in _json(paths)["reports"]]
    assert names == ["run1/report.json", "run2/report.json"]


def test_csv_of_five_reports_parses_back_with_a_unit_in_every_row(reports: list[Path]) -> None:
    proc = run_cli(["compare", *map(str, reports), "--csv"])
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert rows and all(row["unit"] for row in rows)
    for path in reports:
        ranking = json.loads(path.read_text())["ranking"]
        mine = [r for r in rows if r["report"] == path.name and r["table"] == "ranking"]
        assert len(mine) == 3 * len(ranking)
        scores = {r["framework"]: float(r["value"]) for r in mine if r["metric"] == "score"}
        assert scores == {e["framework"]: e["total"] for e in ranking}


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        ('{"name": "not a report"}', ["schema_version"]),
        ('{"schema_version": "1.1",\n "tool": }', ["not valid JSON", "bad.json:2:"]),
        ('{"schema_version": "9.0"}', ["schema_version", "unsupported"]),
        ("[1, 2]", ["must be a JSON object"]),
    ],
)
def test_bad_input_is_one_line_naming_the_file_and_field(
    reports: list[Path], tmp_path: Path, content: str, needles: list[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    for args in ([str(reports[0]), str(bad)], [str(bad), str(reports[0]), str(reports[1])]):
        proc = run_cli(["compare", *args])
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and str(bad) in lines[0], proc.stderr
        assert all(n in lines[0] for n in needles), lines[0]
        assert proc.stdout == ""


def test_one_report_is_not_a_comparison(reports: list[Path]) -> None:
    proc = run_cli(["compare", str(reports[0])])
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["fwadvisor: error: reports: compare needs at least two report files"]


def test_figures_that_moved_more_than_the_noise_come_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    quick = Path(__file__).resolve().parent / "fixtures" / "team" / "real-cpu-quick.json"  # real, with figures
    data = json.loads(quick.read_text())
    results = data["benchmarks"]["results"]
    results[3]["value"] *= 1.5  # moved
    results[4]["value"] *= 1.05  # within the noise
    path = tmp_path / "after.json"
    path.write_text(json.dumps(data))
    figures = _json([quick, path])["figures"]
    moved = [f for f in figures if f["differs"]]
    assert [(f["framework"], f["benchmark"], f["variant"]) for f in moved] == [
        (results[3]["framework"], results[3]["benchmark"], results[3]["variant"])]
    assert figures[0] == moved[0] and len(figures) == len(results)
    text = _text([quick, path], monkeypatch)
    assert f"{len(results) - 1} figure(s) are the same in every report (--all shows them)" in text
    assert max(len(line) for line in text.splitlines()) <= 80
