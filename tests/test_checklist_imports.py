"""The checklist, team and progress modules stay in the core: no Rich, no Textual, no framework, at run time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import json, sys
from pathlib import Path
from advisor.checklist import build_checklist
from advisor.knowledge import load_knowledge
from advisor.progress import ProgressStore
from advisor.team import merge_reports

root = Path(sys.argv[1])
kb = load_knowledge(include_user=False, base=root / "tests/fixtures/checklist/kb")
team = root / "tests/fixtures/team"
summary = merge_reports(kb, sorted(team.glob("*.json")), framework="jax", from_framework="pytorch")
summary.to_markdown()
build_checklist(kb, "tensorflow", None).to_markdown()
ProgressStore(Path(sys.argv[2]) / "p.json").set_done("jax", None, "task.export")
bad = ("rich", "textual", "torch", "jax", "tensorflow", "keras", "advisor.cli", "advisor.tui")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in bad or m.startswith(bad[-2:]))))
"""


def test_core_modules_import_no_ui_and_no_framework(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
