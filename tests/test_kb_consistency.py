"""One fact, one place: the whole base is walked for facts stated twice, and a planted disagreement is caught."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.knowledge import load_knowledge
from advisor.knowledge.consistency import Rule, disagreements
from advisor.knowledge.schema import Os, Support

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_base_states_no_fact_two_ways(kb) -> None:  # type: ignore[no-untyped-def]
    # No allow-list: the four disagreements once listed here (jax's rocm7-local and oneapi lines unpinned,
    # tensorflow-cpu as the CPU line, mlx's wheel tags) were fixed in the framework files (docs/audit/kbfix.md).
    found = {d.key(): f"{d.first} <> {d.second}" for d in disagreements(kb)}
    assert not found


def test_per_os_support_is_derived_from_the_framework_file(kb) -> None:  # type: ignore[no-untyped-def]
    # stewardship.yaml no longer states `os` or `multi_backend`: the framework file's entry is the one place.
    for fid, steward in kb.stewardship.items():
        fw = kb.frameworks[fid]
        assert {o.value: s for o, s in steward.os.items()} == {o.value: p.native for o, p in fw.platforms.items()}
        assert steward.multi_backend == (fw.kind == "multi_backend")
    # Keras' README: "Keras 3 is compatible with Linux and MacOS systems. For Windows users, we recommend WSL2".
    assert kb.stewardship["keras"].os[Os.WINDOWS] is Support.UNKNOWN


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _entry(items: list[dict[str, Any]], key: str, value: str) -> dict[str, Any]:
    return next(i for i in items if i.get(key) == value)


def _steward(data: Any, fid: str) -> dict[str, Any]:
    return _entry(data["frameworks"], "framework", fid)


# Each plant: (the rule it must trip, the file it edits, the edit, the key of the expected disagreement)
PLANTS: list[tuple[Rule, str, Callable[[Any], None], tuple[str, str | None, str]]] = [
    (
        Rule.OS_NATIVE,
        "stewardship.yaml",
        lambda d: _steward(d, "jax").update(os={"windows": "none"}),
        ("os_native", "jax", "windows"),
    ),
    (
        Rule.MULTI_BACKEND,
        "stewardship.yaml",
        lambda d: _steward(d, "pytorch").update(multi_backend=True),
        ("multi_backend", "pytorch", "multi_backend"),
    ),
    (
        Rule.GPU_OS,
        "stewardship.yaml",
        lambda d: _steward(d, "mindspore").update(gpu_os={"linux": "supported"}),
        ("gpu_os", "mindspore", "linux"),
    ),
    (
        Rule.FLOOR_RELEASE,
        "stewardship.yaml",
        lambda d: _steward(d, "pytorch")["gpu"].update(release="2.9"),
        ("floor_release", "pytorch", "release"),
    ),
    (
        Rule.SERVING_ENGINE,
        "stewardship.yaml",
        lambda d: _entry(d["serving"], "id", "vllm").update(frameworks=["pytorch", "jax"]),
        ("serving_engine", None, "vllm"),
    ),
    (
        Rule.ROUTE_ENGINE,
        "deployment.yaml",
        lambda d: _no_route(d, "server", "pytorch"),
        ("route_engine", "pytorch", "server via vllm"),
    ),
    (
        Rule.GENERATION,
        "frameworks/jax.yaml",
        lambda d: d["hardware"]["google_tpu"].update(status="none"),
        ("generation", "jax", "google_tpu"),
    ),
    (
        Rule.PYTHON_WHEELS,
        "frameworks/pytorch.yaml",
        lambda d: d.update(python_versions=["3.10", "3.11"]),
        ("python_wheels", "pytorch", "torch"),
    ),
    (
        Rule.PYTHON_FLOOR,
        "frameworks/keras.yaml",
        lambda d: d.update(python_versions=["3.9", "3.11"]),
        ("python_floor", "keras", "keras"),
    ),
    (
        Rule.STABLE_LATEST,
        "frameworks/tensorflow.yaml",
        lambda d: d.update(stable_version="2.20"),
        ("stable_latest", "tensorflow", "tensorflow"),
    ),
    (
        Rule.INSTALL_LINE,
        "frameworks/paddlepaddle.yaml",
        lambda d: d["packages"]["installs"][0].update(line="pip install paddlepaddle==3.0"),
        ("install_line", "paddlepaddle", "pip install paddlepaddle==3.0"),
    ),
]


def _no_route(data: Any, target: str, fid: str) -> None:
    """ "No route" from `fid` to `target`, which an engine serving `target` with `fid`'s models contradicts."""
    next(r for r in data["routes"] if r["target"] == target and r["framework"] == fid)["status"] = "none"


