"""One scrubber over everything written: user and host names next to '-' or '_', rendezvous hosts, team documents."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.cli import main
from advisor.privacy import scrub_text

ROOT = Path(__file__).resolve().parent.parent
USER, HOST = "alicesecret", "bigsecrethost"  # stand-ins: this machine's own names are too short or fixed
EXAMPLES = ROOT / "docs" / "examples" / "team"
SAVED = ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json"


@pytest.fixture
def names(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's user and host are USER and HOST (the host is faked: the test cannot rename the machine)."""
    import platform

    monkeypatch.setenv("LOGNAME", USER)
    monkeypatch.setenv("USER", USER)
    monkeypatch.setattr(platform, "node", lambda: f"{HOST}.example.lan")
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")


SEPARATORS = st.sampled_from(["-", "_", ".", "/", " ", "", "=", "@", ":"])


@given(before=SEPARATORS, after=SEPARATORS, upper=st.booleans())
def test_names_next_to_separators_are_hidden(before: str, after: str, upper: bool) -> None:
    import getpass
    import platform

    user, host = getpass.getuser(), platform.node()
    if len(user) < 3 or user == "root" or len(host) < 3 or host == "localhost":
        pytest.skip("this machine's names are too short or generic to be scrubbed")
    for name in (user, host, host.split(".")[0]):
        text = f"runs{before}{name.upper() if upper else name}{after}x" if before or after else f"{name}"
        assert name.lower() not in scrub_text(text).lower(), text


def test_names_next_to_separators_are_hidden_for_these_names(names: None) -> None:
    text = f"/data/{USER}_runs/report_{HOST}.json {HOST}-2 {USER}-laptop {HOST.upper()}.example.lan"
    out = scrub_text(text)
    assert USER not in out and HOST not in out.lower(), out


def test_team_documents_hide_member_files_paths_and_labels(names: None, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / f"{USER}_runs"
    runs.mkdir()
    members = []
    for name in ("researcher", "platform"):
        members.append(runs / f"{name}_{HOST}.yaml")
        shutil.copy(EXAMPLES / f"{name}.yaml", members[-1])
    bad = runs / f"broken_{USER}.yaml"
    bad.write_text("team: [\n")
    code = main(["team", "decide", *map(str, members), str(bad), "--from-json", str(SAVED), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert USER not in out and HOST not in out, "team decide leaked a user or host name"
    report = runs / f"report_{HOST}.json"
    shutil.copy(SAVED, report)
    for fmt in ("--json", "--markdown"):
        assert main(["team", "merge", str(report), fmt]) == 0
        out = capsys.readouterr().out
        assert USER not in out and HOST not in out, f"team merge {fmt} leaked a user or host name"


def test_report_profile_source_is_scrubbed(names: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / f"{USER}-profiles" / f"team_{HOST}.yaml"
    profile.parent.mkdir()
    shutil.copy(EXAMPLES / "researcher.yaml", profile)
    assert main(["report", "--profile", str(profile), "--from-json", str(SAVED), "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["profile"]["source"] and USER not in out and HOST not in out


def test_bench_json_holds_no_rendezvous_host_or_job_id(tmp_path: Path) -> None:
    """A real bench (PyTorch, CPU, a*x+y only: nothing connects to the endpoint) records its argv scrubbed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), FWADVISOR_NO_USER_PACKS="1")
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "bench", "--preset", "test", "--framework", "pytorch", "--only",
         "elementwise", "--device", "cpu", "--quiet", "--json", "--rdzv-endpoint", "gpu-node-secret7.corp:29500",
         "--rdzv-id", "job-secret-4242", "--master-addr", "10.9.8.7"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["environment"]["argv"], "the command line is recorded"
    for secret in ("gpu-node-secret7", "job-secret-4242", "10.9.8.7"):
        assert secret not in proc.stdout, f"{secret} was recorded"


@pytest.mark.parametrize("flags", [["--rdzv-endpoint", ";rm -rf /"], ["--rdzv-endpoint", "[/]:29500"],
                                   ["--rdzv-endpoint", "host:70000"], ["--rdzv-id", "a b"],
                                   ["--master-addr", "$(id)"], ["--rdzv-backend", "c10d;x"]])
def test_rendezvous_flags_are_checked_before_anything_runs(flags: list[str],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--preset", "test", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fwadvisor: error: --") and err.count("\n") == 1


@pytest.mark.parametrize("name", ["pytorch", "team", "gpu", "JAX"])
def test_a_name_that_is_one_of_the_tools_own_words_leaves_the_advice_alone(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user or host named like a framework id or a schema code: hiding it would rewrite the advice itself."""
    import platform

    monkeypatch.setenv("LOGNAME", name)
    monkeypatch.setenv("USER", name)
    monkeypatch.setattr(platform, "node", lambda: name)
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")
    assert main(["report", "--from-json", str(SAVED), "--json"]) == 0
    out = capsys.readouterr().out
    assert "<user>" not in out and "<host>" not in out
    monkeypatch.delenv("LOGNAME")
    monkeypatch.delenv("USER")
    monkeypatch.setattr(platform, "node", lambda: "bigsecrethost")
    assert main(["report", "--from-json", str(SAVED), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recommendation"] == json.loads(out)["recommendation"]
