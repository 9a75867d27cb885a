"""Backend-specific facts (`hardware.<id>.scores.<criterion>`) and how scoring uses them."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import KB_SMALL, probe_fixture

from advisor.errors import KnowledgeError
from advisor.knowledge import load_knowledge
from advisor.knowledge.schema import Hardware
from advisor.profile import load_profile_text, resolve_profile
from advisor.report.words import note_words
from advisor.scoring import assess
from advisor.scoring import evidence as ev

TODAY = dt.date(2026, 12, 1)

#: (framework, hardware id, score): performance facts written into a copy of the small test pack.
FACTS = [("pytorch", "apple_metal", 4.0), ("pytorch", "google_tpu", 3.0), ("mlx", "apple_metal", 4.5)]


def _fact(hw: str, score: float, criteria: tuple[str, ...] = ("performance",)) -> str:
    out = "    scores:\n"
    for cid in criteria:
        out += (
            f"      {cid}:\n        score: {score}\n        rationale: Fixture {cid} fact for {hw}.\n"
            f"        sources:\n        - https://example.org/{hw}-{cid}\n        as_of: '2026-10-01'\n"
        )
    return out


def _pack_with_facts(
    folder: Path, facts: list[tuple[str, str, float]], criteria: tuple[str, ...] = ("performance",)
) -> Path:
    """A copy of the small pack with backend facts inserted after each named hardware entry's status."""
    shutil.copytree(KB_SMALL, folder)
    for fw, hw, score in facts:
        path = folder / "frameworks" / f"{fw}.yaml"
        lines = path.read_text().splitlines(keepends=True)
        at = lines.index(f"  {hw}:\n")
        assert lines[at + 1].startswith("    status:")
        lines.insert(at + 2, _fact(hw, score, criteria))
        path.write_text("".join(lines))
    return folder


