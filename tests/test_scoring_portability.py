"""With the team's hardware known, breadth beyond it is scored as portability, a part of governance and vendor risk."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from _scoring_support import probe_fixture

from advisor.knowledge.schema import Hardware, Support
from advisor.knowledge.tiers import TIER_CAP, Tier
from advisor.profile import load_profile_text, resolve_profile
from advisor.report import build_report, to_markdown
from advisor.scoring import assess
from advisor.scoring import evidence as ev
from advisor.scoring.portability import PORTABILITY_SHARE, VENDOR

TODAY = dt.date(2026, 12, 4)
ON_NVIDIA = "weights: {hardware_fit: 5, governance: 5}\nconstraints: {must_run_on: [nvidia_cuda]}\n"


def _assess(kb: Any, text: str) -> Any:
    return assess(kb, resolve_profile(load_profile_text(text), kb), probe=probe_fixture(), today=TODAY)


def _criterion(result: Any, fid: str, cid: str) -> Any:
    b = next(b for b in result.ranking if b.framework == fid)
    return next(c for c in b.contributions if c.criterion == cid)


def _expected_portability(kb: Any, fid: str, team_vendor: str) -> float:
    """From the knowledge base: each other vendor's best route, valued as hardware fit values a route."""
    best: dict[str, float] = {}
    for hw, vendor in VENDOR.items():
        if vendor == team_vendor:
            continue
        entry = kb.frameworks[fid].hardware.get(hw)
        status = entry.status if entry is not None else Support.UNKNOWN
        tier = entry.tier.tier if entry is not None and entry.tier is not None else Tier.UNKNOWN
        best[vendor] = max(best.get(vendor, 0.0), min(ev.SUPPORT_VALUE[status], TIER_CAP[tier]))
    return sum(best.values()) / len(best)


def _parts(contribution: Any) -> dict[str, Any]:
    return {p.code: p for p in contribution.parts}


def test_equal_fit_on_the_team_hardware_but_the_portable_framework_scores_higher_on_vendor_risk(kb: Any) -> None:
    result = _assess(kb, ON_NVIDIA)
    # Both ship their own CUDA build: hardware fit on NVIDIA cannot tell them apart.
    assert _criterion(result, "pytorch", "hardware_fit").score == _criterion(result, "mlx", "hardware_fit").score
    port = {}
    for fid in ("pytorch", "mlx"):
        gov = _criterion(result, fid, "governance")
        parts = _parts(gov)
        steward = kb.frameworks[fid].scores["governance"].score
        port[fid] = _expected_portability(kb, fid, "nvidia")
        assert parts["stewardship"].score == steward
        assert parts["portability"].score == port[fid]
        assert parts["portability"].share == PORTABILITY_SHARE
        assert gov.knowledge_score == (1 - PORTABILITY_SHARE) * steward + PORTABILITY_SHARE * port[fid]
    # MLX reaches only Apple silicon beyond NVIDIA; PyTorch reaches every vendor in the base.
    assert port["pytorch"] > port["mlx"]


def test_a_framework_locked_to_the_team_vendor_has_no_portability(kb: Any) -> None:
    # The shipped MLX with its Apple route taken away: a framework that runs on NVIDIA and nothing else.
    mlx = kb.frameworks["mlx"]
    hardware = dict(mlx.hardware)
    hardware[Hardware.APPLE_METAL] = hardware[Hardware.APPLE_METAL].model_copy(update={"status": Support.NONE})
    locked = replace(kb, frameworks={**kb.frameworks, "mlx": mlx.model_copy(update={"hardware": hardware})})
    result = _assess(locked, ON_NVIDIA)
    assert _criterion(result, "mlx", "hardware_fit").score == _criterion(result, "pytorch", "hardware_fit").score
    locked_port = _parts(_criterion(result, "mlx", "governance"))["portability"]
    assert locked_port.score == 0.0 and {f["status"] for f in locked_port.figures} == {"none"}
    assert _parts(_criterion(result, "pytorch", "governance"))["portability"].score > 0.0


def test_each_route_counts_once_the_team_vendor_in_fit_the_others_in_portability(kb: Any) -> None:
    result = _assess(kb, "weights: {governance: 5}\nconstraints: {must_run_on: [nvidia_jetson]}\n")
    figures = _parts(_criterion(result, "pytorch", "governance"))["portability"].figures
    # A Jetson is NVIDIA's: leaving the vendor leaves its CUDA servers too, so no NVIDIA route is portability.
    assert "nvidia" not in {f["vendor"] for f in figures}
    assert {f["vendor"] for f in figures} == set(VENDOR.values()) - {"nvidia"}


def test_without_team_hardware_breadth_stays_in_hardware_fit_and_governance_is_its_fact(kb: Any) -> None:
    result = _assess(kb, "weights: {hardware_fit: 5, governance: 5}\n")
    for b in result.ranking:
        gov = _criterion(result, b.framework, "governance")
        fit = _criterion(result, b.framework, "hardware_fit")
        assert gov.parts == [] and gov.knowledge_score == kb.frameworks[b.framework].scores["governance"].score
        assert fit.knowledge_score == kb.frameworks[b.framework].scores["hardware_fit"].score


def test_the_report_carries_the_parts_as_codes_and_the_markdown_shows_them(kb: Any) -> None:
    resolved = resolve_profile(load_profile_text(ON_NVIDIA), kb)
    result = assess(kb, resolved, probe=probe_fixture(), today=TODAY)
    report = build_report(result, kb, probe=probe_fixture(), bench=None, profile_source="test")
    entry = next(e for e in report.ranking if e.framework == "mlx")
    gov = next(c for c in entry.contributions if c.criterion == "governance")
    assert [p.code for p in gov.parts] == ["stewardship", "portability"]
    assert "portability beyond the team's vendors" in to_markdown(report)
