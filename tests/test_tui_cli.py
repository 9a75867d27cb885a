"""`fwadvisor tui` (and `fwadvisor` alone): Textual loads only when the app opens; bad input is one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_parser_and_help_do_not_import_textual(cli_env) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import sys\n"
        "from advisor.cli import build_parser\n"
        "build_parser().parse_args(['tui', '--fresh'])\n"
        "print('textual' in sys.modules, 'advisor.tui.app' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env, check=True)
    assert out.stdout.split() == ["False", "False"]
    helped = subprocess.run(
        [sys.executable, "-m", "advisor", "tui", "--help"], capture_output=True, text=True, env=cli_env, check=True
    )
    assert "--fresh" in helped.stdout and "--report" in helped.stdout


def test_a_bad_report_is_one_line_and_exit_2(cli_env, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    done = subprocess.run(
        [sys.executable, "-m", "advisor", "tui", "--report", str(bad)],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "bad.json:1" in done.stderr
