"""Hostile input (profiles, reports, packs, flags): only the tool's own errors come out, as one line and exit 2.

The CLI is called in-process (`advisor.cli.main`), so any exception other than the tool's own escapes the
test as a failure; hypothesis draws small numbers of examples so the suite runs in seconds.
"""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor import limits
from advisor.cli import main

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE = ROOT / "tests" / "fixtures" / "evidence"
ACME = ROOT / "docs" / "examples" / "acme-pack"
FEW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(autouse=True)
def _no_user_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FWADVISOR_NO_USER_PACKS", "1")


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`fwadvisor ARGS` in-process; any exception that is not the tool's own propagates and fails the test."""
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, *needles: str) -> None:
    """Exit 2, exactly one stderr line, `fwadvisor: error:` first, no raw control character, and the needles."""
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("fwadvisor: error: "), err
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in err[:-1]), repr(err)
    for needle in needles:
        assert needle in err, (needle, err)


@pytest.fixture(scope="module")
def good_report() -> dict[str, Any]:
    """A valid report from the recorded probe and bench fixtures (no measuring)."""
    from advisor.knowledge import load_knowledge
    from advisor.profile import Profile, resolve_profile
    from advisor.report import build_report
    from advisor.scoring import assess

    kb = load_knowledge(include_user=False)
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport

    probe = ProbeReport.from_json(json.loads((EVIDENCE / "probe_cpu_only.json").read_text()))
    bench = BenchReport.from_json(json.loads((EVIDENCE / "bench_quick_cpu.json").read_text()))
    resolved = resolve_profile(Profile(), kb)
    assessment = assess(kb, resolved, probe=probe, bench=bench, seed=0)
    return build_report(assessment, kb, probe=probe, bench=bench, profile_source="default").model_dump(mode="json")


# --- profiles ---------------------------------------------------------------------------------------------------

_SCALARS = st.one_of(
    st.sampled_from([".inf", "-.inf", ".nan", "1e400", "-1", "0", "1e308", "2026-13-45", "2026-02-30", "~", "''",
                     "yes", "\"\\e[31m\\a\\0\"", "[]", "{}", "pytorch", "-1e400"]),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
_KEYS = st.sampled_from(["scenario", "team", "codebase", "frameworks", "weights", "pairwise", "constraints",
                         "current", "experience", "size", "kloc", "performance", "ecosystem", "pytorch", "as_of",
                         "must_run_on", "\x1b[2J"])


@st.composite
def profile_texts(draw: st.DrawFn) -> str:
    """YAML text shaped like a profile, with hostile scalars (inf, 1e400, bad dates, escapes) in random places."""
    lines = []
    for key in draw(st.lists(_KEYS, min_size=1, max_size=4, unique=True)):
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(_SCALARS)}")
        else:
            lines.append(f"{key}:")
            for sub in draw(st.lists(_KEYS, min_size=1, max_size=3, unique=True)):
                lines.append(f"  {sub}: {draw(_SCALARS)}")
    return "\n".join(lines) + "\n"


