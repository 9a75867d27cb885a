"""Codes, not sentences: every code has words, no scoring or team model keeps a sentence, old files keep theirs."""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from _scoring_support import ROOT, load_small_kb, run_cli
from pydantic import BaseModel

from advisor.profile import load_profile_text, resolve_profile
from advisor.report import Report, build_report, load_report, to_markdown
from advisor.report.models import ReportExclusion
from advisor.report.words import (
    _DIFFER_RULES,
    break_even_statement,
    exclusion_cause_words,
    exclusion_reasons,
    fragility_statement,
    left_out_words,
    note_words,
    team_warning_words,
    warning_sentence,
    warning_words,
)
from advisor.scoring import assess
from advisor.scoring.constraints import ExclusionCause, ExclusionCode
from advisor.scoring.decision import BreakEvenCode
from advisor.scoring.engine import AssessmentWarning, WarningCode
from advisor.scoring.explain import NoteCode
from advisor.team.decision_schema import DocTeamWarning, LeftOutSection, TeamDecisionDoc
from advisor.team.fragility import Flip, Fragility, FragilityCode
from advisor.team.members import LeftOut, LeftOutCode
from advisor.team.warnings import TeamWarning, TeamWarningCode

#: Parameters as scoring writes them, one set per code (a new code without one fails below).
WARNING_PARAMS: dict[WarningCode, list[dict[str, Any]]] = {
    WarningCode.PROFILE: [{"detail": "the weights sum to zero"},  # a report written before profile codes
                          {"kind": "no_team_size"}, {"kind": "equal_weights", "scenario": "generic"},
                          {"kind": "pairwise_inconsistent", "consistency_ratio": 0.3, "threshold": 0.1},
                          {"kind": "weight_above_scale", "criterion": "performance", "weight": 30, "scale": 5},
                          {"kind": "weights_swamped", "criteria": "deployment", "share": 0.2, "others": 9}],
    WarningCode.HARDWARE: [
        {"form": "gpu_floor", "detail": "PyTorch 2.9's CUDA wheels need compute capability 7.0 or newer"},
        {"form": "cpu_only_build", "accelerators": "nvidia_cuda"},
        {"form": "requirement", "check": "cuda_driver", "detail": "driver 535, needs 550"},
        {"form": "requirement", "check": "cuda_driver", "checked": "pytorch", "requirement": "cuda_driver",
         "cuda_build": "13.0", "need": 580, "driver": "570.86.15"},
        {"form": "requirement", "check": "python", "checked": "jax", "requirement": "python", "python": "3.10",
         "supported": "3.11, 3.12", "installed": "0.4.30"},
    ],
    WarningCode.PYTHON_VERSION: [{"detail": "JAX's current release needs Python 3.12 or newer"}],
    WarningCode.KNOWLEDGE: [{"detail": "no migration entry from mxnet"}, {"source": "mxnet", "target": "jax"}],
    WarningCode.STALE_FACT: [{"subject": "performance", "review_days": 180}],
    WarningCode.BENCHMARK_OUTLIER: [{"detail": "a 40x gap"},
                                    {"benchmark": "gemm", "variant": "fp32", "ratio": 0.02, "floor": 0.1}],
    WarningCode.BENCHMARK_SPREAD: [{"detail": "3 of 5 measurements have a wide spread"},
                                   {"benchmark": "gemm", "variant": "fp32", "spread": 0.6, "left_out": 1,
                                    "measurements": 5},
                                   {"benchmark": "gemm", "variant": "fp32", "flag": "few_samples", "measurements": 5}],
    WarningCode.MACHINE_BUSY: [{"detail": "the machine was busy"},
                               {"figures": 9, "busy_figures": 7, "steal_pct_max": 12.0, "others_cores_max": 1.7,
                                "others_cores_median": 1.2, "cores": 2},
                               {"figures": 9, "busy_figures": 7, "reasons": "CPU steal up to 40%"}],
    WarningCode.BENCH_FAILURE: [{"device": "cpu", "benchmark": "conv", "outcome": "timed_out", "error": "60 s"}],
    WarningCode.IMPORT_FAILURE: [{"outcome": "import_error", "error": "ImportError"},
                                 {"outcome": "crashed", "error": ""}],
    WarningCode.METHOD: [{"topsis_first": "jax", "weighted_first": "pytorch"}],
}

