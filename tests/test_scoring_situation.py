"""The team's situation in the scoring: sovereignty, multi-backend, GPU floors, OS GPU support, domains, serving."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from _scoring_support import probe_fixture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.knowledge import load_knowledge
from advisor.profile import load_profile_text, resolve_profile
from advisor.report.models import worded_recommendation
from advisor.report.words import exclusion_reasons, note_words, warning_words
from advisor.scoring import assess
from advisor.scoring.decision import benefit
from advisor.scoring.explain import NoteCode
from advisor.scoring.fleet import team_fleet
from advisor.scoring.steps import StepCode


@pytest.fixture(scope="module")
def kb():  # type: ignore[no-untyped-def]
    return load_knowledge(include_user=False)


def _assess(kb, text: str, probe=None):  # type: ignore[no-untyped-def]
    r = resolve_profile(load_profile_text(text), kb)
    return assess(kb, r, probe=probe, today=dt.date(2026, 12, 1), seed=0, draws=200)


def test_sovereignty_excludes_foreign_maintainers(kb) -> None:  # type: ignore[no-untyped-def]
    a = _assess(kb, "constraints: {maintainer_jurisdictions: [CN]}\n")
    assert {b.framework for b in a.ranking} == {"paddlepaddle", "mindspore"}
    why = {e.framework: exclusion_reasons(e) for e in a.exclusions}
    assert "US" in why["pytorch"][0] and "jurisdiction" in why["pytorch"][0]


def test_multi_backend_leaves_the_multi_backend_layer(kb) -> None:  # type: ignore[no-untyped-def]
    a = _assess(kb, "constraints: {multi_backend: true}\n")
    assert [b.framework for b in a.ranking] == ["keras"]


def test_volta_fleet_marks_current_pytorch_wheels_unsupported(kb) -> None:  # type: ignore[no-untyped-def]
    v100 = "fleet: [{hardware: nvidia_cuda, model: V100, compute_capability: '7.0', count: 8}]\n"
    a = _assess(kb, v100)
    msgs = [warning_words(w) for w in a.warnings if w.code == "hardware" and w.framework == "pytorch"]
    assert msgs and "7.5" in msgs[0] and "2.14" in msgs[0]
    fit = next(
        c for c in next(b for b in a.ranking if b.framework == "pytorch").contributions if c.criterion == "hardware_fit"
    )
    assert any(f.get("status") == "deprecated" for f in fit.figures)
    t4 = _assess(kb, "fleet: [{hardware: nvidia_cuda, model: T4, compute_capability: '7.5'}]\n")
    assert not [w for w in t4.warnings if w.code == "hardware" and w.framework == "pytorch"]


def test_probe_compute_capability_feeds_the_fleet(kb) -> None:  # type: ignore[no-untyped-def]
    probe = probe_fixture("probe_fake_nvidia_h100.json")
    fleet = team_fleet(load_profile_text("").model_copy(), probe)
    assert fleet and fleet[0].compute_capability == "9.0" and fleet[0].count == len(probe.gpus.devices)


def test_pascal_must_run_on_nvidia_excludes_where_no_release_is_known(kb) -> None:  # type: ignore[no-untyped-def]
    # MLX's CUDA backend needs sm_75 and no older release is known: on a P100 fleet it is excluded.
    text = (
        "fleet: [{hardware: nvidia_cuda, model: P100, compute_capability: '6.0'}]\n"
        "constraints: {must_run_on: [nvidia_cuda]}\n"
    )
    a = _assess(kb, text)
    why = {e.framework: " ".join(exclusion_reasons(e)) for e in a.exclusions}
    assert "mlx" in why and "no release is known" in why["mlx"]
    assert "pytorch" in {b.framework for b in a.ranking}  # 2.14 still supports Pascal


def test_windows_without_wsl_excludes_frameworks_without_native_gpu(kb) -> None:  # type: ignore[no-untyped-def]
    a = _assess(kb, "environment: {os: [windows]}\nconstraints: {must_run_on: [nvidia_cuda]}\n")
    why = {e.framework: " ".join(exclusion_reasons(e)) for e in a.exclusions}
    assert "windows" in why["tensorflow"] and "windows" in why["jax"]
    assert "pytorch" in {b.framework for b in a.ranking}


def test_python_outside_the_current_wheels_is_a_warning_not_an_exclusion(kb) -> None:  # type: ignore[no-untyped-def]
    # python_versions is the newest release's: an older release (or a newer Python) is the way out, so the
    # framework stays a candidate and the report says what to do.
    old = _assess(kb, "environment: {python: '3.9'}\n")
    assert "pytorch" in {b.framework for b in old.ranking}
    warned = {w.framework: warning_words(w) for w in old.warnings if w.code == "python_version"}
    assert "needs Python 3.11 or newer" in warned["pytorch"] and "pin an older PyTorch" in warned["pytorch"]
    assert "paddlepaddle" not in warned  # its wheels include 3.9
    new = _assess(kb, "environment: {python: '3.15'}\n")
    warned = {w.framework: warning_words(w) for w in new.warnings if w.code == "python_version"}
    assert "no wheels for Python 3.15 yet" in warned["mindspore"] and "pytorch" not in warned


def test_domains_weight_the_ecosystem_criterion(kb) -> None:  # type: ignore[no-untyped-def]
    plain = _assess(kb, "weights: {ecosystem: 1}\n")
    ocr = _assess(kb, "weights: {ecosystem: 1}\ndomains: {ocr_document: 3, speech: 1}\n")
    by = {b.framework: b for b in ocr.ranking}
    eco = by["paddlepaddle"].contributions[[c.criterion for c in by["paddlepaddle"].contributions].index("ecosystem")]
    expect = (3 * kb.domain_score("ocr_document", "paddlepaddle") + kb.domain_score("speech", "paddlepaddle")) / 4
    assert eco.knowledge_score == pytest.approx(expect)
    assert ocr.ranking[0].framework == "paddlepaddle" != plain.ranking[0].framework
    assert "domains" in eco.evidence


def test_serving_stack_is_noted_for_frameworks_it_cannot_serve(kb) -> None:  # type: ignore[no-untyped-def]
    a = _assess(kb, "serving: [paddle_inference]\n")
    by = {b.framework: b for b in a.ranking}
    gaps = [n for n in by["pytorch"].notes if n.code is NoteCode.SERVING_GAP]
    assert [n.params["serving"] for n in gaps] == ["paddle_inference"]
    assert "Paddle Inference" in note_words(gaps[0].code, gaps[0].params)
    assert not any(n.code is NoteCode.SERVING_GAP for n in by["paddlepaddle"].notes)


def test_totals_still_decompose_exactly_with_every_situation_field(kb) -> None:  # type: ignore[no-untyped-def]
    text = (
        "scenario: production_inference\nteam: {current: [paddlepaddle], size: 6}\n"
        "codebase: {by_framework: {paddlepaddle: 60}}\ndomains: [ocr_document]\nserving: [paddle_inference]\n"
        "fleet: [{hardware: nvidia_cuda, model: V100, compute_capability: '7.0'}]\n"
    )
    a = _assess(kb, text)
    for b in a.ranking:
        assert math.fsum(c.contribution for c in b.contributions) == b.total
        assert sum(c.contribution for c in b.contributions) == b.total
    gap = a.break_even
    assert gap is not None and gap.incumbent == "paddlepaddle"
    by = {b.framework: b for b in a.ranking}
    assert gap.benefit_incumbent == pytest.approx(benefit(by["paddlepaddle"]))
    assert a.recommendation.framework == "paddlepaddle" and a.recommendation.decision == "stay"
    # The break-even is stated (first when a challenger leads the ranking; after the tie's steps otherwise).
    assert any("engineer-months" in step for step in worded_recommendation(a.recommendation).next_steps)


_DOMAINS = ["llm_training", "llm_serving", "vision", "ocr_document", "speech", "recommendation", "rl"]
_FWS = ["pytorch", "jax", "tensorflow", "keras", "paddlepaddle", "mindspore", "mlx"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    current=st.lists(st.sampled_from(_FWS), max_size=2, unique=True),
    kloc=st.floats(min_value=0, max_value=2000),
    size=st.integers(min_value=1, max_value=200) | st.none(),
    domains=st.lists(st.sampled_from(_DOMAINS), max_size=3, unique=True),
    cc=st.sampled_from(["6.0", "7.0", "7.5", "9.0"]) | st.none(),
)
def test_any_situation_decomposes_exactly_and_the_decision_follows_its_rule(  # type: ignore[no-untyped-def]
    kb, current: list[str], kloc: float, size: int | None, domains: list[str], cc: str | None
) -> None:
    team = f"team: {{current: [{', '.join(current)}]" + (f", size: {size}" if size else "") + "}\n"
    text = team + f"codebase: {{kloc: {kloc}}}\ndomains: [{', '.join(domains)}]\n"
    if cc:
        text += f"fleet: [{{hardware: nvidia_cuda, compute_capability: '{cc}'}}]\n"
    a = _assess(kb, text)
    for b in a.ranking:
        assert sum(c.contribution for c in b.contributions) == b.total <= 5
    gap = a.break_even
    rec = a.recommendation
    if gap is None:  # greenfield, every incumbent excluded, or nothing but incumbents left
        ranked = {b.framework for b in a.ranking}
        expect = "choose" if not current else ("stay" if rec.framework in current else "move")
        assert rec.decision == expect and (not current or not (ranked & set(current)) or ranked <= set(current))
        return
    assert gap.incumbent in current and gap.challenger not in current
    if gap.pays:
        assert rec.decision == "move" and rec.framework == gap.challenger
        assert gap.lead >= gap.margin
        # Staying is worth the incumbent's benefit, less what porting the team's other frameworks to it costs.
        stay = gap.value_stay if gap.value_stay is not None else gap.benefit_incumbent
        assert gap.value_move is None or gap.value_move - stay >= gap.margin
    else:
        assert rec.decision == "stay" and rec.framework in current
    if gap.break_even_share is not None and gap.cost is not None:
        assert gap.break_even_effort_engineer_months == pytest.approx(gap.break_even_share * gap.cost.capacity)


def test_an_excluded_incumbent_forces_a_costed_move(kb) -> None:  # type: ignore[no-untyped-def]
    text = "team: {current: [pytorch], size: 10}\ncodebase: {kloc: 50}\nconstraints: {maintainer_jurisdictions: [CN]}\n"
    a = _assess(kb, text)
    rec = a.recommendation
    assert rec.framework in ("paddlepaddle", "mindspore") and rec.decision == "move" and a.break_even is None
    forced = next(s for s in worded_recommendation(rec).next_steps if "a move is required" in s)
    assert any(s.code is StepCode.FORCED_MOVE for s in rec.steps)
    assert "engineer-months" in forced


def test_the_team_s_own_serving_stack_is_deployment_evidence(kb) -> None:  # type: ignore[no-untyped-def]
    text = "team: {current: [paddlepaddle], size: 4}\ncodebase: {kloc: 10}\nserving: [paddle_inference]\n"
    a = _assess(kb, text)
    by = {b.framework: b for b in a.ranking}

    def deploy(fid: str):  # type: ignore[no-untyped-def]
        return next(c for c in by[fid].contributions if c.criterion == "deployment")

    own = deploy("paddlepaddle")
    assert own.measured_score == 5.0 and own.evidence_weight == 0.5
    assert own.score == pytest.approx(0.5 * own.knowledge_score + 2.5)
    assert deploy("pytorch").measured_score is None  # not served by the team today: knowledge only
