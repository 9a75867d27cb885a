"""The one stderr progress bar: drawn on a terminal (a real pty), never on a pipe, its text never read as markup."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import tempfile
import time

from _scoring_support import ROOT

EXAMPLES = ROOT / "docs" / "examples" / "team"
SAVED = ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json"  # a real `report --no-bench --json`


def _run_with_tty_stderr(argv: list[str], env: dict[str, str], timeout: float = 120) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (so the bar is drawn) and stdout on a pipe; returns (rc, out, tty)."""
    leader, follower = pty.openpty()
    # stdout to a file, not a pipe: a report larger than a pipe's buffer would block the child while we read the pty.
    out_file = tempfile.TemporaryFile()
    proc = subprocess.Popen(argv, stdout=out_file, stderr=follower, stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + timeout
    while True:
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the command did not end in {timeout} s")
        if not select.select([leader], [], [], 1.0)[0]:
            continue
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed its end of the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    rc = proc.wait(timeout=30)
    out_file.seek(0)
    return rc, out_file.read().decode(), seen.decode(errors="replace")


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    return env


def test_description_from_outside_is_shown_literally_not_as_markup() -> None:
    code = (
        "from advisor.cli.progress import StderrBar\n"
        "with StderrBar('asking pip') as bar:\n"
        "    assert bar.bar is not None, 'stderr is a terminal: the bar must be drawn'\n"
        "    bar.update(done=1, total=2, description='[bold red]pkg[/bold red] (0.1 s)')\n"
        "    bar.bar.refresh()\n"
    )
    rc, _, tty = _run_with_tty_stderr([sys.executable, "-c", code], _env())
    assert rc == 0, tty
    assert "[bold red]pkg[/bold red]" in tty
    assert "1/2" in tty


def test_no_bar_when_stderr_is_not_a_terminal() -> None:
    code = "from advisor.cli.progress import StderrBar\nwith StderrBar('x') as bar:\n    print(bar.bar is None)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=60)
    assert out.stdout.strip() == "True" and out.stderr == ""


def test_team_decide_draws_its_bar_on_a_terminal_and_keeps_stdout_clean() -> None:
    members = [str(EXAMPLES / n) for n in ("researcher.yaml", "platform.yaml", "lead.yaml")]
    argv = [sys.executable, "-m", "advisor", "team", "decide", *members, "--from-json", str(SAVED), "--json"]
    rc, out, tty = _run_with_tty_stderr(argv, _env())
    assert rc == 0, tty
    assert out.lstrip().startswith("{")  # the JSON alone on stdout
    assert "scoring each member" in tty or "how fragile, per member" in tty
