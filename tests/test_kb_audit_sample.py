"""The audit sampler: stewardship facts as the loader serves them, and which fact a changed line belongs to."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from advisor.knowledge.loader import validate_dirs

ROOT = Path(__file__).resolve().parent.parent


def _sampler():
    spec = importlib.util.spec_from_file_location("kb_audit_sample", ROOT / "benchmarks" / "kb_audit_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_stewardship_claims_carry_the_loaded_multi_backend() -> None:
    kb = validate_dirs([])
    drawn = _sampler().population(ROOT / "knowledge", set())
    entries = [d for d in drawn if d.file == "knowledge/stewardship.yaml" and d.claim.startswith("framework=")]
    by_framework = {d.claim.split(";")[0].removeprefix("framework="): d.claim for d in entries}
    assert by_framework, "no stewardship facts drawn"
    for fid, claim in by_framework.items():
        assert f"multi_backend={kb.stewardship[fid].multi_backend}" in claim, fid
    assert kb.stewardship["keras"].multi_backend is True


def test_a_changed_top_level_field_belongs_to_the_framework_fact() -> None:
    sampler = _sampler()
    pop = sampler.population(ROOT / "knowledge", set())
    text = (ROOT / "knowledge" / "frameworks" / "mindspore.yaml").read_text().splitlines()
    governance = next(i for i, line in enumerate(text, start=1) if line.startswith("governance:")) + 1
    hit = sampler.touched(pop, {"knowledge/frameworks/mindspore.yaml": {governance}})
    assert [(d.file, d.kind) for d in hit] == [("knowledge/frameworks/mindspore.yaml", "framework")]
    hardware = next(i for i, line in enumerate(text, start=1) if line == "  cpu:") + 2
    inner = sampler.touched(pop, {"knowledge/frameworks/mindspore.yaml": {hardware}})
    assert inner and all(d.path[:2] == ("hardware", "cpu") for d in inner)


def test_judgements_draws_only_the_facts_marked_judgement() -> None:
    sampler = _sampler()
    plain = sampler.population(ROOT / "knowledge", set())
    judged = sampler.population(ROOT / "knowledge", set(), judgements=True)
    assert judged, "no judgement facts with quoted premises"
    assert not {(d.file, d.field) for d in plain} & {(d.file, d.field) for d in judged}
    assert all(s.quote for d in judged for s in d.sources)


def test_an_unknown_revision_is_one_line_not_a_traceback() -> None:
    with pytest.raises(ValueError) as exc:
        _sampler().changed_lines("no-such-revision-0000")
    message = str(exc.value)
    assert "--changed-since no-such-revision-0000" in message and "\n" not in message
