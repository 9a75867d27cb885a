"""What leaves the tool: no planted secret or home path, devices and FIFOs kept, strict JSON, quiet broken pipes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.atomic import atomic_write_text
from advisor.cli import main
from advisor.errors import OutputError
from advisor.jsonio import json_text
from advisor.privacy import RECORDED_ENV, recorded_env, scrub, scrub_text

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE = ROOT / "tests" / "fixtures" / "evidence"
HOME = os.path.expanduser("~")
SECRETS = {
    "TF_VAR_db_password": "hunter2-planted-secret",
    "TF_TOKEN_app_terraform_io": "planted-terraform-token",
    "JAX_SECRET_KEY": "planted-jax-secret",
    "OMP_PASSWORD": "planted-omp-password",
    "MKL_API_KEY": "planted-mkl-key",
    "CUDA_VISIBLE_SECRET": "planted-cuda-secret",
    "XLA_FLAGS_TOKEN": "planted-xla-token",
    "TF_CLI_CONFIG_FILE": f"{HOME}/.terraformrc-planted",
}


@pytest.fixture(autouse=True)
def _no_user_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Secrets and a home path in the environment, under names a prefix allow-list would have recorded."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XLA_FLAGS", f"--xla_dump_to={HOME}/xla-dumps")
    return SECRETS


def _assert_clean(text: str) -> None:
    for name, value in SECRETS.items():
        assert value not in text, f"{name}'s value leaked"
        assert name not in text, f"{name} was recorded"
    assert ".terraformrc-planted" not in text
    if HOME not in ("/", ""):
        assert f"{HOME}/" not in text, "the home folder leaked"


def test_the_allow_list_is_exact_names_only() -> None:
    env = {**SECRETS, "OMP_NUM_THREADS": "2", "XLA_FLAGS": f"--xla_dump_to={HOME}/d", "HOME": HOME}
    got = recorded_env(env)
    assert got == {"OMP_NUM_THREADS": "2", "XLA_FLAGS": "--xla_dump_to=~/d"}
    assert all(name.isupper() and not name.endswith("_") for name in RECORDED_ENV)


def test_probe_json_holds_no_planted_secret(planted: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["probe", "--fast", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    _assert_clean(out + err)
    assert json.loads(out)["software"]["env"]["XLA_FLAGS"] == "--xla_dump_to=~/xla-dumps"


def test_report_from_json_holds_no_planted_secret(
    planted: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A saved probe/bench that recorded secrets under the old prefix rule is re-scored without repeating them
    # in the home folder; the profile's source path (in the home folder here) is scrubbed too.
    from advisor.knowledge import load_knowledge
    from advisor.profile import Profile, resolve_profile
    from advisor.report import build_report, to_json_text
    from advisor.scoring import assess

    kb = load_knowledge(include_user=False)
    from advisor.evidence.probe import ProbeReport

    probe = ProbeReport.from_json(json.loads((EVIDENCE / "probe_cpu_only.json").read_text()))
    probe.software.env.update(SECRETS)  # as an older fwadvisor recorded them (by prefix)
    probe.software.pip = f"{HOME}/work/.venv/bin/pip"
    assessment = assess(kb, resolve_profile(Profile(), kb), probe=probe, bench=None, seed=0)
    report = build_report(assessment, kb, probe=probe, bench=None, profile_source=f"{HOME}/work/profile.yaml")
    assert report.profile.source == "~/work/profile.yaml"
    saved = tmp_path / "r.json"
    saved.write_text(to_json_text(report))
    code = main(["report", "--from-json", str(saved), "--json", "-o", str(tmp_path / "out.json")])
    out, err = capsys.readouterr()
    assert code == 0, err
    _assert_clean(out + err + (tmp_path / "out.json").read_text())


@pytest.mark.frameworks
def test_bench_and_live_report_hold_no_planted_secret(
    planted: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real thing: one tiny benchmark (PyTorch dispatch, test preset) and a live report, both scanned."""
    saved = tmp_path / "bench.json"
    code = main(["bench", "--preset", "test", "--only", "dispatch", "--framework", "pytorch", "--no-baseline",
                 "--json", "--quiet", "--save", str(saved)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    _assert_clean(out + err + saved.read_text())
    env = json.loads(saved.read_text())["environment"]
    assert set(env["env"]) <= set(RECORDED_ENV)
    profile = tmp_path / "p.yaml"
    profile.write_text("frameworks: [pytorch]\n")
    out_file = tmp_path / "report.json"
    code = main(["report", "--profile", str(profile), "--no-bench", "--json", "-o", str(out_file)])
    out, err = capsys.readouterr()
    assert code == 0, err
    _assert_clean(out + err + out_file.read_text())


def test_scrub_hides_homes_user_and_host() -> None:
    import platform

    text = f"{HOME}/x and /home/alice/y and /Users/bob/z"
    assert scrub_text(text) == "~/x and /home/<user>/y and /home/<user>/z"
    node = platform.node()
    if len(node) >= 3 and node != "localhost":
        assert node not in scrub_text(f"built on {node}.")
    assert scrub({"hostname": "h", "a": [f"{HOME}/q"]}) == {"a": ["~/q"]}


# --- the one writer ---------------------------------------------------------------------------------------------


def test_dev_null_stays_a_character_device(capsys: pytest.CaptureFixture[str]) -> None:
    # As root (this machine), renaming a temp file over /dev/null would succeed and replace the device.
    before = os.stat("/dev/null")
    code = main(["profile", "init", "-o", "/dev/null"])  # no --force: a device is no file to protect
    assert code == 0, capsys.readouterr().err
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_a_fifo_with_a_reader_gets_the_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there before the writer opens
    try:
        code = main(["profile", "init", "-o", str(fifo), "--force"])
        chunks = []
        while chunk := os.read(reader, 65536):  # the template fits the pipe buffer; EOF once the writer closed
            chunks.append(chunk)
    finally:
        os.close(reader)
    assert code == 0, capsys.readouterr().err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b"weights" in b"".join(chunks)


def test_a_fifo_without_a_reader_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "lonely.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="no reader"):
        atomic_write_text(fifo, "x")


@pytest.mark.parametrize("kind", ["folder", "socket", "unwritable"])
def test_bad_output_paths_are_one_line_before_the_run(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    if kind == "folder":
        target = tmp_path / "dir"
        target.mkdir()
    elif kind == "socket":
        target = tmp_path / "s.sock"
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
    else:
        target = Path("/proc/version")  # not writable even for root
    for args in (["bench", "--save", str(target)], ["report", "--no-bench", "-o", str(target)],
                 ["checklist", "--framework", "jax", "-o", str(target)]):
        code = main(args)
        out, err = capsys.readouterr()
        assert code == 2 and err.count("\n") == 1 and str(target) in err, err
        assert out == ""  # refused before any probe or benchmark ran


def test_a_failed_write_keeps_the_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A write that fails after the work (here: the folder vanished for a file) keeps the document."""
    from advisor.cli.output import write_file
    from advisor.paths import user_data_dir

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.raises(OutputError, match="kept in"):
        write_file(str(blocker / "bench.json"), '{"measured": 1}\n', rescue="bench")
    kept = list((user_data_dir() / "unsaved").glob("bench-*.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text()) == {"measured": 1}


def test_temp_file_is_removed_on_sigterm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real SIGTERM mid-write, with the handler that turns it into SystemExit: old file kept, no temp left."""
    import signal

    target = tmp_path / "keep.json"
    target.write_text("old")

    def to_exit(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, to_exit)
    # The signal arrives while the temp file is open and unrenamed (between the write and the rename).
    monkeypatch.setattr(os, "fsync", lambda _fd: os.kill(os.getpid(), signal.SIGTERM))
    try:
        with pytest.raises(SystemExit):
            atomic_write_text(target, "new")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["keep.json"]


# --- JSON and text hygiene --------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.recursive(st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=4) | st.none(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                 max_size=3), max_leaves=10))
def test_json_out_is_strict(value: Any) -> None:
    text = json_text(value)
    json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} written into JSON"))
    assert "NaN" not in text.replace('"NaN"', "") or "NaN" in str(value)


def test_control_characters_are_escaped_in_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.report import Report, to_markdown

    report_path = ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json"
    report = json.loads(report_path.read_text())
    report["recommendation"]["summary"] = "evil \x1b[2J\x07\x00 summary \x9b"
    md = to_markdown(Report.model_validate(report))
    # Written as \x1b and so on, with Markdown's own backslash escaped so that a reader sees "\x1b[2J".
    assert "\\\\x1b\\[2J\\\\x07\\\\x00" in md and "\\\\x9b" in md
    assert not any(ord(c) < 32 and c not in "\n\t" for c in md)


def test_compare_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    """`compare a b | head -1`: no traceback, no silent exit 1, but 141 (128 + SIGPIPE) as other CLIs."""
    report = ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    code = (
        "import sys\nfrom advisor.cli import main\n"
        f"sys.exit(main(['compare', {str(report)!r}, {str(report)!r}] + sys.argv[1:]))\n"
    )
    for extra in ([], ["--json"]):
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader is gone before the first write, as `head -1` is after its line
        try:
            proc = subprocess.run([sys.executable, "-c", code, *extra], stdout=write_end, stderr=subprocess.PIPE,
                                  env=env, timeout=120, check=False)
        finally:
            os.close(write_end)
        err = proc.stderr.decode()
        assert proc.returncode == 141, err
        assert "Traceback" not in err and "Exception ignored" not in err, err


def test_two_tickers_at_once_lose_no_tick(tmp_path: Path) -> None:
    """Two real processes tick 15 items each into one progress file at the same time: all 30 are kept."""
    path = tmp_path / "progress.json"
    code = (
        "import sys\nfrom advisor.progress import ProgressStore\n"
        "store = ProgressStore(sys.argv[1])\n"
        "for i in range(15):\n    store.set_done('jax', 'pytorch', f'{sys.argv[2]}.{i}')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), who], env=env) for who in ("a", "b")]
    assert [p.wait(120) for p in procs] == [0, 0]
    from advisor.progress import ProgressStore

    done = ProgressStore(path).done("jax", "pytorch")
    assert set(done) == {f"{who}.{i}" for who in ("a", "b") for i in range(15)}


def test_compare_escapes_control_characters_and_markup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = json.loads((ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json").read_text())
    report["machine"]["cpu"] = "evil\x1b[2J\x07[bold red]CPU[/]"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(report))
    code = main(["compare", str(path), str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b" in out and "bold red" in out  # shown escaped, and the markup as text, not as a style
