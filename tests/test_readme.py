"""The README stays true: its test command is the one CI runs, and its samples are today's real output.

A sample is a fenced block after `<!-- sample: ARGS | sections: A; B -->` and before `<!-- /sample -->`: the
real `fwadvisor ARGS` output, cut to its title, its first paragraph and the named `## ` sections ("..." where
lines are left out). `FWADVISOR_UPDATE_README=1 python -m pytest tests/test_readme.py` rewrites the samples.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SAMPLE = re.compile(r"<!-- sample: (?P<args>[^|>]+?)(?: \| sections: (?P<sections>[^>]+?))? -->\n```\n"
                    r"(?P<body>.*?)```\n<!-- /sample -->", re.S)


def _block(text: str, start: str) -> str:
    """The first fenced bash block after the line `start`."""
    after = text.split(start, 1)[1]
    return after.split("```bash\n", 1)[1].split("```", 1)[0].strip()


def test_the_readme_test_command_is_what_ci_runs() -> None:
    text = README.read_text()
    command = _block(text, "Set up and run the tests")
    ci = (ROOT / ".ci" / "run").read_text()
    verbatim = ci.split("# --- the README's test command, verbatim ---\n", 1)[1].split("\n# ---", 1)[0].strip()
    assert command == verbatim


def test_the_readme_run_command_installs_no_framework() -> None:
    """The run command installs fwadvisor alone: a user's own frameworks are measured where they live."""
    command = _block(README.read_text(), "Set up and run the advisor")
    assert "frameworks.txt" not in command and command.endswith("fwadvisor")
    for name in ("torch", "jax", "tensorflow", "mlx"):
        assert name not in command


def cut(output: str, sections: list[str]) -> str:
    """The title, the first paragraph, and the named `## ` sections of Markdown `output`, in order."""
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in output.splitlines():
        if line.startswith("## "):
            parts.append((line[3:].strip(), []))
        parts[-1][1].append(line)
    out = "\n".join(parts[0][1]).strip()
    skipped = False
    for title, lines in parts[1:]:
        if title in sections:
            out += ("\n...\n" if skipped else "\n\n") + "\n".join(lines).strip()
            skipped = False
        else:
            skipped = True
    missing = set(sections) - {t for t, _ in parts}
    assert not missing, f"the output has no section {sorted(missing)}"
    return out + "\n...\n"


def _run(args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", "NO_COLOR": "1"}
    argv = shlex.split(args)
    assert argv[0] == "fwadvisor"
    proc = subprocess.run([sys.executable, "-m", "advisor", *argv[1:]], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.frameworks
def test_readme_samples_are_real_output() -> None:
    text = README.read_text()
    samples = list(SAMPLE.finditer(text))
    assert samples, "the README has no generated sample"
    updated = text
    for m in samples:
        sections = [s.strip() for s in (m["sections"] or "").split(";") if s.strip()]
        fresh = cut(_run(m["args"].strip()), sections)
        if os.environ.get("FWADVISOR_UPDATE_README") == "1":
            updated = updated.replace(m.group(0), m.group(0).replace(m["body"], fresh))
        else:
            assert m["body"] == fresh, (
                f"the README's sample of `{m['args'].strip()}` is out of date; "
                "FWADVISOR_UPDATE_README=1 python -m pytest tests/test_readme.py rewrites it"
            )
    if updated != text:
        README.write_text(updated)
