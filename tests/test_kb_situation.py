"""Knowledge for the team's situation: domain facts, stewardship (jurisdiction, portability, OS, GPU floor), serving."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import KnowledgeError
from advisor.knowledge import load_knowledge


@pytest.fixture(scope="module")
def kb():  # type: ignore[no-untyped-def]
    return load_knowledge(include_user=False)


def test_every_framework_has_stewardship_and_every_domain_covers_every_framework(kb) -> None:  # type: ignore[no-untyped-def]
    assert set(kb.stewardship) == set(kb.frameworks)
    for domain in kb.domains.values():
        assert set(domain.ecosystem) == set(kb.frameworks), domain.id
        for fact in domain.ecosystem.values():
            assert fact.sources and fact.rationale and 0 <= fact.score <= 5
    assert {"ocr_document", "speech", "llm_serving", "recommendation", "vision", "scientific_computing"} <= set(
        kb.domains
    )


def test_jurisdictions_and_portability_facts(kb) -> None:  # type: ignore[no-untyped-def]
    where = {f: s.jurisdiction for f, s in kb.stewardship.items()}
    assert where == {
        "pytorch": "US",
        "jax": "US",
        "tensorflow": "US",
        "keras": "US",
        "mlx": "US",
        "paddlepaddle": "CN",
        "mindspore": "CN",
    }
    assert [f for f, s in kb.stewardship.items() if s.multi_backend] == ["keras"]


def test_pytorch_gpu_floor_is_turing_with_2_14_for_older_gpus(kb) -> None:  # type: ignore[no-untyped-def]
    floor = kb.stewardship["pytorch"].gpu
    assert floor is not None and floor.release == "2.15" and floor.min_compute_capability == "7.5"
    assert floor.last_release_for_older == "2.14" and floor.older_min_compute_capability == "5.0"
    assert any("190385" in str(s) for s in floor.sources)


def test_serving_stacks_name_known_frameworks(kb) -> None:  # type: ignore[no-untyped-def]
    assert kb.serving["vllm"].frameworks == ["pytorch"]
    assert "paddlepaddle" in kb.serving["paddle_inference"].frameworks


def _pack(tmp_path: Path, name: str, text: str) -> Path:
    d = tmp_path / "pack"
    d.mkdir()
    (d / "pack.yaml").write_text("name: t\nversion: '1'\n")
    (d / name).write_text(text)
    return d


def test_a_domain_fact_for_an_unknown_framework_names_file_line_and_field(tmp_path: Path) -> None:
    text = (
        "domains:\n- id: speech\n  name: Speech\n  description: d\n  ecosystem:\n    torchy:\n      score: 3\n"
        "      rationale: r\n      sources: [https://example.org]\n      as_of: 2026-12-01\n"
    )
    with pytest.raises(KnowledgeError) as info:
        load_knowledge([_pack(tmp_path, "domains.yaml", text)], include_user=False)
    err = info.value
    assert str(err.file).endswith("domains.yaml") and err.line == 6 and err.field == "ecosystem.torchy"


def test_a_bad_jurisdiction_is_a_schema_error(tmp_path: Path) -> None:
    text = (
        "frameworks:\n- framework: jax\n  maintainer: m\n  jurisdiction: USA\n  portability: p\n"
        "  sources: [https://example.org]\n  as_of: 2026-12-01\n"
    )
    with pytest.raises(KnowledgeError) as info:
        load_knowledge([_pack(tmp_path, "stewardship.yaml", text)], include_user=False)
    assert info.value.line == 4 and info.value.field == "frameworks[0].jurisdiction"
