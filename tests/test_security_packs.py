"""Packs are untrusted: their text is inert on a terminal, their links stay inside, their licences are SPDX."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from _hostile_text import assert_inert, hostile_text
from hypothesis import HealthCheck, given, settings

from advisor.cli import main

ROOT = Path(__file__).resolve().parent.parent
KB_SMALL = ROOT / "tests" / "fixtures" / "kb_small"


@pytest.fixture(autouse=True)
def _no_user_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")


def _pack(tmp_path: Path, field: str, value: str) -> Path:
    pack = tmp_path / "pack"
    shutil.rmtree(pack, ignore_errors=True)
    shutil.copytree(KB_SMALL, pack)
    path = pack / "frameworks" / "pytorch.yaml"
    quoted = json.dumps(value)  # a JSON string is a YAML double-quoted scalar, escapes included
    text = re.sub(rf"^{field}: .*$", lambda _m: f"{field}: {quoted}", path.read_text(), count=1, flags=re.M)
    path.write_text(text)
    return pack


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile_text(max_pieces=6))
def test_pack_text_reaches_the_terminal_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    pack = _pack(tmp_path, "maintainer", text)
    for command in (["kb", "validate", str(pack)], ["--kb", str(pack), "kb", "list"],
                    ["--kb", str(pack), "kb", "show", "pytorch"]):
        code = main(command)
        out, err = capsys.readouterr()
        assert code in (0, 2), err
        assert_inert(out)
        assert_inert(err)


def test_a_pack_name_with_an_escape_is_inert_in_kb_validate(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(KB_SMALL, pack)
    (pack / "pack.yaml").write_text('name: kb_small\nversion: "1\\e]0;pwned\\a"\ndescription: x\n')
    code = main(["kb", "validate", str(pack)])
    out, err = capsys.readouterr()
    assert_inert(out + err)
    assert code in (0, 2)