TEAM_PARAMS: dict[TeamWarningCode, list[tuple[dict[str, Any], str | None]]] = {
    TeamWarningCode.MEMBER_LEFT_OUT: [({"reason": "line 2, weights: not a mapping"}, None)],
    TeamWarningCode.MEMBER_PROFILE: [({"detail": "the weights sum to zero"}, None), ({"kind": "no_team_size"}, None)],
    TeamWarningCode.MEMBERS_DIFFER: [
        ({"values": "4, 6", "used": 6}, "team.size"),
        ({"values": "['pytorch'], ['jax']", "used": "['pytorch', 'jax']"}, "team.current"),
        ({"values": "12, 24", "used": 12.0}, "team.horizon_months"),
        ({"values": "small, large", "used": "120 kLOC"}, "codebase"),
        ({"values": "3.11, 3.12", "used": "3.11"}, "environment.python"),
        ({"values": "mobile, llm", "used": None}, "scenario"),
    ],
    TeamWarningCode.NO_GROUP_MATRIX: [({}, None)],
    TeamWarningCode.GROUP_INCONSISTENT: [({"consistency_ratio": 0.234}, None)],
    TeamWarningCode.TEAM_OF_ONE: [({}, None)],
}


def _fragility(code: FragilityCode) -> Fragility:
    """A finding of each code as decide makes it (the smallest flip of a weights member, and one decisive member)."""
    flip = Flip(member="ben", criterion="performance", how="weight", from_share=0.4, to_share=0.25, change=-0.15,
                factor=None, new_winner="jax")
    verdict = {"fragile": "fragile", "robust_to_one": "robust", "robust": "robust"}.get(code, "none")
    flips = [flip] if code in ("fragile", "robust_to_one") else []
    return Fragility(
        verdict=verdict, code=code, flips=flips, smallest=flips[0] if flips else None,  # type: ignore[arg-type]
        without={"ana": "jax", "ben": "pytorch"} if code == "fragile" else {},
        params={"winner": "PyTorch", "criterion": "Performance", "tie": 1},
        names={"jax": "JAX"},
    )


def test_every_fragility_code_has_words() -> None:
    for code in FragilityCode:
        said = fragility_statement(_fragility(code))
        _worded(said, code)
        assert said.endswith(".") and said[0].isupper(), said
    fragile = fragility_statement(_fragility(FragilityCode.FRAGILE))
    assert fragile.startswith("Fragile: without ana, the team's answer would be JAX; if ben moved their weight of ")
    assert "from 40% to 25%, JAX would tie with PyTorch and then lead." in fragile
    assert fragile.endswith("(see the sensitivity).")


def _worded(text: str, code: str) -> None:
    """Words a reader can use: not empty, not the bare code, no placeholder or Python repr left in them."""
    assert text.strip() and text != code, code
    for leftover in ("{", "}", "None", "<", "TODO"):
        assert leftover not in text, (code, text)


def test_every_warning_code_has_words() -> None:
    assert set(WARNING_PARAMS) == set(WarningCode)
    for code, sets in WARNING_PARAMS.items():
        for params in sets:
            w = AssessmentWarning(code=code, params=params, framework="jax", fact="jax.scores.x", as_of="2026-01-01")
            _worded(warning_words(w), code)
            assert warning_sentence(w).startswith("jax: ")


def test_every_team_warning_code_has_words() -> None:
    assert set(TEAM_PARAMS) == set(TeamWarningCode)
    fields = {f for sets in TEAM_PARAMS.values() for _, f in sets if f}
    assert fields == set(_DIFFER_RULES)  # every field members can state differently has its rule in words
    for code, sets in TEAM_PARAMS.items():
        for params, field in sets:
            clean = {k: v for k, v in params.items() if v is not None}
            _worded(team_warning_words(TeamWarning(code=code, params=clean, field=field)), code)


