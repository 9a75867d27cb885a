"""Stale facts: a fact past its review interval (per fact, per kind, or 180 days) is a stale_fact warning."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from _scoring_support import KB_SMALL

from advisor.knowledge import load_knowledge
from advisor.knowledge.freshness import DEFAULT_REVIEW_DAYS, stale_facts
from advisor.profile import load_profile_text, resolve_profile
from advisor.report import build_report, to_json_text, validate_report
from advisor.report.words import warning_words
from advisor.scoring import assess

TODAY = dt.date(2026, 12, 1)


def _pack(folder: Path) -> Path:
    """An overlay pack (real YAML): one fact reviewed monthly, and the fixture's old fact given a long interval."""
    folder.mkdir()
    (folder / "pack.yaml").write_text(
        "name: freshness\nversion: '1'\nscore_overrides:\n"
        "  - framework: jax\n    criterion: performance\n    score:\n      score: 4\n"
        "      rationale: Re-measured monthly.\n      sources: [https://docs.jax.dev/]\n"
        "      as_of: 2026-10-01\n      review_days: 30\n"
        "  - framework: mindspore\n    criterion: community\n    score:\n      score: 1.5\n"
        "      rationale: Slow-moving.\n      sources: [https://www.mindspore.cn/]\n"
        "      as_of: 2025-09-01\n      review_days: 900\n"
    )
    return folder


def test_fixture_fact_older_than_the_default_interval_is_a_report_warning() -> None:
    kb = load_knowledge(include_user=False, base=KB_SMALL)
    stale = stale_facts(kb, TODAY)
    assert [(f.id, f.as_of, f.review_days) for f in stale] == [
        ("mindspore.scores.community", dt.date(2025, 9, 1), DEFAULT_REVIEW_DAYS)
    ]
    profile = load_profile_text("scenario: research\n")
    a = assess(kb, resolve_profile(profile, kb), today=TODAY)
    report = build_report(a, kb, probe=None, bench=None, profile_source="<test>")
    validate_report(json.loads(to_json_text(report)))  # the new fields are in the committed schema
    warning = next(w for w in report.warnings if w.code == "stale_fact")
    assert warning.fact == "mindspore.scores.community" and warning.as_of == "2025-09-01"
    assert warning.framework == "mindspore" and "2025-09-01" in warning_words(warning)


def test_review_interval_is_overridable_per_fact(tmp_path: Path) -> None:
    kb = load_knowledge([_pack(tmp_path / "pack")], include_user=False, base=KB_SMALL)
    stale = {f.id: f.review_days for f in stale_facts(kb, TODAY)}
    assert stale == {"jax.scores.performance": 30}  # 61 days old, monthly review; the old fact now has 900 days
    assert stale_facts(kb, dt.date(2026, 10, 31)) == []


def _kinds_pack(folder: Path) -> Path:
    """An overlay with an engine, a governance fact and a dated TPU generation (real YAML), all of 2026-11-01."""
    folder.mkdir()
    (folder / "pack.yaml").write_text("name: kinds\nversion: '1'\n")
    (folder / "deployment.yaml").write_text(
        "targets: []\nroutes: []\nengines:\n"
        "  - id: fastserve\n    name: FastServe\n    kind: server\n    status: supported\n    targets: [server]\n"
        "    model_format: safetensors\n    feeds: {pytorch: {status: supported, route: checkpoint}}\n"
        "    sources: [https://example.org/fastserve]\n    as_of: 2026-11-01\n"
    )
    (folder / "stewardship.yaml").write_text(
        "frameworks:\n  - framework: jax\n    maintainer: Google\n    jurisdiction: US\n"
        "    portability: CPU, GPU, TPU\n"
        "    sources: [https://github.com/jax-ml/jax]\n    as_of: 2026-11-01\n"
    )
    return folder


def test_review_interval_by_kind_engines_and_routes_monthly_governance_yearly(tmp_path: Path) -> None:
    from advisor.knowledge.facts import FactKind
    from advisor.knowledge.freshness import REVIEW_DAYS_BY_KIND

    kb = load_knowledge([_kinds_pack(tmp_path / "kinds")], include_user=False, base=KB_SMALL)
    # 44 days after the fixture's 2026-11-01: past a 30-day interval, within 90, 180 and 365.
    stale = {f.id: f for f in stale_facts(kb, dt.date(2026, 12, 15))}
    del stale["mindspore.scores.community"]  # the fixture's one old fact (2025-09-01)
    assert {f.kind for f in stale.values()} == {FactKind.HARDWARE, FactKind.ENGINE}
    assert stale["engines.fastserve"].framework is None and stale["engines.fastserve"].review_days == 30
    # A backend route without its own date is as old as its framework file.
    tpu = stale["jax.hardware.google_tpu"]
    assert (tpu.framework, tpu.as_of, tpu.review_days) == ("jax", dt.date(2026, 11, 1), 30)
    assert "stewardship.jax" not in stale and "jax.scores.performance" not in stale
    # A year and a day later the governance fact is due too; every kind has an interval defined once.
    later = {f.id for f in stale_facts(kb, dt.date(2027, 11, 2))}
    assert "stewardship.jax" in later
    assert set(REVIEW_DAYS_BY_KIND) == set(FactKind)
    assert REVIEW_DAYS_BY_KIND[FactKind.GOVERNANCE] == 365 and REVIEW_DAYS_BY_KIND[FactKind.ENGINE] == 30


def test_stale_route_is_a_report_warning_with_its_code(tmp_path: Path) -> None:
    kb = load_knowledge(include_user=False, base=KB_SMALL)
    profile = load_profile_text("scenario: research\n")
    a = assess(kb, resolve_profile(profile, kb), today=dt.date(2026, 12, 15))
    report = build_report(a, kb, probe=None, bench=None, profile_source="<test>")
    warnings = [w for w in report.warnings if w.code == "stale_fact"]
    tpu = next(w for w in warnings if w.fact == "jax.hardware.google_tpu")
    assert tpu.framework == "jax" and tpu.as_of == "2026-11-01"
