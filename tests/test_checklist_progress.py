"""Checklist progress: the store in the user data folder, and `fwadvisor checklist --done/--undo` end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.progress import SCHEMA, ProgressError, ProgressStore, progress_key, progress_path

ROOT = Path(__file__).resolve().parent.parent
GPU_REPORT = ROOT / "tests" / "fixtures" / "team" / "alice-fake-gpu.json"


def test_store_round_trip_and_keys(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path / "p.json")
    assert store.done("jax", "pytorch") == {}
    assert store.set_done("jax", "pytorch", "concept.autograd") is True
    assert store.set_done("jax", "pytorch", "concept.autograd") is False  # already ticked
    assert store.set_done("jax", None, "install.cpu.jax") is True
    assert set(store.done("jax", "pytorch")) == {"concept.autograd"}
    assert set(store.done("jax", None)) == {"install.cpu.jax"}
    data = json.loads((tmp_path / "p.json").read_text())
    assert data["schema"] == SCHEMA
    assert (
        set(data["checklists"])
        == {progress_key("jax", "pytorch"), progress_key("jax", None)}
        == {
            "jax:pytorch",
            "jax:-",
        }
    )
    assert data["checklists"]["jax:pytorch"]["done"]["concept.autograd"].endswith("Z")
    assert store.set_done("jax", "pytorch", "concept.autograd", done=False) is True
    assert store.done("jax", "pytorch") == {}
    assert "jax:pytorch" not in json.loads((tmp_path / "p.json").read_text())["checklists"]
    # The atomic write leaves no temporary files behind (the lock file stays: filelock keeps it for the next run).
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "p.json.lock") == ["p.json"]


def test_default_path_is_in_the_user_data_dir() -> None:
    # conftest points FWADVISOR_DATA_DIR at a temporary folder.
    assert progress_path().parent == Path(os.environ["FWADVISOR_DATA_DIR"])


def test_corrupt_file_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"schema": "fwadvisor.progress/1",\n "checklists": {\n')
    store = ProgressStore(path)
    with pytest.raises(ProgressError) as info:
        store.done("jax", None)
    assert isinstance(info.value, AdvisorError)
    assert info.value.line == 3 and str(path) in str(info.value) and "not valid JSON" in str(info.value)
    with pytest.raises(ProgressError):
        store.set_done("jax", None, "x")
    assert path.read_text().startswith('{"schema"')  # never overwritten: the user's ticks may be in there


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[1, 2]", "JSON object"),
        ('{"schema": "fwadvisor.progress/9", "checklists": {}}', "unsupported progress file schema"),
        ('{"schema": "fwadvisor.progress/1", "checklists": []}', "must be an object"),
        ('{"schema": "fwadvisor.progress/1", "checklists": {"jax:-": {"done": [1]}}}', "item id -> time"),
    ],
)
def test_wrong_shapes_are_named(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "p.json"
    path.write_text(text)
    with pytest.raises(ProgressError, match=needle):
        ProgressStore(path).load()


def test_unreadable_bytes_are_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ProgressError, match="cannot read"):
        ProgressStore(path).load()


# --- the command line: in-process through `advisor.cli.main` (fast), plus one real subprocess ------------------


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from advisor.cli import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _cli(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["FWADVISOR_DATA_DIR"] = str(data_dir)
    env["FWADVISOR_NO_USER_PACKS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "advisor", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )


def test_cli_done_persists_and_shows_ticked_on_regeneration(tmp_path: Path) -> None:
    """End to end in real processes: tick in one run, see `[x]` in the next."""
    base = ["checklist", "--report", str(GPU_REPORT), "--framework", "jax", "--from", "pytorch"]
    ticked = _cli([*base, "--done", "task.port_layer"], tmp_path)
    assert ticked.returncode == 0, ticked.stderr
    assert "ticked task.port_layer" in ticked.stderr
    stored = json.loads((tmp_path / "checklist-progress.json").read_text())
    assert "task.port_layer" in stored["checklists"]["jax:pytorch"]["done"]
    regenerated = _cli([*base, "--markdown"], tmp_path)
    assert regenerated.returncode == 0, regenerated.stderr
    line = next(x for x in regenerated.stdout.splitlines() if "`task.port_layer`" in x)
    assert line.startswith("- [x] ")
    assert sum(1 for x in regenerated.stdout.splitlines() if x.startswith("- [x] ")) == 1


def test_cli_done_undo_and_other_from(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["checklist", "--report", str(GPU_REPORT), "--framework", "jax", "--from", "pytorch"]
    code, out, _ = _main([*base, "--json"], capsys)
    assert code == 0
    ids = [i["id"] for s in json.loads(out)["sections"] for i in s["items"]]
    assert "install.nvidia_cuda.jax" in ids  # the (fake) GPU report gets the CUDA line
    concept = next(i for i in ids if i.startswith("concept."))
    code, _, err = _main([*base, "--done", concept, "--done", "task.export"], capsys)
    assert code == 0 and f"ticked {concept}" in err and "2/" in err
    code, _, err = _main([*base, "--done", concept], capsys)
    assert code == 0 and "(it already was)" in err
    code, out, _ = _main([*base, "--markdown"], capsys)
    assert sum(1 for x in out.splitlines() if x.startswith("- [x] ")) == 2
    # Another "from" is another checklist: nothing ticked there.
    code, out, _ = _main(["checklist", "--report", str(GPU_REPORT), "--framework", "jax", "--markdown"], capsys)
    assert code == 0 and "- [x] " not in out
    code, out, _ = _main([*base, "--undo", concept, "--markdown"], capsys)
    assert code == 0 and sum(1 for x in out.splitlines() if x.startswith("- [x] ")) == 1
    assert next(x for x in out.splitlines() if f"`{concept}`" in x).startswith("- [ ] ")


def test_cli_unknown_id_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["checklist", "--report", str(GPU_REPORT), "--framework", "jax"]
    code, _, err = _main([*base, "--done", "task.train_step", "--done", "concept.no_such_thing"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "unknown checklist item 'concept.no_such_thing'" in lines[0], err
    assert not progress_path().exists()  # one typo changes nothing, not even the valid id before it
    code, _, err = _main([*base, "--undo", "nope"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--undo" in err
    code, _, err = _main([*base, "--done", "task.port_layr"], capsys)
    assert code == 2 and "did you mean 'task.port_layer'" in err


def test_cli_corrupt_progress_file_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    progress_path().parent.mkdir(parents=True, exist_ok=True)
    progress_path().write_text("{not json")
    code, _, err = _main(["checklist", "--report", str(GPU_REPORT), "--framework", "jax", "--json"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "checklist-progress.json:1" in lines[0] and "not valid JSON" in lines[0]


def test_cli_writes_output_file_atomically(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "jax.md"
    code, stdout, _ = _main(["checklist", "--report", str(GPU_REPORT), "--framework", "jax", "-o", str(out)], capsys)
    assert code == 0 and stdout == ""
    assert out.read_text().startswith("# JAX onboarding checklist")
    as_json = tmp_path / "jax.json"
    _main(["checklist", "--report", str(GPU_REPORT), "--framework", "jax", "-o", str(as_json)], capsys)
    assert json.loads(as_json.read_text())["schema"] == "fwadvisor.checklist/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jax.json", "out"]


def test_cli_report_recommendation_is_the_default_framework(kb, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _main(["checklist", "--report", str(GPU_REPORT), "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["framework"] == "jax"  # the report recommends JAX
    # The report's profile asks for the "server" target: used when the shipped base knows it.
    assert data["targets"] == (["server"] if "server" in kb.targets else [])


def test_cli_bad_report_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    corrupt = ROOT / "tests" / "fixtures" / "team" / "carol-corrupt.json"
    code, _, err = _main(["checklist", "--report", str(corrupt), "--framework", "jax"], capsys)
    assert code == 2 and "carol-corrupt.json:5" in err and "not valid JSON" in err
    foreign = ROOT / "tests" / "fixtures" / "team" / "foreign.json"
    code, _, err = _main(["checklist", "--report", str(foreign), "--framework", "jax"], capsys)
    assert code == 2 and "not an fwadvisor report" in err


def test_cli_needs_a_framework(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _main(["checklist"], capsys)
    assert code == 2 and "--framework" in err
    code, _, err = _main(["checklist", "--framework", "caffe"], capsys)
    assert code == 2 and "unknown framework 'caffe'" in err


def test_cli_real_report_and_profile_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = ROOT / "tests" / "fixtures" / "team" / "real-cpu-no-bench.json"  # `fwadvisor report --no-bench --json`
    code, out, err = _main(["checklist", "--report", str(real), "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    report = json.loads(real.read_text())
    assert data["framework"] == report["recommendation"]["framework"] and data["backend"] == "cpu"
    assert data["machine"]["python"] == report["probe"]["software"]["python"]
    # A profile that names one current framework makes it the default --from.
    report["profile"]["as_written"] = {"team": {"current": ["tensorflow"]}}
    edited = tmp_path / "r.json"
    edited.write_text(json.dumps(report))
    code, out, err = _main(["checklist", "--report", str(edited), "--framework", "jax", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["from"] == "tensorflow"