#: Parameters as constraints.py writes them, one set per code, and the words scoring used to write for them.
EXCLUSION_PARAMS: dict[ExclusionCode, tuple[dict[str, str], str]] = {
    ExclusionCode.NOT_CONSIDERED: ({}, "not in the profile's list of frameworks to consider"),
    ExclusionCode.EXCLUDED: ({}, "excluded by profile"),
    ExclusionCode.HARDWARE: ({"hardware": "huawei_ascend", "framework": "JAX", "support": "none"},
                             "must run on huawei_ascend (profile): JAX's support is 'none'"),
    ExclusionCode.NO_ROUTE: ({"target": "browser"},
                             "must deploy to browser (profile): the knowledge base knows no route"),
    ExclusionCode.ROUTE: ({"target": "browser", "route": "r", "support": "none"},
                          "must deploy to browser (profile): route 'r' is 'none'"),
    ExclusionCode.LICENCE: ({"licence": "MIT", "allowed": "Apache-2.0"},
                            "licence MIT is not among the allowed (profile): Apache-2.0"),
    ExclusionCode.JURISDICTION: ({"maintainer": "Meta", "jurisdiction": "US", "allowed": "CN"},
                                 "maintainer jurisdiction (Meta, US) is not among the allowed (profile): CN"),
    ExclusionCode.MULTI_BACKEND: ({"detail": ""}, "one code base must run under several frameworks' backends "
                                  "(profile): no portability fact in the knowledge base"),
    ExclusionCode.OS: ({"os": "windows"}, "does not run natively on windows (knowledge base) (profile environment)"),
    ExclusionCode.NVIDIA: ({"detail": "no native GPU build"}, "cannot use the team's NVIDIA GPUs (profile): no "
                           "native GPU build"),
    ExclusionCode.SAVED: ({"words": "as saved"}, "as saved"),
}


def test_every_exclusion_code_has_the_words_scoring_used_to_write() -> None:
    assert set(EXCLUSION_PARAMS) == set(ExclusionCode)
    for code, (params, words) in EXCLUSION_PARAMS.items():
        said = exclusion_cause_words(ExclusionCause(code=code, params=params))
        _worded(said, code)
        assert said == words
    jur = ExclusionCause(code=ExclusionCode.JURISDICTION, by="policy", name="eu",
                         params={"maintainer": "", "jurisdiction": "", "allowed": "DE"})
    assert exclusion_cause_words(jur) == "maintainer jurisdiction (unknown) is not among the allowed (policy 'eu'): DE"
    member = ExclusionCause(code=ExclusionCode.NOT_CONSIDERED, by="member", name="ben")
    assert exclusion_cause_words(member) == "not among the frameworks ben considers"
    excluded = member.model_copy(update={"code": ExclusionCode.EXCLUDED})
    assert exclusion_cause_words(excluded) == "excluded by ben's profile"


def test_exclusion_codes_round_trip_through_the_report_file_and_write_their_words() -> None:
    cause = ExclusionCause(code=ExclusionCode.LICENCE, by="policy", name="corp",
                           params={"licence": "MIT", "allowed": "Apache-2.0"})
    x = ReportExclusion(framework="mlx", kind="constraint", causes=[cause])
    data = json.loads(x.model_dump_json())
    assert data["causes"] == [{"code": "licence", "by": "policy", "name": "corp",
                               "params": {"licence": "MIT", "allowed": "Apache-2.0"}}]
    assert data["reasons"] == ["licence MIT is not among the allowed (policy 'corp'): Apache-2.0"]
    back = ReportExclusion.model_validate(data)
    assert back == x and back.causes[0].code is ExclusionCode.LICENCE
    data["reasons"] = ["edited words"]  # the words are the edge's: a file's own are rewritten from the codes
    assert ReportExclusion.model_validate(data).reasons == x.reasons


