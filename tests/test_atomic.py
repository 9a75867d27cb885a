"""Atomic writes: complete file or the old one, sensible permissions, nothing left behind on failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from advisor.atomic import atomic_write_text


def test_new_file_gets_umask_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "sub" / "report.json", "{}")
    finally:
        os.umask(old)
    assert path.read_text() == "{}"
    assert path.stat().st_mode & 0o777 == 0o644


def test_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text("old")
    path.chmod(0o600)
    atomic_write_text(path, "new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o600


def test_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "keep.txt"
    path.write_text("precious")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "\udcff", encoding="ascii")
    assert path.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
