"""Support tiers: on the team's hardware, hardware fit rates that route and its tier, not breadth elsewhere."""

from __future__ import annotations

import datetime as dt
from typing import Any

from _scoring_support import probe_fixture

from advisor.evidence.hardware.nvidia import GpuReport
from advisor.evidence.probe import FrameworkProbe
from advisor.knowledge.schema import Hardware, Support
from advisor.knowledge.tiers import TIER_CAP, Tier
from advisor.profile import load_profile_text, resolve_profile
from advisor.scoring import assess
from advisor.scoring import evidence as ev

TODAY = dt.date(2026, 12, 4)

#: Hardware fit alone decides: the rule under test, with no other criterion to hide it.
FIT_ONLY = """
weights: {{hardware_fit: 5}}
constraints: {{must_run_on: [{hw}]}}
"""


def _assess(kb: Any, profile: str, probe: dict[str, Any] | None = None) -> Any:
    return assess(kb, resolve_profile(load_profile_text(profile), kb), probe=probe, today=TODAY, seed=0)


def _fit(result: Any) -> dict[str, Any]:
    return {b.framework: next(c for c in b.contributions if c.criterion == "hardware_fit") for b in result.ranking}


def test_every_usable_route_in_the_shipped_base_states_its_tier_with_a_quote(kb: Any) -> None:
    missing = [
        f"{fid}.{hw.value}"
        for fid, fw in kb.frameworks.items()
        for hw, entry in fw.hardware.items()
        if entry.status is not Support.NONE and entry.status is not Support.UNKNOWN and entry.tier is None
    ]
    assert missing == []
    for fw in kb.frameworks.values():
        for entry in fw.hardware.values():
            if entry.tier is not None and entry.tier.basis.value == "sourced":
                assert all(s.quote for s in entry.tier.sources)


def test_on_ascend_the_vendors_native_framework_is_not_beaten_by_a_plugin_route(kb: Any) -> None:
    # The shipped facts: MindSpore is Huawei's own framework on Ascend; PyTorch reaches it through torch_npu.
    assert kb.frameworks["mindspore"].hardware[Hardware.HUAWEI_ASCEND].tier.tier is Tier.NATIVE
    assert kb.frameworks["pytorch"].hardware[Hardware.HUAWEI_ASCEND].tier.tier is Tier.PLUGIN
    result = _assess(kb, FIT_ONLY.format(hw="huawei_ascend"), probe_fixture())
    fit = _fit(result)
    assert fit["mindspore"].score > fit["pytorch"].score
    assert result.ranking[0].framework == "mindspore"
    # Nothing measured: no Ascend here, so the figure is the knowledge's word, never "measured".
    assert fit["mindspore"].measured_score is None and fit["pytorch"].measured_score is None


def test_a_plugin_route_is_capped_below_a_native_route_of_the_same_status(kb: Any) -> None:
    # JAX on ROCm is "supported" but through AMD's plugin; PyTorch's ROCm wheels are its own.
    fit = _fit(_assess(kb, FIT_ONLY.format(hw="amd_rocm"), probe_fixture()))
    assert kb.frameworks["jax"].hardware[Hardware.AMD_ROCM].status is Support.SUPPORTED
    assert fit["jax"].knowledge_score == TIER_CAP[Tier.PLUGIN] < fit["pytorch"].knowledge_score == 5.0
    assert any(f.get("tier") == "plugin" for f in fit["jax"].figures)


def test_breadth_elsewhere_no_longer_counts_on_the_team_hardware(kb: Any) -> None:
    # On NVIDIA, PyTorch (4.5 general breadth) and TensorFlow (2.5) both ship native CUDA wheels: equal fit.
    fit = _fit(_assess(kb, FIT_ONLY.format(hw="nvidia_cuda"), probe_fixture()))
    assert fit["pytorch"].score == fit["tensorflow"].score == 5.0
    # The breadth is not lost: it is scored as portability, a part of governance and vendor risk.
    result = _assess(kb, "weights: {governance: 5}\nconstraints: {must_run_on: [nvidia_cuda]}\n", probe_fixture())
    port = {b.framework: next(p.score for c in b.contributions for p in c.parts if p.code == "portability")
            for b in result.ranking}
    assert port["pytorch"] > port["tensorflow"]


def test_without_team_hardware_the_general_breadth_score_stands(kb: Any) -> None:
    fit = _fit(_assess(kb, "weights: {hardware_fit: 5}\n", probe_fixture()))
    for fid, c in fit.items():
        assert c.knowledge_score == kb.frameworks[fid].scores["hardware_fit"].score


def test_a_route_used_here_is_the_only_measured_hardware_evidence(kb: Any) -> None:
    # A fake probe (this machine has no GPU): PyTorch's own child used the NVIDIA GPU here.
    probe = probe_fixture()
    probe.gpus = GpuReport.from_json({"status": "ok", "message": "fake", "devices": [
        {"name": "Fake GPU", "compute_capability": "9.0"}]})
    probe.frameworks = {"pytorch": FrameworkProbe.from_json({"id": "pytorch", "installed": True,
                                                              "devices": [{"kind": "gpu"}]})}
    fit = _fit(_assess(kb, "weights: {hardware_fit: 5}\n", probe))
    assert fit["pytorch"].measured_score == 5.0 and fit["pytorch"].evidence_weight == ev.HARDWARE_WEIGHT
    assert fit["jax"].measured_score is None  # JAX's route is the knowledge's word here
