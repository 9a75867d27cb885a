"""The committed knowledge schema matches the models; the wheel ships the knowledge base and probe scripts."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from advisor.knowledge.schema_export import knowledge_json_schema_text

ROOT = Path(__file__).resolve().parent.parent


def test_committed_knowledge_schema_matches_the_models() -> None:
    committed = (ROOT / "docs" / "knowledge.schema.json").read_text(encoding="utf-8")
    assert committed == knowledge_json_schema_text(), "run: fwadvisor kb schema > docs/knowledge.schema.json"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (whl,) = out.glob("fwadvisor-*.whl")
    return whl


def test_wheel_contains_knowledge_and_probes(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "advisor/_data/knowledge/pack.yaml" in names
    assert "advisor/_data/knowledge/criteria.yaml" in names
    assert any(n.startswith("advisor/_data/knowledge/frameworks/") for n in names)
    assert "advisor/_data/probes/_proto.py" in names
    assert not any(n.startswith("tests/") for n in names)


def test_installed_wheel_runs_from_another_directory(wheel: Path, tmp_path: Path) -> None:
    # Unpack the wheel as pip would (no editable link back to the checkout) and run it from elsewhere.
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "FWADVISOR_NO_USER_PACKS": "1"}
    code = (
        "import advisor.paths as p, json; "
        "print(json.dumps([str(p.knowledge_dir()), str(p.probes_root())]))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    kdir, proot = (Path(x) for x in __import__("json").loads(out.stdout))
    assert kdir.is_relative_to(target) and (kdir / "pack.yaml").is_file()
    assert proot.is_relative_to(target) and (proot / "probes" / "_proto.py").is_file()
    validate = subprocess.run(
        [sys.executable, "-m", "advisor", "kb", "validate"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert validate.returncode == 0, validate.stderr
    assert validate.stdout.startswith("ok: builtin")
