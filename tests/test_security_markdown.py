"""Markdown documents show outside text literally: no heading, link, image, table cell or HTML from a value."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _hostile_text import assert_inert, hostile_text
from hypothesis import given, settings
from markdown_it import MarkdownIt

from advisor.cli import main
from advisor.report import Report, to_markdown

ROOT = Path(__file__).resolve().parent.parent
REPORT = json.loads((ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json").read_text())
EXAMPLES = ROOT / "docs" / "examples" / "team"
SAVED = ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json"
BEACON = '<img src="http://beacon.example/x.png"> <script>alert(1)</script> [click](http://evil.example) <h1>x</h1>'


def _html(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def _assert_literal(markdown: str) -> None:
    html = _html(markdown)
    for tag in ("<img", "<script", "<a ", "<h1>x"):
        assert tag not in html, f"{tag} became markup"
    assert_inert(markdown)


def _hostile_report(text: str) -> dict[str, Any]:
    data = copy.deepcopy(REPORT)
    data["machine"]["cpu"] = text
    data["machine"]["gpus"] = [text]
    data["profile"]["source"] = text
    data["knowledge"]["packs"][0]["name"] = text
    data["ranking"][0]["name"] = text
    data["ranking"][0]["contributions"][0]["evidence"] = text
    data["recommendation"]["summary"] = text
    data["warnings"] = [{"code": "profile", "message": text}, {"code": "profile", "params": {"detail": text}}]
    return data


@settings(max_examples=25, deadline=None)
@given(text=hostile_text())
def test_report_markdown_shows_hostile_text_literally(text: str) -> None:
    _assert_literal(to_markdown(Report.model_validate(_hostile_report(text + BEACON))))


def test_a_beacon_in_the_cpu_model_is_shown_as_text() -> None:
    html = _html(to_markdown(Report.model_validate(_hostile_report(BEACON))))
    assert "&lt;img src=" in html and "[click](http://evil.example)" in html


def test_team_decision_markdown_shows_member_names_literally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")
    members = []
    for name, label in (("researcher", '<img src="http://b.example/a.png">'), ("platform", "# [x](http://e.x)")):
        path = tmp_path / f"{name}.yaml"
        shutil.copy(EXAMPLES / f"{name}.yaml", path)
        text = path.read_text()
        path.write_text(("\n".join(line for line in text.splitlines() if not line.startswith("member:")))
                        + f"\nmember: {json.dumps(label)}\n")
        members.append(str(path))
    assert main(["team", "decide", *members, "--from-json", str(SAVED), "--markdown"]) == 0
    out = capsys.readouterr().out
    _assert_literal(out)
    assert "&lt;img src=" in _html(out)
