"""The probe cache: a repeated probe reuses a framework's last successful answer until something it depends on changes.

A stand-in framework's probe script (a real child process) counts its runs in a file, so each test
sees whether the child ran or the cache answered. No real framework is needed.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import ClassVar

import pytest

from advisor.evidence import probe_cache
from advisor.evidence.probe import probe_frameworks_cached
from advisor.frameworks.base import FrameworkAdapter
from tests.conftest import ROOT

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from probes._proto import done, emit
    with open({counter!r}, "a") as f:
        f.write("run\\n")
    if {fail!r}:
        emit("import", ok=False, module="stub", error="ImportError: broken on purpose")
    else:
        emit("import", ok=True, module="stub", seconds=0.01)
        emit("info", version="1.0", build={{}}, threads={{}})
        emit("device", kind="cpu", name="cpu", id="cpu")
    done()
    """
)


def _adapter(root: Path, version: str = "1.0", module: str = "stubprobe.fw") -> FrameworkAdapter:
    class Stub(FrameworkAdapter):
        id = "stubfw"
        display_name = "Stub"
        import_name = "stub"
        distributions: ClassVar[tuple[str, ...]] = ("stub",)
        probe_module = module

        def script_root(self) -> Path:
            return root

        def installed(self) -> tuple[str, str] | None:
            return ("stub", version)

    return Stub()


@pytest.fixture
def stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("FWADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    pkg = tmp_path / "stubprobe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    counter = tmp_path / "runs.txt"
    (pkg / "fw.py").write_text(SCRIPT.format(root=str(ROOT), counter=str(counter), fail=False))
    (pkg / "broken.py").write_text(SCRIPT.format(root=str(ROOT), counter=str(counter), fail=True))
    return tmp_path, counter


def _runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def test_second_probe_comes_from_the_cache_and_fresh_probes_again(stub: tuple[Path, Path]) -> None:
    root, counter = stub
    first = probe_frameworks_cached([_adapter(root)], fresh=False, timeout=30, on_event=None, cancel=None)
    assert first["stubfw"].outcome == "ok" and first["stubfw"].cached_age_s is None and _runs(counter) == 1
    second = probe_frameworks_cached([_adapter(root)], fresh=False, timeout=30, on_event=None, cancel=None)
    assert _runs(counter) == 1  # the child did not run again
    assert second["stubfw"].cached_age_s is not None and second["stubfw"].devices == first["stubfw"].devices
    probe_frameworks_cached([_adapter(root)], fresh=True, timeout=30, on_event=None, cancel=None)
    assert _runs(counter) == 2


def test_a_new_version_or_environment_variable_misses_the_cache(
    stub: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, counter = stub
    probe_frameworks_cached([_adapter(root)], fresh=False, timeout=30, on_event=None, cancel=None)
    probe_frameworks_cached([_adapter(root, version="2.0")], fresh=False, timeout=30, on_event=None, cancel=None)
    assert _runs(counter) == 2
    monkeypatch.setenv("KERAS_BACKEND", "jax")  # a recorded variable: it changes what a child finds
    probe_frameworks_cached([_adapter(root, version="2.0")], fresh=False, timeout=30, on_event=None, cancel=None)
    assert _runs(counter) == 3
    monkeypatch.setenv("FWADVISOR_UNRELATED", "x")  # not one the child inherits: still a hit
    probe_frameworks_cached([_adapter(root, version="2.0")], fresh=False, timeout=30, on_event=None, cancel=None)
    assert _runs(counter) == 3


def test_failures_are_not_cached_and_old_entries_expire(stub: tuple[Path, Path]) -> None:
    root, counter = stub
    broken = _adapter(root, module="stubprobe.broken")
    for _ in range(2):
        got = probe_frameworks_cached([broken], fresh=False, timeout=30, on_event=None, cancel=None)
        assert got["stubfw"].outcome == "import_error"
    assert _runs(counter) == 2
    good = _adapter(root)
    probe_frameworks_cached([good], fresh=False, timeout=30, on_event=None, cancel=None)
    key = probe_cache.cache_key(good)
    assert probe_cache.load("stubfw", key) is not None
    assert probe_cache.load("stubfw", key, max_age_s=-1.0) is None  # past the age limit: probed again
