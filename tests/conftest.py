"""Shared test fixtures: an isolated user config/data folder and the loaded knowledge base."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# One probe cache for the whole session, never the user's: subprocesses inherit it through the environment.
os.environ["FWADVISOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="fwadvisor-cache-")
atexit.register(shutil.rmtree, os.environ["FWADVISOR_CACHE_DIR"], True)


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the user's real config (overlay packs, progress) out of every test."""
    base = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("FWADVISOR_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("FWADVISOR_DATA_DIR", str(base / "data"))


@pytest.fixture(scope="session")
def kb():  # type: ignore[no-untyped-def]
    """The shipped knowledge base, loaded once."""
    from advisor.knowledge import load_knowledge

    os.environ["FWADVISOR_NO_USER_PACKS"] = "1"
    return load_knowledge(include_user=False)


@pytest.fixture
def cli_env() -> dict[str, str]:
    """Environment for running `python -m advisor` as a real subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env.pop("FWADVISOR_CONFIG_DIR", None)
    return env


PYTHON = sys.executable


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local package index of the `kb verify` tests, built once per module."""
    from _kb_verify_support import _simple_index

    return _simple_index(tmp_path_factory.mktemp("index"))


@pytest.fixture
def pip_env(index: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """pip pointed at the local index the way a user would."""
    from _kb_verify_support import pip_settings

    return pip_settings(index, monkeypatch, tmp_path)
