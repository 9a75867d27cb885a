"""Stale facts: a fact past its review interval (per fact, per kind, or 180 days) is a stale_fact warning."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from _scoring_support import KB_SMALL

from advisor.knowledge import load_knowledge
from advisor.knowledge.freshness import DEFAULT_REVIEW_DAYS, stale_facts
from advisor.profile import load_profile_text, resolve_profile
from advisor.report import build_report, validate_report
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
    validate_report(report)  # the new fields are in the committed schema
    warning = next(w for w in report["warnings"] if w["code"] == "stale_fact")
    assert warning["fact"] == "mindspore.scores.community" and warning["as_of"] == "2025-09-01"
    assert warning["framework"] == "mindspore" and "2025-09-01" in warning["message"]


def test_review_interval_is_overridable_per_fact(tmp_path: Path) -> None:
    kb = load_knowledge([_pack(tmp_path / "pack")], include_user=False, base=KB_SMALL)
    stale = {f.id: f.review_days for f in stale_facts(kb, TODAY)}
    assert stale == {"jax.scores.performance": 30}  # 61 days old, monthly review; the old fact now has 900 days
    assert stale_facts(kb, dt.date(2026, 10, 31)) == []
