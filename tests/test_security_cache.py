"""The probe cache is input like any other: FIFOs, links and entries of the wrong shape are misses, with one note.

A stand-in framework's probe script (a real child process, as in tests/test_probe_cache.py) counts its runs.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.evidence import probe_cache
from advisor.evidence.probe import probe_frameworks_cached
from tests.test_probe_cache import _adapter, _runs
from tests.test_probe_cache import stub as stub  # noqa: PLC0414 - the fixture, re-exported for these tests


def _probe(root: Path, notes: list[str]) -> dict[str, Any]:
    """Probe the stand-in with the cache, in a thread, failing the test if it hangs."""
    got: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: got.update(probe_frameworks_cached(
        [_adapter(root)], fresh=False, timeout=30, on_event=None, cancel=None, notes=notes)), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the probe hung on the cache entry"
    return got


def _entry_path(root: Path) -> Path:
    folder = probe_cache.cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"stubfw-{probe_cache.cache_key(_adapter(root))}.json"


def test_a_fifo_named_like_an_entry_is_a_miss_not_a_hang(stub: tuple[Path, Path]) -> None:
    root, counter = stub
    os.mkfifo(_entry_path(root))
    notes: list[str] = []
    got = _probe(root, notes)
    assert got["stubfw"].outcome == "ok" and got["stubfw"].cached_age_s is None and _runs(counter) == 1
    assert len(notes) == 1 and "FIFO" in notes[0]


def test_a_link_named_like_an_entry_is_replaced_not_written_through(stub: tuple[Path, Path]) -> None:
    root, counter = stub
    victim = root / "victim.txt"
    victim.write_text("the user's data\n")
    entry = _entry_path(root)
    entry.symlink_to(victim)
    notes: list[str] = []
    got = _probe(root, notes)
    assert got["stubfw"].outcome == "ok" and _runs(counter) == 1
    assert victim.read_text() == "the user's data\n", "the link's target was overwritten"
    assert not entry.is_symlink() and json.loads(entry.read_text())["probe"]["id"] == "stubfw"
    assert len(notes) == 1 and "symbolic link" in notes[0]


SHAPES = st.one_of(
    st.just([]), st.just("entry"), st.just(None),
    st.fixed_dictionaries({"key": st.just("0" * 32), "stored": st.just(time.time())}),
    st.fixed_dictionaries({"key": st.integers(), "stored": st.just(1.0), "probe": st.just({})}),
    st.builds(lambda probe: {"key": "KEY", "stored": time.time(), "probe": probe}, st.one_of(
        st.just([]), st.just({"id": "stubfw"}),
        st.fixed_dictionaries({"id": st.just("stubfw"), "installed": st.just(True), "distribution": st.none(),
                               "version": st.integers(), "outcome": st.just("ok")}),
        st.fixed_dictionaries({"id": st.just("stubfw"), "installed": st.just(True), "distribution": st.none(),
                               "version": st.just("1"), "outcome": st.just("ok"),
                               "devices": st.sampled_from(["cpu", [1, 2], {"a": 1}])}),
        st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))),
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=SHAPES)
def test_an_entry_of_the_wrong_shape_is_probed_again_with_one_note(stub: tuple[Path, Path], shape: Any) -> None:
    root, counter = stub
    entry = _entry_path(root)
    before = _runs(counter)
    key = probe_cache.cache_key(_adapter(root))
    text = json.dumps(shape).replace('"KEY"', json.dumps(key))
    entry.unlink(missing_ok=True)
    entry.write_text(text)
    notes: list[str] = []
    got = _probe(root, notes)
    assert got["stubfw"].outcome == "ok" and got["stubfw"].cached_age_s is None
    assert _runs(counter) == before + 1, "the framework was probed again"
    assert len(notes) == 1 and str(entry) in notes[0] and "\n" not in notes[0]


def test_an_answer_from_the_cache_says_so_in_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.commands.probe import _print_frameworks
    from advisor.cli.output import console

    fw = {"installed": True, "version": "1.0", "outcome": "ok", "cached_age_s": 42.0, "devices": []}
    _print_frameworks(console(), {"stubfw": fw})
    cells = " ".join(line.split("│")[3] for line in capsys.readouterr().out.splitlines() if line.count("│") > 3)
    assert "from the probe cache" in " ".join(cells.split())