@pytest.fixture(scope="module")
def kb_facts(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The small pack plus the FACTS above, loaded through the real YAML loader."""
    return load_knowledge(include_user=False, base=_pack_with_facts(tmp_path_factory.mktemp("kb") / "kb", FACTS))


def _perf(kb: Any, profile: str, probe: dict[str, Any] | None = None, criterion: str = "performance") -> dict[str, Any]:
    """One criterion's contribution for every ranked framework, and the breakdown notes, by framework id."""
    result = assess(kb, resolve_profile(load_profile_text(profile), kb), probe=probe, today=TODAY, seed=0)
    out = {}
    for b in result.ranking:
        (c,) = [c for c in b.contributions if c.criterion == criterion]
        out[b.framework] = {"c": c, "notes": b.notes}
    return out


def test_schema_loads_hardware_performance(kb_facts: Any) -> None:
    fact = kb_facts.frameworks["pytorch"].hardware[Hardware.APPLE_METAL].scores.get("performance")
    assert fact is not None and fact.score == 4.0 and fact.as_of == dt.date(2026, 10, 1)
    assert kb_facts.frameworks["jax"].hardware[Hardware.APPLE_METAL].scores == {}


def test_schema_rejects_out_of_range_hardware_performance(tmp_path: Path) -> None:
    folder = _pack_with_facts(tmp_path / "kb", [("pytorch", "apple_metal", 6.0)])
    with pytest.raises(KnowledgeError, match="pytorch"):
        load_knowledge(include_user=False, base=folder)


def test_must_run_on_replaces_the_general_score_with_the_backend_fact(kb_facts: Any) -> None:
    perf = _perf(kb_facts, "constraints:\n  must_run_on: [apple_metal]\n")
    c = perf["pytorch"]["c"]
    assert c.knowledge_score == 4.0 and c.score == 4.0  # no bench: the knowledge score is the score
    assert c.rationale == "apple_metal: Fixture performance fact for apple_metal."
    assert c.sources == ["https://example.org/apple_metal-performance"] and c.as_of == "2026-10-01"
    assert "apple_metal 4.0" in c.evidence and "in place of the general 4.5" in c.evidence
    assert c.evidence.count("Performance and compiler maturity on the team's hardware") == 1
    on_hw = [n for n in perf["pytorch"]["notes"] if n.code == "on_team_hardware"]
    p = on_hw[0].params
    assert (p["criterion"], p["name"]) == ("performance", "Performance and compiler maturity")
    assert "in place of the general 4.5" in note_words(on_hw[0].code, on_hw[0].params)
    assert perf["mlx"]["c"].score == 4.5  # above its general 3.5: MLX's own backend
    # JAX has no Apple fact: the general score capped at its preview route (3.0), as before.
    jax = perf["jax"]["c"]
    assert jax.score == 3.0 and "capped at 3.00" in jax.evidence and jax.knowledge_score == 5.0


def test_several_required_backends_take_the_lowest(kb_facts: Any) -> None:
    perf = _perf(kb_facts, "constraints:\n  must_run_on: [apple_metal, google_tpu]\n")
    c = perf["pytorch"]["c"]
    assert c.score == 3.0  # the TPU fact, lower than the Apple one
    assert "apple_metal 4.0" in c.evidence and "google_tpu 3.0" in c.evidence
    assert set(c.sources) == {"https://example.org/apple_metal-performance", "https://example.org/google_tpu-performance"}


def test_a_required_backend_without_a_fact_counts_as_the_capped_general_score(kb_facts: Any) -> None:
    # Ascend has no PyTorch fact: its figure is min(general 4.5, community route 3.5) = 3.5 < the Apple fact 4.0.
    found = ev.hardware_specific(
        kb_facts, "pytorch", "performance", None, [Hardware.APPLE_METAL, Hardware.HUAWEI_ASCEND]
    )
    assert found is not None and found.score == 3.5
    assert "capped at the huawei_ascend route's support value 3.5" in found.rationale
    assert found.as_of == kb_facts.frameworks["pytorch"].scores["performance"].as_of


def test_an_accelerator_found_by_a_fake_apple_probe_uses_the_fact(kb_facts: Any) -> None:
    perf = _perf(kb_facts, "weights:\n  performance: 1\n", probe=probe_fixture("probe_fake_apple_m3.json"))
    assert perf["mlx"]["c"].score == 4.5 and perf["pytorch"]["c"].score == 4.0


def test_no_fact_for_the_team_hardware_keeps_general_score_and_cap(kb_facts: Any) -> None:
    assert ev.hardware_specific(kb_facts, "pytorch", "performance", probe_fixture(), []) is None  # CPU only
    assert ev.hardware_specific(kb_facts, "pytorch", "performance", None, [Hardware.HUAWEI_ASCEND]) is None
    perf = _perf(kb_facts, "constraints:\n  must_run_on: [huawei_ascend]\n")
    c = perf["pytorch"]["c"]
    assert c.knowledge_score == 4.5 and c.score == 3.5 and "capped at 3.50" in c.evidence
    assert c.rationale.startswith("Test fixture score for PyTorch")


def test_shipped_base_ranks_mlx_above_pytorch_on_apple_performance(kb: Any) -> None:
    perf = _perf(kb, "constraints:\n  must_run_on: [apple_metal]\n", probe=probe_fixture("probe_fake_apple_m3.json"))
    assert perf["mlx"]["c"].score > perf["pytorch"]["c"].score
    assert "MPS" in perf["pytorch"]["c"].rationale
    assert any("pytorch.org" in s for s in perf["pytorch"]["c"].sources)


def test_schema_rejects_a_backend_fact_for_an_unknown_criterion(tmp_path: Path) -> None:
    folder = _pack_with_facts(tmp_path / "kb", [("pytorch", "apple_metal", 4.0)], criteria=("speediness",))
    with pytest.raises(KnowledgeError, match="unknown criterion 'speediness'") as err:
        load_knowledge(include_user=False, base=folder)
    assert err.value.field == "hardware.apple_metal.scores.speediness"
    assert str(err.value.file).endswith("pytorch.yaml")


def test_backend_facts_apply_to_any_criterion(tmp_path: Path) -> None:
    # A hardware_fit fact on Apple replaces the general (breadth) score before the hardware evidence blend;
    # an ecosystem fact replaces the general score outright (no evidence on that criterion).
    folder = _pack_with_facts(tmp_path / "kb", [("mlx", "apple_metal", 5.0)], criteria=("hardware_fit", "ecosystem"))
    kb = load_knowledge(include_user=False, base=folder)
    profile = "constraints:\n  must_run_on: [apple_metal]\n"
    fit = _perf(kb, profile, criterion="hardware_fit")
    mlx = fit["mlx"]["c"]
    assert mlx.knowledge_score == 5.0 and mlx.rationale == "apple_metal: Fixture hardware_fit fact for apple_metal."
    assert "Hardware fit on the team's hardware (apple_metal 5.0)" in mlx.evidence
    eco = _perf(kb, profile, criterion="ecosystem")
    assert eco["mlx"]["c"].score == 5.0 and eco["mlx"]["c"].sources == ["https://example.org/apple_metal-ecosystem"]
    # Frameworks without such facts keep their general scores on those criteria.
    general = {fw: kb.frameworks[fw].scores["ecosystem"].score for fw in eco}
    assert all(eco[fw]["c"].knowledge_score == general[fw] for fw in eco if fw != "mlx")
    # Without Apple hardware in the team (no probe, no constraint) the fact does not apply.
    other = _perf(kb, "weights:\n  ecosystem: 1\n", criterion="ecosystem")
    assert other["mlx"]["c"].knowledge_score == kb.frameworks["mlx"].scores["ecosystem"].score
