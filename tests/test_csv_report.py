"""`report --csv`: tidy rows (one figure each, with its unit) that `csv.DictReader` reads back; no formula cells."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import run_cli

from advisor.report import Report
from advisor.report.csv_out import HEADER, cell, report_rows, to_csv
from advisor.sanitize import one_line

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json"  # a real report with benchmark figures


@pytest.fixture(scope="module")
def rescored(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[dict[str, str]], Path]:
    """The saved report re-scored by the real CLI, as JSON and as CSV (the same seed: the same ranking)."""
    folder = tmp_path_factory.mktemp("csv")
    out = folder / "r.csv"
    proc = run_cli(["report", "--from-json", str(QUICK), "--json"], base=None)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    proc = run_cli(["report", "--from-json", str(QUICK), "--csv", "-o", str(out)], base=None)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == proc.stdout  # -o FILE with --csv writes the same CSV
    return data, list(csv.DictReader(io.StringIO(proc.stdout))), out


def test_every_row_is_one_figure_with_a_unit(rescored: tuple[dict[str, Any], list[dict[str, str]], Path]) -> None:
    data, rows, _ = rescored
    assert rows and tuple(rows[0]) == HEADER
    assert all(row["unit"] and row["value"] for row in rows)
    assert {row["report"] for row in rows} == {str(QUICK)}
    ranking = [r for r in rows if r["table"] == "ranking"]
    assert len(ranking) == 3 * len(data["ranking"])
    for entry in data["ranking"]:
        mine = {r["metric"]: r for r in ranking if r["framework"] == entry["framework"]}
        assert float(mine["score"]["value"]) == entry["total"] and mine["score"]["unit"] == "points (0-5)"
        assert int(mine["rank"]["value"]) == entry["rank"] and float(mine["topsis"]["value"]) == entry["topsis"]
    figures = [r for r in rows if r["table"] == "benchmark"]
    results = data["benchmarks"]["results"]
    assert len(figures) == len(results)
    for row, result in zip(figures, results, strict=True):
        assert (row["framework"], row["benchmark"], row["variant"], row["unit"]) == (
            result["framework"], result["benchmark"], result["variant"], result["unit"])
        assert float(row["value"]) == result["value"]


def test_the_interval_peak_and_warning_codes_come_through() -> None:
    data = json.loads(QUICK.read_text())
    result = data["benchmarks"]["results"][0]
    result.update(ci=[4.5, 6.25], warning_codes=[{"code": "unstable", "params": {}}, {"code": "few_samples"}])
    (row,) = [r for r in csv.DictReader(io.StringIO(to_csv(report_rows(Report.model_validate(data)))))
              if r["table"] == "benchmark"][:1]
    assert (float(row["ci95_low"]), float(row["ci95_high"])) == (4.5, 6.25)
    assert float(row["pct_of_peak"]) == result["pct_of_peak"] and row["status"] == "unstable few_samples"


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+2", "-2+3", "@SUM(A1)",
                                  "\t=1", "\r=1"])
def test_text_from_outside_never_starts_a_formula(text: str) -> None:
    data = json.loads(QUICK.read_text())
    result = data["benchmarks"]["results"][0]
    result.update(framework=text, variant=text, unit=text, metric=text)
    rows = list(csv.DictReader(io.StringIO(to_csv(report_rows(Report.model_validate(data), text)))))
    figure = next(r for r in rows if r["table"] == "benchmark")
    shown = "'" + text if text[0] in "=+-@" else one_line(text)  # a tab or CR is escaped: \x09=1
    for key in ("report", "framework", "variant", "unit", "metric"):
        assert figure[key] == shown, key
    assert all(not v.startswith(("=", "+", "@", "\t", "\r")) for r in rows for v in r.values())


def test_numbers_stay_numbers() -> None:
    assert cell(-1.5) == "-1.5" and cell(3) == "3" and cell(None) == "" and cell(0.1) == "0.1"
    assert cell("-1.5") == "'-1.5"  # text that looks like a number is still text from outside
