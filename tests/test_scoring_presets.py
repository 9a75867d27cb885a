"""Scenario presets: a preset that describes a domain sets it, and each preset's answer is the one docs/presets.md
checks against what its description's libraries target in 2026."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from advisor.knowledge import load_knowledge
from advisor.profile import Profile, load_profile_text, resolve_profile
from advisor.scoring import assess

DOC = Path(__file__).resolve().parent.parent / "docs" / "presets.md"

#: preset -> (the domains its description names, the answer docs/presets.md justifies). Why, in one line each
#: (the sources, quotes and dates are in docs/presets.md, one section per preset):
EXPECTED: dict[str, tuple[list[str], str]] = {
    # No description of a team: PyTorch leads the general criteria (Transformers 5 is PyTorch-only).
    "generic": ([], "pytorch"),
    # Reference code of recent papers is PyTorch (Transformers 5, diffusers); no domain named.
    "research_prototyping": ([], "pytorch"),
    # LLM pre-training: TorchTitan, Megatron-Core, DeepSpeed target PyTorch; MaxText (JAX) the runner-up.
    "large_model_training": (["llm_training"], "pytorch"),
    # Serving engines (vLLM, SGLang, TensorRT-LLM) load PyTorch checkpoints; TorchServe archived.
    "production_inference": ([], "pytorch"),
    # Courses and fastai teach PyTorch; Keras 3 the runner-up.
    "beginners_teaching": ([], "pytorch"),
    # ExecuTorch 1.x and litert-torch: PyTorch reaches both on-device runtimes.
    "mobile_edge": ([], "pytorch"),
    # TPU-native: JAX (MaxText, Flax); TorchTPU is 0.x.
    "tpu_first": ([], "jax"),
    # torch_npu, MindSpeed and vllm-ascend put most Ascend work on PyTorch; MindSpore native second.
    "ascend_china": ([], "pytorch"),
    # General Mac work: PyTorch on MPS; MLX close behind (local LLMs are a domain the preset does not name).
    "apple_silicon_local": ([], "pytorch"),
    # The description's libraries split (Diffrax, NumPyro, JAX MD vs NequIP, MACE, PhysicsNeMo, Pyro): a close
    # call, PyTorch ahead on the general criteria; the domain halves the lead (docs/presets.md says so).
    "scientific_computing": (["scientific_computing"], "pytorch"),
}


@pytest.fixture(scope="module")
def kb():  # type: ignore[no-untyped-def]
    return load_knowledge(include_user=False)


def test_every_preset_is_checked(kb) -> None:  # type: ignore[no-untyped-def]
    assert set(EXPECTED) == set(kb.scenarios)
    text = DOC.read_text(encoding="utf-8")
    for sid, (_domains, winner) in EXPECTED.items():
        # docs/presets.md's summary table: | `preset` | domains | answer | ...
        row = re.search(rf"^\| `{sid}` \|[^|]*\| (\w+) ", text, flags=re.MULTILINE)
        assert row is not None, f"docs/presets.md has no row for {sid}"
        assert row.group(1) == winner, f"docs/presets.md says {row.group(1)} for {sid}"


@pytest.mark.parametrize("sid", list(EXPECTED))
def test_preset_sets_the_domains_its_description_names(kb, sid: str) -> None:  # type: ignore[no-untyped-def]
    domains, _ = EXPECTED[sid]
    assert kb.scenarios[sid].domains == domains
    resolved = resolve_profile(Profile(scenario=sid), kb)
    assert resolved.domains == domains
    if domains:
        a = assess(kb, resolved, today=dt.date(2026, 12, 1), seed=0, draws=200)
        eco = next(c for c in a.ranking[0].contributions if c.criterion == "ecosystem")
        assert {f["domain"] for f in eco.figures if "domain" in f} == set(domains)


@pytest.mark.parametrize("sid", list(EXPECTED))
def test_preset_answer_is_the_checked_one(kb, sid: str) -> None:  # type: ignore[no-untyped-def]
    a = assess(kb, resolve_profile(Profile(scenario=sid), kb), today=dt.date(2026, 12, 1), seed=0)
    table = ", ".join(f"{b.framework} {b.total:.3f}" for b in a.ranking)
    assert a.recommendation.framework == EXPECTED[sid][1], f"{sid}: {table}"


def test_a_profile_s_own_domains_replace_the_preset_s(kb) -> None:  # type: ignore[no-untyped-def]
    own = resolve_profile(load_profile_text("scenario: scientific_computing\ndomains: [rl]\n"), kb)
    assert own.domains == ["rl"]
    weighted = resolve_profile(load_profile_text("scenario: large_model_training\ndomains: {vision: 2}\n"), kb)
    assert weighted.domain_weights == {"vision": 2.0}


def test_a_team_keeps_its_members_preset_domains(kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from advisor.team.decide import decide
    from advisor.team.members import load_members

    (tmp_path / "a.yaml").write_text("member: a\nscenario: scientific_computing\n")
    (tmp_path / "b.yaml").write_text("member: b\nscenario: large_model_training\n")
    members, _ = load_members(kb, [tmp_path / "a.yaml", tmp_path / "b.yaml"])
    team = decide(kb, members, draws=200, today=dt.date(2026, 12, 1))
    assert set(team.team.resolved.domains) == {"scientific_computing", "llm_training"}
