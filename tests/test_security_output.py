"""The one writer keeps every document: saved before rendering, rescued when a write fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.errors import OutputError

ROOT = Path(__file__).resolve().parent.parent


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), FWADVISOR_DATA_DIR=str(tmp_path / "data"),
               FWADVISOR_NO_USER_PACKS="1")
    env.pop("FWADVISOR_CONFIG_DIR", None)
    return env


def test_bench_save_is_written_although_the_table_cannot_be_shown(tmp_path: Path) -> None:
    """A real bench (PyTorch, CPU, a*x+y only) whose stdout reader is gone before the table: the file is saved."""
    saved = tmp_path / "bench.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", "bench", "--preset", "test", "--framework", "pytorch", "--only",
         "elementwise", "--device", "cpu", "--quiet", "--save", str(saved)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path), cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader went away (`| true`): drawing the table raises BrokenPipeError
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141, err
    assert "Traceback" not in err
    data = json.loads(saved.read_text())
    assert data["results"], "the measurements were saved"


def test_team_and_checklist_documents_are_rescued_when_the_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails after the check (the folder became a file) keeps the document in unsaved/."""
    import argparse

    from advisor.cli.output import emit_document
    from advisor.paths import user_data_dir

    blocker = tmp_path / "was-a-folder"
    blocker.write_text("")
    for rescue in ("team-decision", "team-summary", "checklist"):
        args = argparse.Namespace(output=str(blocker / "out.md"), json=False, markdown=True)
        with pytest.raises(OutputError, match="kept in"):
            emit_document(args, {"a": 1}, f"# {rescue}\n", rescue=rescue)
        kept = list((user_data_dir() / "unsaved").glob(f"{rescue}-*.md"))
        assert len(kept) == 1 and kept[0].read_text() == f"# {rescue}\n"


def test_a_lost_report_is_not_said_to_be_on_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither -o nor the rescue folder can be written, and stdout held only the summary: the error says so."""
    from advisor.cli.output import write_file

    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("FWADVISOR_DATA_DIR", str(blocker / "data"))
    with pytest.raises(OutputError) as err:
        write_file(str(blocker / "r.json"), "{}\n", rescue="report")
    assert "stdout" not in str(err.value) and "could not be kept" in str(err.value)
    with pytest.raises(OutputError, match="on stdout only"):
        write_file(str(blocker / "r.json"), "{}\n", rescue="report", on_stdout=True)


def test_the_rescue_folder_never_follows_a_link(tmp_path: Path) -> None:
    """unsaved/ is fwadvisor's own folder: a link planted under a rescue name is replaced, not written through."""
    from advisor.atomic import atomic_write_text

    victim = tmp_path / "victim"
    victim.write_text("keep")
    link = tmp_path / "owned" / "bench-1.json"
    link.parent.mkdir()
    link.symlink_to(victim)
    atomic_write_text(link, "{}", owned=True)
    assert victim.read_text() == "keep" and not link.is_symlink() and link.read_text() == "{}"


@pytest.mark.parametrize("flags", [[], ["--markdown"]])
def test_an_ascii_only_stdout_gets_escapes_not_a_traceback(tmp_path: Path, flags: list[str]) -> None:
    env = _env(tmp_path) | {"PYTHONIOENCODING": "ascii"}
    report = ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json"
    proc = subprocess.run([sys.executable, "-m", "advisor", "report", "--from-json", str(report), *flags],
                          capture_output=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert proc.stdout.isascii() and b"Traceback" not in proc.stderr