def test_a_planted_exclusion_says_the_same_words_in_the_terminal_markdown_and_json(tmp_path: Any) -> None:
    """`report` re-scoring a saved report under a real profile: the CLI, Markdown and JSON words come from the codes."""
    profile = tmp_path / "p.yaml"
    profile.write_text("constraints: {must_run_on: [huawei_ascend], licenses: [Apache-2.0]}\n", encoding="utf-8")
    saved = str(ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json")
    args = ["report", "--from-json", saved, "--profile", str(profile), "--seed", "1"]
    as_json, as_md = run_cli([*args, "--json"], base=None), run_cli([*args, "--markdown"], base=None)
    terminal = run_cli(args, base=None)
    assert as_json.returncode == as_md.returncode == terminal.returncode == 0, as_json.stderr + terminal.stderr
    report = Report.model_validate_json(as_json.stdout)
    mlx = next(x for x in report.exclusions if x.framework == "mlx")
    assert [(c.code, c.by) for c in mlx.causes] == [(ExclusionCode.HARDWARE, "profile"),
                                                    (ExclusionCode.LICENCE, "profile")]
    words = exclusion_reasons(mlx)
    assert words == ["must run on huawei_ascend (profile): MLX's support is 'none'",
                     "licence MIT is not among the allowed (profile): Apache-2.0"]
    in_file = {x["framework"]: x["reasons"] for x in json.loads(as_json.stdout)["exclusions"]}
    assert in_file["mlx"] == words
    assert f"- mlx: {'; '.join(words)}".replace("_", "\\_") in as_md.stdout
    assert f"excluded mlx: {'; '.join(words)}" in " ".join(terminal.stdout.split())


def test_an_exclusion_written_before_codes_keeps_its_words() -> None:
    data = json.loads((ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json").read_text())
    saved = ["must run on huawei_ascend (profile): JAX's support is 'none'", "licence MIT is not allowed"]
    data["exclusions"] = [{"framework": "jax", "kind": "constraint", "reasons": saved}]
    report = Report.model_validate(data)  # schema 1.0: reasons as words, no causes
    (x,) = report.exclusions
    assert [c.code for c in x.causes] == [ExclusionCode.SAVED] * 2
    assert exclusion_reasons(x) == saved and x.reasons == saved
    again = Report.model_validate_json(report.model_dump_json())
    assert again.exclusions == report.exclusions


def test_the_words_are_the_ones_scoring_used_to_write() -> None:
    said = team_warning_words(TeamWarning(code=TeamWarningCode.GROUP_INCONSISTENT, params={"consistency_ratio": 0.234}))
    assert "(consistency ratio 0.23 > 0.10)" in said
    w = AssessmentWarning(code=WarningCode.STALE_FACT, params={"subject": "community", "review_days": 30},
                          fact="mindspore.scores.community", as_of="2025-09-01")
    assert warning_words(w) == "community (2025-09-01) is past its 30-day review interval [mindspore.scores.community]"


#: Free-text fields left in the report's and the team decision's models, each with why it may stay.
EDGE = {
    ("ReportWarning", "message"): "written at the report edge from code and params (advisor/report/words.py)",
    ("DocTeamWarning", "message"): "written at the decision document's edge from code and params",
    ("DocFragility", "statement"): "written at the decision document's edge from code, params and names",
    ("ReportExclusion", "reasons"): "written at the report edge from each cause's code and params",
    ("ReportBreakEven", "statement"): "written at the report edge from code, figures and names",
    ("LeftOutSection", "reason"): "written at the decision document's edge from code and params",
    ("RankingEntry", "notes"): "written at the report edge from note_codes (a report older than 1.4 keeps its own)",
}
#: Sentences still composed in scoring or team (issue 21 item 3, not done yet): each must go, and then leave here.
NOT_YET = {
}
_SENTENCE_NAMES = {"message", "statement", "reason", "reasons", "notes"}


def _models(annotation: Any) -> set[type[BaseModel]]:
    out: set[type[BaseModel]] = set()
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        out.add(annotation)
    for arg in typing.get_args(annotation):
        out |= _models(arg)
    return out


def _text_fields(root: type[BaseModel]) -> set[tuple[str, str]]:
    """(model, field) for every field named like a sentence that holds text, in `root` and every model below it."""
    seen: set[type[BaseModel]] = set()
    todo, found = [root], set()
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            todo += _models(info.annotation)
            if name in _SENTENCE_NAMES and str in _classes(info.annotation):
                found.add((model.__name__, name))
    return found


def _classes(annotation: Any) -> set[Any]:
    out: set[Any] = {annotation} if isinstance(annotation, type) else set()
    for arg in typing.get_args(annotation):
        out |= _classes(arg)
    return out


def test_no_model_of_the_report_or_decision_keeps_a_sentence_outside_the_edge() -> None:
    found = _text_fields(Report) | _text_fields(TeamDecisionDoc)
    assert found - set(EDGE) - set(NOT_YET) == set(), "a new free-text field: give it a code and params"
    assert set(NOT_YET) <= found, "a field is gone from the models: take it off NOT_YET"
    assert set(EDGE) <= found


def test_a_report_written_before_codes_keeps_its_words() -> None:
    report = load_report(ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json")  # schema 1.0
    saved = json.loads((ROOT / "tests" / "fixtures" / "team" / "real-cpu-quick.json").read_text())["warnings"]
    assert report.warnings and [w.params for w in report.warnings] == [{}] * len(saved)
    assert [warning_words(w) for w in report.warnings] == [s["message"] for s in saved]


def test_a_team_decision_written_before_codes_keeps_its_words() -> None:
    old = DocTeamWarning.model_validate({"code": "members_differ", "message": "saved words", "field": "team.size"})
    assert team_warning_words(old) == "saved words"
    with pytest.raises(ValueError):
        DocTeamWarning.model_validate({"code": "not_a_code", "message": "x"})
    assert "2.0" in str(TeamDecisionDoc.model_fields["schema_version"].annotation)


#: An incumbent with code to move: the report has a break-even (the small knowledge base, no evidence).
BREAK_EVEN_PROFILE = "team: {current: [tensorflow], size: 3}\ncodebase: {kloc: 40}\n"


def _break_even_report() -> Report:
    kb = load_small_kb()
    a = assess(kb, resolve_profile(load_profile_text(BREAK_EVEN_PROFILE), kb), draws=200)
    return build_report(a, kb, probe=None, bench=None, profile_source="p.yaml")


def test_every_break_even_code_has_words_and_the_steps_find_it_by_index() -> None:
    report = _break_even_report()
    rec, gap = report.recommendation, report.recommendation.break_even
    assert gap is not None and gap.code is not None and rec.break_even_at is not None
    assert rec.next_steps[rec.break_even_at] == gap.statement == break_even_statement(gap)
    tails = {
        BreakEvenCode.PAYS: "is advised.", BreakEvenCode.NO_MARGIN: "even at no cost: stay with TensorFlow.",
        BreakEvenCode.TOO_COSTLY: "capacity", BreakEvenCode.WITHIN_UNCERTAINTY: "more than its uncertainty.",
        BreakEvenCode.STAY: "Stay with TensorFlow.",
    }
    assert set(tails) == set(BreakEvenCode)
    for code, tail in tails.items():
        said = break_even_statement(gap.model_copy(update={"code": code}))
        _worded(said, code)
        assert tail in said and said.startswith("Moving to "), said
    # The codes and names travel through the file; the statement is written again from them on reading.
    data = json.loads(report.model_dump_json())
    assert data["recommendation"]["break_even"]["code"] == gap.code.value
    assert data["recommendation"]["break_even"]["names"]["tensorflow"] == "TensorFlow"
    data["recommendation"]["break_even"]["statement"] = "edited words"
    again = Report.model_validate(data)
    assert again.recommendation == rec and again.recommendation.break_even is not None
    assert again.recommendation.break_even.statement == gap.statement


def test_a_break_even_written_before_codes_keeps_its_words_and_is_said_once() -> None:
    data = json.loads(_break_even_report().model_dump_json())
    rec = data["recommendation"]
    at = rec.pop("break_even_at")
    del rec["headline"], rec["steps"]  # a 1.3 file has the words only
    for key in ("code", "names"):
        del rec["break_even"][key]
    rec["break_even"]["statement"] = rec["next_steps"][at] = "Saved words of a 1.3 report."
    data["schema_version"] = "1.3"
    old = Report.model_validate(data)
    assert old.recommendation.break_even is not None and old.recommendation.break_even.code is None
    assert break_even_statement(old.recommendation.break_even) == "Saved words of a 1.3 report."
    assert old.recommendation.break_even_at == at  # found among the file's own steps, as saved
    summary = to_markdown(old).split("\n\n## ")[0]
    assert "- Stay or move: Saved words of a 1.3 report." in summary
    assert "- Next: Saved words" not in summary  # said once


def test_every_left_out_code_has_words_and_a_saved_reason_stays() -> None:
    params = {
        LeftOutCode.INVALID: {"line": 2, "field": "weights", "detail": "not a mapping"},
        LeftOutCode.SAME_FILE: {"first": "a.yaml"},
        LeftOutCode.SAME_MEMBER: {"member": "Ana", "first": "a.yaml"},
    }
    assert set(params) == set(LeftOutCode)
    for code, p in params.items():
        x = LeftOut("b.yaml", code, p)
        section = LeftOutSection.model_validate(json.loads(LeftOutSection(file="b.yaml", code=code, params=p)
                                                           .model_dump_json()))
        _worded(left_out_words(x), code)
        assert section.reason == left_out_words(x) == left_out_words(section) and section.code is code
    assert left_out_words(LeftOut("b.yaml", LeftOutCode.INVALID, params[LeftOutCode.INVALID])) == (
        "line 2: weights: not a mapping")
    assert left_out_words(LeftOut("c.yaml", LeftOutCode.INVALID, {"line": 0, "field": "", "detail": "no such file"})) \
        == "no such file"
    old = LeftOutSection.model_validate({"file": "b.yaml", "reason": "saved words"})  # team decision 2.1
    assert old.code is None and left_out_words(old) == "saved words"


def test_every_note_code_has_words_and_a_1_3_report_keeps_its_notes() -> None:
    params: dict[NoteCode, dict[str, str | float]] = {
        NoteCode.GPU_FLOOR: {"detail": "no release supports a P100"},
        NoteCode.PYTHON_VERSION: {"detail": "JAX's current release needs Python 3.12 or newer"},
        NoteCode.SERVING_GAP: {"serving": "triton", "stack": "Triton", "framework": "JAX"},
        NoteCode.NO_MIGRATION_ENTRY: {"source": "mxnet", "target": "jax"},
        NoteCode.ON_TEAM_HARDWARE: {"criterion": "hardware_fit", "name": "Hardware fit", "detail": "amd_rocm 5.0"},
        NoteCode.HARDWARE_CAP: {"criterion": "performance", "name": "Performance", "detail": "capped", "cap": 2.0},
        NoteCode.DOMAINS: {"criterion": "ecosystem", "name": "Ecosystem", "detail": "vision 4.0"},
        NoteCode.PORTABILITY: {"criterion": "vendor_risk", "name": "Vendor risk", "detail": "2 vendors"},
    }
    assert set(params) == set(NoteCode)
    for code, p in params.items():
        _worded(note_words(code, p), code)
    assert note_words(NoteCode.HARDWARE_CAP, params[NoteCode.HARDWARE_CAP]) == "Performance: capped"  # a 1.6 file
    figures: dict[NoteCode, dict[str, str | int | float]] = {  # since 1.7 the findings carry figures
        NoteCode.ON_TEAM_HARDWARE: {"criterion": "hardware_fit", "name": "Hardware fit", "parts": "amd_rocm 5.0",
                                    "general": 4.0, "breadth": 1},
        NoteCode.HARDWARE_CAP: {"criterion": "performance", "name": "Performance", "cap": 2.0,
                                "routes": "apple_metal preview (plugin)"},
        NoteCode.DOMAINS: {"criterion": "ecosystem", "name": "Ecosystem", "domains": "vision 4.0", "general": 4.5},
        NoteCode.PORTABILITY: {"criterion": "vendor_risk", "name": "Vendor risk", "vendors": "nvidia", "score": 3.5,
                               "reach": "amd 3.0, google 4.0"},
    }
    for code, p in figures.items():
        _worded(note_words(code, p), code)
    assert note_words(NoteCode.HARDWARE_CAP, figures[NoteCode.HARDWARE_CAP]) == (
        "Performance: capped at 2.00: reaches the team's hardware through apple_metal preview (plugin)")
    assert "(amd_rocm 5.0) used in place of the general 4.0 (breadth beyond it" in note_words(
        NoteCode.ON_TEAM_HARDWARE, figures[NoteCode.ON_TEAM_HARDWARE])
    assert note_words(NoteCode.NO_MIGRATION_ENTRY, params[NoteCode.NO_MIGRATION_ENTRY]) == (
        "no migration entry mxnet -> jax in the knowledge base")
    # A 1.4 report writes its notes from the codes (its own words are not read back); a 1.3 report keeps its own.
    data = json.loads(_break_even_report().model_dump_json())
    entry = data["ranking"][0]
    entry["note_codes"] = [{"code": "serving_gap", "params": params[NoteCode.SERVING_GAP]}]
    entry["notes"] = ["edited words"]
    said = note_words(NoteCode.SERVING_GAP, params[NoteCode.SERVING_GAP])
    assert Report.model_validate(data).ranking[0].notes == [said]
    entry["note_codes"], entry["notes"] = [{"code": "serving_gap", "params": {"serving": "triton"}}], ["saved words"]
    data["schema_version"] = "1.3"
    assert Report.model_validate(data).ranking[0].notes == ["saved words"]


def test_every_step_and_headline_code_has_words_and_the_file_rewrites_them_from_the_codes() -> None:
    from advisor.scoring.advice_words import _WORDS
    from advisor.scoring.steps import HeadlineCode, StepCode

    said_elsewhere = {StepCode.BREAK_EVEN, StepCode.ROUTE, StepCode.INSTALL, StepCode.CHECK_WEIGHTS}
    assert set(_WORDS) | said_elsewhere == set(StepCode) and not set(_WORDS) & said_elsewhere
    report = _break_even_report()
    rec = report.recommendation
    assert rec.headline is not None and rec.headline.code in set(HeadlineCode)
    assert len(rec.next_steps) == len(rec.steps) and all(rec.next_steps)
    data = json.loads(report.model_dump_json())
    data["recommendation"]["summary"] = "edited"
    data["recommendation"]["next_steps"] = ["edited"] * len(rec.steps)
    again = Report.model_validate(data).recommendation
    assert (again.summary, again.next_steps) == (rec.summary, rec.next_steps)  # programs decide on the codes


@pytest.mark.parametrize(("section", "edit"), [
    ("headline", lambda rec, data: rec["headline"]["params"].clear()),
    ("step", lambda rec, data: rec["steps"].append(
        {"code": "tie_criteria", "params": {"name": "x", "criteria": ["a"], "diffs": []}})),
    ("warning", lambda rec, data: data["warnings"].append({"code": "benchmark_outlier", "params": {}})),
])
def test_params_that_do_not_fit_their_code_are_one_line_not_a_traceback(
    section: str, edit: Any, tmp_path: Any
) -> None:
    data = json.loads(_break_even_report().model_dump_json())
    edit(data["recommendation"], data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    done = run_cli(["report", "--from-json", str(path), "--markdown"])
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and str(path) in line and f"{section}'s params do not fit its code" in line, line
