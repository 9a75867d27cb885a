"""The report: committed JSON Schema matches the models, every report validates, no secrets, Markdown adds up."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import ROOT, bench_fixture, load_small_kb, probe_fixture
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.errors import ReportError
from advisor.profile import load_profile_text, resolve_profile
from advisor.report import (
    SCHEMA_PATH,
    SCHEMA_VERSION,
    Report,
    anonymise,
    build_report,
    load_report,
    schema_text,
    to_json_text,
    to_markdown,
    validate_report,
)
from advisor.scoring import assess

PROFILES = [
    "",
    "team: {current: [pytorch]}\ncodebase: {size: large}\n",
    "scenario: mobile\n",
    "pairwise:\n  - [performance, ecosystem, 3]\n  - [ecosystem, deployment, 2]\n",
    "constraints:\n  must_run_on: [google_tpu]\n  licenses: [MIT]\n",  # nothing left
    "frameworks: [jax]\n",  # a single candidate
]
EVIDENCE = [
    (None, None),
    ("probe_cpu_only.json", "bench_quick_cpu.json"),
    ("probe_fake_nvidia_h100.json", None),
    ("probe_fake_tpu_v5e.json", None),
]


def make_report(profile: str = "", probe: str | None = None, bench: str | None = None, **kw: Any) -> Report:
    """A report built through the public API from the test pack and recorded evidence."""
    kb = load_small_kb()
    p = probe_fixture(probe) if probe else None
    b = bench_fixture(bench) if bench else None
    a = assess(kb, resolve_profile(load_profile_text(profile), kb), probe=p, bench=b, draws=300)
    return build_report(a, kb, probe=p, bench=b, profile_source="test", **kw)


def test_committed_schema_matches_the_models() -> None:
    expected = schema_text()
    assert SCHEMA_PATH.read_text(encoding="utf-8") == expected, "regenerate: python -m advisor.report"
    assert (ROOT / "docs" / "report.schema.json").read_text(encoding="utf-8") == expected


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("probe", "bench"), EVIDENCE)
def test_every_report_validates(profile: str, probe: str | None, bench: str | None) -> None:
    report = make_report(profile, probe, bench)
    validate_report(json.loads(to_json_text(report)))
    assert report.schema_version == SCHEMA_VERSION
    for entry in report.ranking:
        assert sum(c.contribution for c in entry.contributions) == entry.total
    reread = json.loads(to_json_text(report))
    for entry in reread["ranking"]:  # floats survive JSON exactly, so the sums still match
        assert sum(c["contribution"] for c in entry["contributions"]) == entry["total"]


def test_invalid_reports_are_rejected_with_the_field(tmp_path: Path) -> None:
    report = make_report().model_dump(mode="json")
    bad = copy.deepcopy(report)
    bad["ranking"][0]["total"] = "high"
    with pytest.raises(ReportError) as info:
        validate_report(bad)
    assert info.value.field == "ranking[0].total"
    bad = copy.deepcopy(report)
    bad["schema_version"] = "9.9"
    with pytest.raises(ReportError, match="schema_version"):
        validate_report(bad)
    path = tmp_path / "broken.json"
    path.write_text('{"schema_version": "1.0",\n  oops}')
    with pytest.raises(ReportError) as info:
        load_report(path)
    assert info.value.line == 2


def test_no_identity_without_identify() -> None:
    report = make_report("", "probe_cpu_only.json", "bench_quick_cpu.json")
    text = to_json_text(report)
    assert report.machine.hostname is None
    assert str(Path.home()) not in text or str(Path.home()) == "/"
    for key in ('"hostname": "', '"user": "', '"username": "'):
        assert key not in text
    # Only the probe's own allow-listed environment appears.
    assert report.probe is not None and report.probe.software is not None
    assert set(report.probe.software.env or {}) == set(probe_fixture().software.env)


def test_identify_keeps_the_host_name() -> None:
    report = make_report("", "probe_cpu_only.json", identify=True, hostname="build-box-7")
    assert report.machine.hostname == "build-box-7"


def test_anonymise_drops_identifying_keys_and_home() -> None:
    home = str(Path.home())
    data = {"software": {"hostname": "h", "user": "u", "path": f"{home}/x/.venv", "env": {"HOME": home}}}
    out = anonymise(data)
    assert out is not None
    assert "hostname" not in out["software"] and "user" not in out["software"]
    if home != "/":
        assert out["software"]["path"] == "~/x/.venv"


def test_markdown_has_every_section_and_displayed_parts_add_up() -> None:
    report = make_report("team: {current: [pytorch]}\n", "probe_cpu_only.json", "bench_quick_cpu.json")
    md = to_markdown(report)
    for heading in ("## Recommendation", "## Ranking", "## Sensitivity", "## Warnings", "## Machine"):
        assert heading in md
    # In every breakdown table, the shown contributions add up to the shown total.
    for block in md.split("\n### ")[1:]:
        rows = [r for r in block.splitlines() if r.startswith("| ") and not r.startswith("| Criterion")]
        parts = [float(r.split("|")[4]) for r in rows if "**Total**" not in r]
        total = float(next(r for r in rows if "**Total**" in r).split("|")[4].strip(" *"))
        assert round(sum(parts), 2) == total


_KB = load_small_kb()


@settings(max_examples=25, deadline=None)
@given(
    weights=st.dictionaries(
        st.sampled_from(sorted(_KB.criteria)), st.floats(0.01, 10, allow_nan=False), min_size=1, max_size=10
    ),
    current=st.lists(st.sampled_from(sorted(_KB.frameworks)), max_size=2, unique=True),
    size=st.sampled_from(["none", "small", "medium", "large"]),
    evidence=st.sampled_from(EVIDENCE),
)
def test_any_profile_gives_a_valid_report_whose_totals_decompose_exactly(
    weights: dict[str, float], current: list[str], size: str, evidence: tuple[str | None, str | None]
) -> None:
    profile = json.dumps({"weights": weights, "team": {"current": current}, "codebase": {"size": size}})
    report = make_report(profile, *evidence)  # JSON is YAML
    validate_report(json.loads(to_json_text(report)))
    for entry in report.ranking:
        parts = [c.contribution for c in entry.contributions]
        assert sum(parts) == entry.total and math.fsum(parts) == entry.total
        assert sum(c.weight for c in entry.contributions) == pytest.approx(1.0)
    if report.sensitivity:
        assert report.sensitivity.winner == report.ranking[0].framework


def test_every_ranking_note_carries_its_code() -> None:
    # A fake NVIDIA probe (this machine has none) gives hardware notes; programs read their codes, not the words.
    report = make_report("team: {current: [jax]}\n", "probe_fake_nvidia_h100.json")
    entries = [e for e in report.ranking if e.notes]
    assert entries
    for e in entries:
        assert len(e.note_codes) == len(e.notes) and all(c.code for c in e.note_codes)
