"""The one writer keeps every document: saved before rendering, rescued when a write fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
