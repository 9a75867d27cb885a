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
    # --lenient: the small test base has unquoted facts; what is checked here is the text, not the quotes
    for command in (["kb", "validate", "--lenient", str(pack)], ["--kb", str(pack), "kb", "list"],
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
    code = main(["kb", "validate", "--lenient", str(pack)])
    out, err = capsys.readouterr()
    assert_inert(out + err)
    assert code in (0, 2)


def test_a_pack_file_linked_out_of_the_pack_is_refused_unread(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$planted-hash-line:19000:0:99999:7:::\n")
    pack = tmp_path / "pack"
    shutil.copytree(KB_SMALL, pack)
    (pack / "frameworks" / "pytorch.yaml").unlink()
    (pack / "frameworks" / "pytorch.yaml").symlink_to(secret)
    assert main(["kb", "validate", str(pack)]) == 2
    err = capsys.readouterr().err
    assert "planted-hash-line" not in err and "link out of the knowledge pack" in err and err.count("\n") == 1


def test_a_link_inside_the_pack_is_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(KB_SMALL, pack)
    real = pack / "frameworks" / "pytorch.yaml"
    real.rename(pack / "pytorch.real")
    real.symlink_to(pack / "pytorch.real")
    assert main(["kb", "validate", "--lenient", str(pack)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("licence", ["", "(", "MIT OR", " MIT", "a b", "x" * 65])
def test_a_licence_that_is_not_an_spdx_id_is_one_line(tmp_path: Path, licence: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text(f"constraints:\n  licenses: [{json.dumps(licence)}]\n")
    assert main(["profile", "check", str(profile)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "licenses" in err and str(profile) in err


def test_spdx_licences_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text("constraints:\n  licenses: [Apache-2.0, BSD-3-Clause, GPL-2.0+, LicenseRef-Corp-1.0]\n")
    assert main(["profile", "check", str(profile)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("code", ["ZZ", "AA", "QM", "XA"])
def test_a_user_assigned_jurisdiction_is_one_line(tmp_path: Path, code: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text(f"constraints:\n  maintainer_jurisdictions: [{code}]\n")
    assert main(["profile", "check", str(profile)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "maintainer_jurisdictions" in err
