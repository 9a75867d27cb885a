"""The report and the team decision carry scoring's own results: one model per concept, nothing copied by hand."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

from _scoring_support import bench_fixture, load_small_kb, probe_fixture
from pydantic import BaseModel

from advisor.jsonio import json_text
from advisor.profile import load_profile_text, resolve_profile
from advisor.report import Report, build_report, report_from_json, to_json_text
from advisor.report.models import worded_recommendation
from advisor.report.words import break_even_statement, exclusion_reasons, fragility_statement, warning_words
from advisor.scoring import assess
from advisor.scoring.advice import Recommendation
from advisor.scoring.constraints import Exclusion
from advisor.scoring.engine import AssessmentWarning
from advisor.scoring.explain import Contribution
from advisor.scoring.migration import MoveCost
from advisor.scoring.result import Result
from advisor.scoring.sensitivity import Sensitivity
from advisor.team.decide import Disagreement, decide
from advisor.team.decision_doc import to_document
from advisor.team.decision_schema import TeamDecisionDoc
from advisor.team.fragility import Fragility
from advisor.team.members import load_members

#: An incumbent with code to move and a licence rule that excludes MLX: every section of the report is filled.
PROFILE = """\
team: {current: [tensorflow], size: 3}
codebase: {kloc: 40}
weights: {performance: 3, ecosystem: 2, migration_cost: 4}
constraints: {licenses: [Apache-2.0, BSD-3-Clause]}
"""


def _json(model: BaseModel | None) -> Any:
    return None if model is None else json.loads(json_text(model.model_dump(mode="json")))


def _classes(annotation: Any) -> set[type]:
    """Every class named in a field's annotation (`list[X] | None` -> {list, X, NoneType})."""
    out: set[type] = set()
    if isinstance(annotation, type):
        out.add(annotation)
    for arg in typing.get_args(annotation):
        out |= _classes(arg)
    return out


def test_each_report_section_is_typed_by_the_scoring_result_itself() -> None:
    fields = Report.model_fields
    wanted = {
        "sensitivity": Sensitivity,
        "exclusions": Exclusion,
        "warnings": AssessmentWarning,
        "recommendation": Recommendation,
        "migration": MoveCost,
    }
    for name, cls in wanted.items():
        # A subclass adds only the edge's words (`ReportWarning.message`); the fields are scoring's own.
        classes = _classes(fields[name].annotation)
        assert any(issubclass(c, cls) for c in classes), f"report.{name} is not scoring's {cls.__name__}"
    ranking_entry = next(c for c in _classes(fields["ranking"].annotation) if issubclass(c, BaseModel))
    assert Contribution in _classes(ranking_entry.model_fields["contributions"].annotation)
    team = TeamDecisionDoc.model_fields
    assert any(issubclass(c, Fragility) for c in _classes(team["fragility"].annotation))
    assert Disagreement in _classes(team["disagreements"].annotation)


def test_what_the_report_writes_is_exactly_what_scoring_made(tmp_path: Path) -> None:
    kb = load_small_kb()
    probe, bench = probe_fixture(), bench_fixture()
    a = assess(kb, resolve_profile(load_profile_text(PROFILE), kb), probe=probe, bench=bench, draws=200)
    assert a.sensitivity is not None and a.migration and a.exclusions and a.recommendation.break_even is not None
    # identify=True: the report's strings are not scrubbed, so every value must come through unchanged.
    report = build_report(a, kb, probe=probe, bench=bench, profile_source="p.yaml", identify=True)
    data = json.loads(to_json_text(report))
    assert data["sensitivity"] == _json(a.sensitivity)
    # Scoring's codes and figures, plus the words the report's edge writes from them (statement, reasons).
    gap = a.recommendation.break_even
    said = worded_recommendation(a.recommendation)
    assert data["recommendation"] == {
        **_json(a.recommendation), "break_even": {**_json(gap), "statement": break_even_statement(gap)},
        "summary": said.summary, "next_steps": said.next_steps, "break_even_at": said.break_even_at,
    }
    assert data["exclusions"] == [{**_json(x), "reasons": exclusion_reasons(x)} for x in a.exclusions]
    # Scoring's code and params, plus the words the report's edge writes from them for a reader of the file.
    assert data["warnings"] == [{**_json(w), "message": warning_words(w)} for w in a.warnings]
    assert data["migration"] == {fid: _json(cost) for fid, cost in a.migration.items()}
    for entry, b in zip(data["ranking"], a.ranking, strict=True):
        assert entry["contributions"] == [_json(c) for c in b.contributions]
    # And the file reads back into the same scoring objects.
    path = tmp_path / "r.json"
    path.write_text(to_json_text(report))
    again = report_from_json(json.loads(path.read_text()), str(path))
    assert again.recommendation == report.recommendation and isinstance(again.recommendation, Recommendation)
    assert again.migration == report.migration


def test_the_team_document_writes_the_fragility_decide_found(tmp_path: Path) -> None:
    kb = load_small_kb()
    paths = []
    for i, weights in enumerate(["{performance: 5, ecosystem: 1}", "{ecosystem: 5, performance: 1}"]):
        p = tmp_path / f"m{i}.yaml"
        p.write_text(f"member: m{i}\nweights: {weights}\n")
        paths.append(p)
    members, left_out = load_members(kb, paths)
    d = decide(kb, members, left_out=left_out, draws=200)
    doc = to_document(d, kb, probe=None, bench=None, evidence="none")
    data = json.loads(json_text(doc.model_dump(mode="json")))
    # Scoring's finding as code and fields, plus the statement the document's edge writes from them.
    assert data["fragility"] == {**_json(d.fragility), "statement": fragility_statement(d.fragility)}
    assert d.fragility.code and data["fragility"]["statement"]
    assert data["disagreements"] == [_json(x) for x in d.disagreements] and d.disagreements


def test_every_scoring_result_is_strict_and_reads_back_its_own_json() -> None:
    kb = load_small_kb()
    a = assess(kb, resolve_profile(load_profile_text(PROFILE), kb), probe=probe_fixture(), draws=200)
    results: list[Result] = [a.recommendation, *a.exclusions, *a.warnings, *a.migration.values()]
    results += [c for b in a.ranking for c in b.contributions]
    for r in results:
        dumped = r.model_dump(mode="json")
        assert type(r).model_validate(dumped) == r
        try:
            type(r).model_validate({**dumped, "unknown_field": 1})
        except ValueError:
            continue
        raise AssertionError(f"{type(r).__name__} accepted an unknown field")