@FEW
@given(text=profile_texts())
def test_hostile_profiles_get_one_line(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    code, _, err = run_cli(["profile", "check", str(path)], capsys)
    if code != 0:
        assert_one_line_error(code, err, str(path))


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("weights:\n  performance: .inf\n", ["profile.yaml:2", "weights.performance", "finite"]),
        ("weights:\n  performance: 1e400\n", ["profile.yaml:2", "weights.performance", "finite"]),
        ("weights:\n  performance: .nan\n", ["weights.performance", "finite"]),
        ("weights:\n  performance: 1e308\n  ecosystem: 1e308\n", ["weights.performance", "less than or equal"]),
        ("pairwise:\n  - [performance, ecosystem, 1e400]\n", ["pairwise[0][2]", "finite"]),
        ("codebase:\n  kloc: .inf\n", ["codebase.kloc", "finite"]),
        ("scenario: 2026-13-45\n", ["profile.yaml:1", "scenario", "invalid date '2026-13-45'"]),
        ("team:\n  current:\n    - 2026-02-30\n", ["profile.yaml:3", "team.current[0]", "invalid date"]),
        ("\"\\e[31mred\\a\\0\": 1\n", ["\\x1b[31mred\\x07\\x00", "unknown field"]),
    ],
)
def test_profile_numbers_dates_and_escapes(
    text: str, needles: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    code, _, err = run_cli(["profile", "check", str(path)], capsys)
    assert_one_line_error(code, err, *needles)


def test_invalid_date_in_a_pack_names_file_line_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(ACME, pack)
    text = (pack / "pack.yaml").read_text()
    assert "as_of:" in text
    (pack / "pack.yaml").write_text(text.replace("as_of: ", "as_of: 2026-13-45 #", 1))
    code, _, err = run_cli(["kb", "validate", str(pack)], capsys)
    assert_one_line_error(code, err, "pack.yaml:", "as_of", "invalid date '2026-13-45'")


_PACK_FILES = st.sampled_from(["pack.yaml", "scenarios.yaml", "criteria.yaml", "frameworks/evil.yaml"])
_PACK_KEYS = st.sampled_from(["name", "version", "policies", "score_overrides", "scenarios", "criteria", "id",
                              "weights", "score", "as_of", "framework", "criterion", "constraints", "\x1b[2J"])


@st.composite
def pack_texts(draw: st.DrawFn) -> str:
    """YAML for one pack file: real keys with hostile scalars, nested one level (lists of mappings too)."""
    lines = ["name: evil", 'version: "1"'] if draw(st.booleans()) else []
    for key in draw(st.lists(_PACK_KEYS, min_size=1, max_size=3, unique=True)):
        if key in ("name", "version"):
            continue
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(_SCALARS)}")
        else:
            lines.append(f"{key}:")
            lines.append(f"  - {draw(_PACK_KEYS)}: {draw(_SCALARS)}")
            for sub in draw(st.lists(_PACK_KEYS, max_size=3, unique=True)):
                lines.append(f"    {sub}: {draw(_SCALARS)}")
    return "\n".join(lines) + "\n"


