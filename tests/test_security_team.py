"""team merge and team decide on hostile files: reasons shown, huge integers named, one person one vote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.cli import main

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json"


@pytest.fixture(autouse=True)
def _no_user_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")


def test_merge_of_only_unusable_files_says_why_for_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken, foreign = tmp_path / "broken.json", tmp_path / "foreign.json"
    broken.write_text("{")
    foreign.write_text('{"hello": 1}')
    assert main(["team", "merge", str(broken), str(foreign)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{broken}: not valid JSON" in err and f"{foreign}: " in err


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(digits=st.integers(min_value=20, max_value=4000), field=st.sampled_from(
    ["logical_cores", "memory_total_bytes", "usable_cores"]), sign=st.sampled_from(["", "-"]))
def test_a_huge_integer_in_a_merged_report_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     digits: int, field: str, sign: str) -> None:
    data = json.loads(REPORT.read_text())
    data["machine"][field] = 0
    text = json.dumps(data).replace(f'"{field}": 0', f'"{field}": {sign}{"9" * digits}', 1)
    path = tmp_path / "huge.json"
    path.write_text(text)
    assert main(["team", "merge", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "absurd number" in err


def test_one_person_has_one_vote_however_many_profiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    examples = ROOT / "docs" / "examples" / "team"
    saved = ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json"
    paths = [str(examples / "platform.yaml"), str(examples / "lead.yaml")]
    for i in range(6):  # near-identical, so not caught as the same content
        path = tmp_path / f"sock{i}.yaml"
        path.write_text(f"member: ' Mallory  '\nweights:\n  numerical_computing: 5\n  performance: {4 + i / 100}\n")
        paths.append(str(path))
    assert main(["team", "decide", *paths, "--from-json", str(saved), "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert len(doc["members"]) == 3, "Mallory counts once"
    assert len(doc["left_out"]) == 5 and err.count("one person, one vote") == 5
