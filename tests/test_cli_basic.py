"""The CLI shell: help, version, exit codes, and a light start-up that imports no UI and no framework."""

from __future__ import annotations

import json
import subprocess
import sys

from advisor import __version__
from advisor.cli.commands import COMMANDS

HEAVY = ("textual", "rich", "torch", "jax", "tensorflow", "pydantic", "yaml", "numpy")


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, env=env)


def test_help_lists_every_command_and_exit_codes(cli_env: dict[str, str]) -> None:
    out = _run(["--help"], cli_env)
    assert out.returncode == 0
    for name in ("probe", "bench", "report", "checklist", "kb", "tui"):
        assert name in out.stdout
    assert "exit codes" in out.stdout and "bad usage or bad input" in out.stdout
    assert set(COMMANDS) >= {"probe", "bench", "report", "checklist", "kb", "tui"}


def test_help_imports_no_ui_and_no_framework(cli_env: dict[str, str]) -> None:
    code = (
        "import sys, json, contextlib, io\n"
        "from advisor.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['--help'])\n"
        "    except SystemExit: pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env, check=True)
    assert json.loads(out.stdout) == []


def test_version(cli_env: dict[str, str]) -> None:
    out = _run(["--version"], cli_env)
    assert out.returncode == 0 and out.stdout.strip() == f"fwadvisor {__version__}"


def test_bad_flag_exits_2(cli_env: dict[str, str]) -> None:
    out = _run(["kb", "list", "--no-such-flag"], cli_env)
    assert out.returncode == 2 and "unrecognized arguments" in out.stderr


def test_kb_show_unknown_framework_is_one_line_exit_2(cli_env: dict[str, str]) -> None:
    out = _run(["kb", "show", "theano"], cli_env)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "unknown framework 'theano'" in out.stderr


def test_kb_show_json_is_json(cli_env: dict[str, str]) -> None:
    out = _run(["kb", "show", "pytorch", "--json"], cli_env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["id"] == "pytorch" and "scores" in data


def test_kb_list_json_names_packs(cli_env: dict[str, str]) -> None:
    out = _run(["kb", "list", "--json"], cli_env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["packs"][0]["name"] == "builtin"
    assert "pytorch" in data["frameworks"]