@FEW
@given(name=_PACK_FILES, text=pack_texts())
def test_hostile_packs_get_one_line(name: str, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack"
    shutil.rmtree(pack, ignore_errors=True)
    shutil.copytree(ACME, pack)
    (pack / name).parent.mkdir(exist_ok=True)
    (pack / name).write_text(text)
    code, _, err = run_cli(["kb", "validate", str(pack)], capsys)
    if code != 0:
        assert_one_line_error(code, err, str(pack))


# --- input files of the wrong kind ------------------------------------------------------------------------------


def _special_inputs(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    return {"FIFO": fifo, "symbolic link loop": loop, "folder": folder, "character device": Path("/dev/zero")}


@pytest.mark.parametrize(
    "command",
    [["report", "--from-json", "{}", "--json"], ["compare", "{}", "{}"], ["profile", "check", "{}"],
     ["checklist", "--report", "{}", "--framework", "jax"], ["report", "--profile", "{}", "--from-json", "{}"]],
)
def test_fifos_devices_folders_and_loops_are_refused_without_hanging(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A FIFO with no writer would block open() or read() forever: the kind is checked by stat first.
    for kind, path in _special_inputs(tmp_path).items():
        code, _, err = run_cli([a.replace("{}", str(path)) for a in command], capsys)
        assert_one_line_error(code, err, str(path))
        assert kind.split()[-1] in err or "loop" in err, err


def test_pack_with_a_fifo_a_link_loop_or_an_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(ACME, pack)
    fw = pack / "frameworks"
    fw.mkdir(exist_ok=True)
    os.mkfifo(fw / "fifo.yaml")
    code, _, err = run_cli(["kb", "validate", str(pack)], capsys)
    assert_one_line_error(code, err, "fifo.yaml", "FIFO")
    (fw / "fifo.yaml").unlink()
    (fw / "loop.yaml").symlink_to(fw / "loop.yaml")
    code, _, err = run_cli(["kb", "validate", str(pack)], capsys)
    assert_one_line_error(code, err, "loop.yaml", "symbolic link loop")
    (fw / "loop.yaml").unlink()
    # Unreadable even for root: /proc/self/mem is a regular file whose read at offset 0 fails with EIO.
    (fw / "unreadable.yaml").symlink_to("/proc/self/mem")
    code, _, err = run_cli(["kb", "validate", str(pack)], capsys)
    # The link leads out of the pack, so it is refused before anything is read (issue 23 item 21).
    assert_one_line_error(code, err, "unreadable.yaml", "link out of the knowledge pack")


# --- reports read back --------------------------------------------------------------------------------------------

_WRONG = st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2),
                   st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.booleans())
_SECTIONS = [("probe", "cpu"), ("probe", "memory"), ("probe", "gpus"), ("probe", "gpus", "devices"),
             ("probe", "accelerators"), ("probe", "frameworks"), ("probe", "frameworks", "pytorch"),
             ("probe", "frameworks", "pytorch", "outcome"), ("probe", "requirements"), ("probe", "software"),
             ("benchmarks", "results"), ("benchmarks", "results", 0), ("benchmarks", "results", 0, "value"),
             ("benchmarks", "results", 0, "framework"), ("benchmarks", "failures"), ("probe",), ("benchmarks",)]


@FEW
@given(where=st.sampled_from(_SECTIONS), value=_WRONG)
def test_reports_with_wrong_shapes_get_one_line(
    where: tuple[Any, ...], value: Any, good_report: dict[str, Any], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = copy.deepcopy(good_report)
    node = data
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    for command in (["report", "--from-json", str(path), "--json"], ["compare", str(path), str(path), "--json"]):
        code, out, err = run_cli(command, capsys)
        if code != 0:
            assert_one_line_error(code, err, str(path))
        else:
            json.loads(out)  # accepted: then it really was a shape the code can use


def test_report_sections_of_the_wrong_shape_are_named(
    good_report: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for where, value, field in ((("probe", "cpu"), 5, "probe.cpu"),
                                (("benchmarks", "results"), "x", "benchmarks.results")):
        data = copy.deepcopy(good_report)
        data[where[0]][where[1]] = value
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data))
        code, _, err = run_cli(["report", "--from-json", str(path)], capsys)
        assert_one_line_error(code, err, str(path), field)


def test_deep_large_and_non_finite_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run_cli(["report", "--from-json", str(deep)], capsys)
    assert_one_line_error(code, err, "nested deeper than")
    big = tmp_path / "big.json"
    with big.open("wb") as f:  # sparse: the size limit is checked by stat, nothing of it is read
        f.truncate(limits.MAX_REPORT_BYTES + 1)
    code, _, err = run_cli(["compare", str(big), str(big)], capsys)
    assert_one_line_error(code, err, "too large")
    nan = tmp_path / "nan.json"
    nan.write_text('{"schema_version": "1.0", "x": NaN}')
    code, _, err = run_cli(["report", "--from-json", str(nan)], capsys)
    assert_one_line_error(code, err, "NaN is not JSON")


# --- flags ------------------------------------------------------------------------------------------------------

_NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**9), 10**9),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-1", "0", "100000"]),
)


def _as_float(text: str) -> float:
    return float(text)


