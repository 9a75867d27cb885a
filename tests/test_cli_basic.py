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


def test_kb_show_prints_a_packs_brackets_as_text_not_markup(cli_env: dict[str, str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A user's overlay pack is data: "[/]" in it must neither crash Rich's markup parser nor style the output.
    pack = tmp_path / "packs" / "markup"
    pack.mkdir(parents=True)
    (pack / "pack.yaml").write_text(
        "name: markup\nversion: '1'\nscore_overrides:\n"
        "  - framework: pytorch\n    criterion: performance\n    score:\n      score: 4\n"
        "      rationale: 'Fast [/] and [bold]loud[/bold] on [red]'\n      sources: [https://pytorch.org/]\n"
        "      as_of: 2026-10-01\n",
        encoding="utf-8",
    )
    env = {**cli_env, "FWADVISOR_CONFIG_DIR": str(tmp_path), "COLUMNS": "300"}
    env.pop("FWADVISOR_NO_USER_PACKS", None)
    out = _run(["kb", "show", "pytorch"], env)
    assert out.returncode == 0, out.stderr
    assert "Fast [/] and [bold]loud[/bold] on [red]" in out.stdout
    # ... and the tool's own styles are objects, never tags printed as text.
    assert out.stdout.count("[bold]") == 1 and "Sources (maintainer, licence, Python)" in out.stdout


def test_bench_progress_prints_a_childs_brackets_as_text() -> None:
    import io

    from rich.console import Console

    from advisor.cli.commands.bench import _progress_printer
    from advisor.evidence.bench.results import BenchEvent, BenchFailure

    out = io.StringIO()
    show = _progress_printer(Console(file=out, width=200, color_system=None))
    error = "InvalidArgumentError: [/job:localhost/replica:0] shapes [bold] differ"  # TensorFlow-style device names
    show(BenchEvent("failure", "tensorflow", failure=BenchFailure("tensorflow", "gemm", "cpu", "error", error)))
    show(BenchEvent("note", "jax", message="restarting after [/crash]"))
    assert error in out.getvalue() and "restarting after [/crash]" in out.getvalue()
