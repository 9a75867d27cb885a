"""No public function of the core takes or returns untyped JSON (`dict[str, Any]`) except at the edges."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ("knowledge", "evidence", "scoring", "report", "checklist", "team", "fleet", "profile")
UNTYPED = re.compile(r"\b(dict|Dict|Mapping|MutableMapping)\[str, Any\]")
#: Methods whose job is JSON: reading a saved file's object back into its model, a warning's code as JSON.
#: (A model's JSON form is never a method: `advisor.jsonio.model_json` generates it from the fields.)
EDGE_METHODS = {"from_json", "code_json"}

#: Functions that stand at an edge, where JSON is read or written; each says why.
EDGES = {
    # A saved probe or report is read back into the models here, and nowhere else.
    "advisor/evidence/hardware/saved.py::known_fields": "reads one object of a saved probe",
    "advisor/evidence/saved_report.py::read_evidence": "reads a saved report's probe and benchmarks sections",
    # Child processes speak JSON lines: the protocol's own readers.
    "advisor/evidence/child.py::ChildResult.of": "a child's JSON-lines events",
    "advisor/evidence/child.py::run_child": "the child's JSON-lines events",
    "advisor/evidence/bench/session.py::ChildSession.turn": "one request/answer with a bench child",
    "advisor/evidence/bench/session.py::ChildSession.saw": "a bench child's event",
    "advisor/fleet/ray_run.py::read_answer": "a Ray task's JSON answer",
    # The report file and its JSON text (issue 21: build_report returns the Report model, in progress).
    "advisor/report/build.py::anonymise": "scrubs the JSON about to be written",
    "advisor/profile/model.py::profile_to_json": "the profile file's YAML/JSON form",
    "advisor/checklist/model.py::checklist_document": "`checklist --json`, generated from the model",
    "advisor/knowledge/base.py::pack_json": "a pack in `kb list --json`, generated from the model",
    "advisor/knowledge/verify/results.py::document": "`kb verify --json`, generated from the models",
    # Foreign report files for team merge, fleet summary and checklist --report: read defensively, any shape.
    "advisor/team/reading.py::report_warnings": "a report file of any version",
    "advisor/team/saved_report.py::saved_report": "a report file of any version, read once into `SavedReport`",
    "advisor/team/saved_report.py::probe_section": "a report file's probe section, any version",
    "advisor/team/foreign_probe.py::lenient_probe": "a report file's probe JSON of any shape, read into the model",
    "advisor/team/sanity.py::report_identity": "a report file of any version",
    "advisor/knowledge/verify/lister.py::list_files": "a package index's JSON answer",
    "advisor/knowledge/verify/lister.py::metadata": "a package index's JSON answer",
}

#: Not converted yet (issue 21, "typed results"): each entry removed as its function takes a model. The test
#: fails when one is converted and still listed, so this list only shrinks.
NOT_YET: set[str] = set()


def _untyped_signatures() -> set[str]:
    """`path::Qualified.name` of each public function or method whose annotations hold `dict[str, Any]`."""
    found: set[str] = set()

    def visit(body: list[ast.stmt], rel: str, prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, rel, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("_") and node.name != "__init__" or node.name in EDGE_METHODS:
                    continue
                if node.name.endswith("_schema"):  # a JSON Schema generated from a model: JSON is its job
                    continue
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
                annotations = [p.annotation for p in params if p.annotation is not None]
                annotations += [node.returns] if node.returns is not None else []
                if any(UNTYPED.search(ast.unparse(x)) for x in annotations):
                    found.add(f"{rel}::{prefix}{node.name}")

    for package in CORE:
        for path in sorted((ROOT / "advisor" / package).rglob("*.py")):
            visit(ast.parse(path.read_text(encoding="utf-8")).body, path.relative_to(ROOT).as_posix(), "")
    return found


def test_no_new_core_function_takes_or_returns_untyped_json() -> None:
    found = _untyped_signatures()
    new = sorted(found - EDGES.keys() - NOT_YET)
    assert not new, f"public core functions typed dict[str, Any]: pass the model instead: {new}"


def test_the_lists_only_shrink() -> None:
    found = _untyped_signatures()
    stale = sorted((EDGES.keys() | NOT_YET) - found)
    assert not stale, f"no longer dict[str, Any]: remove them from the lists: {stale}"


def test_the_probe_and_bench_travel_as_models() -> None:
    # The functions this change converted: a regression to dicts shows here by name.
    found = _untyped_signatures()
    for name in ("advisor/scoring/evidence.py::present_hardware", "advisor/scoring/evidence.py::machine_busy",
                 "advisor/scoring/evidence.py::benchmark_ratios", "advisor/scoring/engine.py::assess",
                 "advisor/scoring/fleet.py::team_fleet", "advisor/evidence/probe.py::hardware_ids",
                 "advisor/team/decide.py::decide"):
        assert name not in found, name


def test_no_core_model_keeps_its_own_to_json() -> None:
    # Issue 21: a model's JSON is generated from its fields (advisor.jsonio.model_json, computed fields,
    # serialization aliases), so it cannot drift from the model or from the schema generated from it.
    found = []
    for package in CORE:
        for path in sorted((ROOT / "advisor" / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "to_json":
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    assert not found, f"hand-kept to_json (use advisor.jsonio.model_json): {found}"