@pytest.mark.parametrize(("rule", "file", "edit", "key"), PLANTS, ids=[p[0].value for p in PLANTS])
def test_planted_disagreement_is_found(
    tmp_path: Path, rule: Rule, file: str, edit: Callable[[Any], None], key: tuple[str, str | None, str]
) -> None:
    pack = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", pack)
    data = _yaml(pack / file)
    edit(data)
    (pack / file).write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    found = {d.key(): d for d in disagreements(load_knowledge(include_user=False, base=pack))}
    assert key in found, sorted(found)
    assert found[key].rule is rule
    assert found[key].first and found[key].second


def test_stated_per_os_support_that_agrees_is_kept(tmp_path: Path) -> None:
    pack = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", pack)
    data = _yaml(pack / "stewardship.yaml")
    _steward(data, "jax").update(os={"linux": "supported", "windows": "supported", "macos": "supported"})
    (pack / "stewardship.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    kb = load_knowledge(include_user=False, base=pack)
    assert not [d for d in disagreements(kb) if d.rule is Rule.OS_NATIVE]


def test_two_quotes_of_one_source_that_are_one_sentence_reworded_are_found(tmp_path: Path) -> None:
    """A README quoted before and after it dropped a word: one of the two quotes is no longer the page."""
    pack = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", pack)
    data = _yaml(pack / "deployment.yaml")
    route = next(r for r in data["routes"] if any(len(str(s.get("quote", "")).split()) >= 8 for s in r["sources"]))
    source = next(s for s in route["sources"] if len(str(s.get("quote", "")).split()) >= 8)
    words = str(source["quote"]).split()
    # the same sentence with one word more in its middle, as an older copy of the page would have it
    route["sources"].append({**source, "quote": " ".join([*words[:4], "formerly", *words[4:]])})
    (pack / "deployment.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    found = {d.key(): d for d in disagreements(load_knowledge(include_user=False, base=pack))}
    key = ("source_quote", None, str(source["url"]))
    assert key in found, sorted(found)
    assert found[key].rule is Rule.SOURCE_QUOTE
    assert "formerly" in found[key].first + found[key].second


@pytest.mark.parametrize(("a", "b", "reworded"), [
    ("Triton serves models from TensorRT, TensorFlow, PyTorch, ONNX and more.",
     "Triton serves models from TensorRT, PyTorch, ONNX and more.", True),
    ("For a CPU-only version of MLX that runs on Linux use:",
     "For a CPU-only version of MLX that runs on Linux use: pip install mlx[cpu]", False),  # a longer excerpt
    ("Programming Language :: Python :: 3.12", "Programming Language :: Python :: 3.13", False),  # two list lines
    ("pip install paddle==3.2.0 -i https://example.org/cu126/ --extra",
     "pip install paddle==3.2.0 -i https://example.org/cu129/ --extra", False),  # one value differs
])
def test_rewording_is_words_added_or_dropped_inside_one_sentence(a: str, b: str, reworded: bool) -> None:
    from advisor.knowledge.consistency import _reworded

    assert _reworded(a, b) is reworded
    assert _reworded(b, a) is reworded