@FEW
@given(budget=_NUMBERS, threads=_NUMBERS, nproc=_NUMBERS)
def test_bench_numbers_are_checked_before_anything_runs(
    budget: Any, threads: Any, nproc: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--framework nosuch` makes a run that passes every check stop at once (exit 2 naming --framework),
    # so a number the checks miss shows up as a different error or a run, never as a 12-minute benchmark.
    args = ["bench", f"--budget={budget}", "--framework", "nosuch"]  # `=`: a negative number is not a flag
    ok_threads = isinstance(threads, int) and 1 <= threads <= limits.logical_cpus()
    ok_nproc = isinstance(nproc, int) and nproc >= 1 and nproc <= limits.logical_cpus()
    if isinstance(threads, int):
        args += [f"--threads={threads}"]
    if isinstance(nproc, int):
        args += [f"--nproc={nproc}"]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse refuses a non-number for an int flag: its own usage error, exit 2
        assert exc.code == 2
        capsys.readouterr()
        return
    err = capsys.readouterr().err
    b = _as_float(str(budget))
    ok_budget = math.isfinite(b) and 0 < b <= limits.MAX_BUDGET_S
    if not ok_budget:
        assert_one_line_error(code, err, "--budget")
    elif isinstance(threads, int) and not ok_threads:
        assert_one_line_error(code, err, "--threads")
    elif isinstance(nproc, int) and not ok_nproc:
        assert_one_line_error(code, err, "--nproc")
    else:
        assert_one_line_error(code, err, "--framework")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["bench", "--budget", "nan"], "--budget: must be a finite number"),
        (["bench", "--budget", "1e400"], "--budget: must be a finite number"),
        (["bench", "--budget", "-3"], "--budget: must be greater than 0"),
        (["bench", "--threads", "100000"], "--threads: must be at most"),
        (["bench", "--nproc", "100000"], "--nproc: must be at most"),
        (["bench", "--nproc", "0"], "--nproc: must be at least 1"),
        (["bench", "--master-port", "70000"], "--master-port"),
        (["bench", "--nnodes", "4:2"], "--nnodes"),
        (["bench", "--node-rank", "-1"], "--node-rank"),
        (["report", "--seed", "-1", "--from-json", "x.json"], "--seed: must be at least 0"),
        (["report", "--seed", str(2**40), "--from-json", "x.json"], "--seed: must be at most"),
        (["probe", "--timeout", "inf"], "--timeout: must be a finite number"),
        (["report", "--from-json", ""], "--from-json: must not be empty"),
        (["report", "--no-bench", "-o", ""], "--output: must not be empty"),
        (["bench", "--save", ""], "--save: must not be empty"),
        (["checklist", "--framework", "jax", "--report", " "], "--report: must not be empty"),
        (["profile", "check", ""], "FILE: must not be empty"),
    ],
)
def test_bad_flags_are_one_line_before_anything_runs(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(args, capsys)
    assert_one_line_error(code, err, needle)
    assert out == ""


def test_an_escape_in_a_yaml_key_is_escaped_in_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A profile another tool wrote (safe_dump) with an escape-laden scenario name: refused, and escaped.
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"weights": {"performance": 1, "evil\x1b]0;title\x07": 2}}))
    code, _, err = run_cli(["profile", "check", str(path)], capsys)
    assert_one_line_error(code, err, "\\x1b]0;title\\x07")


def test_report_preset_is_checked_before_the_probe(capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.evidence.bench import PRESETS

    with pytest.raises(SystemExit) as info:  # argparse's own usage error: exit 2, before any probe
        main(["report", "--preset", "bogus"])
    assert info.value.code == 2 and "invalid choice" in capsys.readouterr().err
    from advisor.cli import build_parser

    report = build_parser()._subparsers._group_actions[0].choices["report"]  # type: ignore[union-attr]  # noqa: SLF001
    preset = next(a for a in report._actions if a.dest == "preset")  # noqa: SLF001
    assert tuple(preset.choices or ()) == PRESETS


@pytest.mark.parametrize(
    "args",
    [
        ["fleet", "node", "--leader", "{}"],
        ["checklist", "--framework", "{}"],
        ["report", "--scenario", "{}", "--json"],
        ["bench", "--allreduce", "--sizes", "{}"],
    ],
    ids=["leader", "framework", "scenario", "sizes"],
)
def test_a_huge_flag_value_is_echoed_short(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A 100,000-character value names its flag and its length; the line stays short enough to read."""
    huge = "x" * 100_000
    code, _, err = run_cli([a.replace("{}", huge) for a in args], capsys)
    assert_one_line_error(code, err, "(100000 characters)")
    assert len(err) < 400, len(err)
