"""The import rules hold at run time too: the core pulls in no UI and no framework, whatever it loads."""

from __future__ import annotations

import json
import subprocess
import sys

CORE = [
    "advisor.knowledge", "advisor.evidence.probe", "advisor.evidence.bench", "advisor.evidence.child",
    "advisor.scoring", "advisor.report", "advisor.profile", "advisor.checklist", "advisor.team",
    "advisor.progress", "advisor.frameworks",
]
FORBIDDEN = ["textual", "rich", "torch", "jax", "jaxlib", "tensorflow", "keras", "flax", "mlx"]


def _loaded_after(code: str, cli_env: dict[str, str]) -> list[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(m for m in {FORBIDDEN!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=cli_env, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_importing_the_core_loads_no_ui_and_no_framework(cli_env: dict[str, str]) -> None:
    assert _loaded_after("\n".join(f"import {m}" for m in CORE), cli_env) == []


def test_loading_knowledge_and_the_fast_probe_load_no_ui_and_no_framework(cli_env: dict[str, str]) -> None:
    code = (
        "from advisor.knowledge import load_knowledge\n"
        "from advisor.evidence.probe import run_probe\n"
        "kb = load_knowledge(include_user=False)\n"
        "run_probe(fast=True, kb=kb)\n"
    )
    assert _loaded_after(code, cli_env) == []
