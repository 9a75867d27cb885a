"""Team merge and checklists never crash on odd report contents (hypothesis-generated JSON in every section)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.checklist import build_checklist, checklist_document
from advisor.errors import ReportError
from advisor.jsonio import model_json
from advisor.knowledge import load_knowledge
from advisor.team import merge_reports
from advisor.team.foreign_probe import lenient_probe
from advisor.team.sanity import absurd_number

ROOT = Path(__file__).resolve().parent.parent
FKB = load_knowledge(include_user=False, base=ROOT / "tests" / "fixtures" / "checklist" / "kb")
BASE = json.loads((ROOT / "tests" / "fixtures" / "team" / "alice-fake-gpu.json").read_text())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12,
)
# Paths into a real report where a later or broken version might put anything at all.
PATHS = [
    ("probe",),
    ("probe", "cpu"),
    ("probe", "gpus"),
    ("probe", "gpus", "devices"),
    ("probe", "gpus", "cuda_driver_version"),
    ("probe", "gpus", "driver_version"),
    ("probe", "accelerators"),
    ("probe", "accelerators", "tpu"),
    ("probe", "software"),
    ("probe", "software", "python"),
    ("probe", "frameworks"),
    ("probe", "frameworks", "jax"),
    ("probe", "frameworks", "jax", "devices"),
    ("benchmarks",),
    ("benchmarks", "results"),
    ("knowledge",),
    ("machine",),
    ("profile",),
    ("recommendation",),
    ("ranking",),
    ("schema_version",),
]


def _put(report: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node: Any = report
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(PATHS), json_values), min_size=1, max_size=4))
def test_merge_never_crashes_on_odd_sections(tmp_path_factory, edits: list[tuple[tuple[str, ...], Any]]) -> None:  # type: ignore[no-untyped-def]
    report = json.loads(json.dumps(BASE))
    for path, value in edits:
        _put(report, path, value)
    path = Path(tmp_path_factory.mktemp("fuzz")) / "r.json"
    path.write_text(json.dumps(report))
    try:
        summary = merge_reports(FKB, [path], framework="jax", from_framework="pytorch")
    except ReportError as exc:  # a NaN, an Infinity or an absurd count: the file is named and skipped
        assert absurd_number(report) is not None, exc
        return
    assert absurd_number(report) is None
    assert summary.machines and summary.to_markdown().startswith("# Team summary")
    json.dumps(model_json(summary))


@settings(max_examples=150, deadline=None)
@given(probe=json_values)
def test_checklist_never_crashes_on_any_probe_json(probe: Any) -> None:
    # A report file's probe section of any shape, read at the edge as `team merge` and `checklist --report` read it.
    c = build_checklist(FKB, "pytorch", lenient_probe(probe) if isinstance(probe, dict) and probe else None)
    assert c.item(f"install.{c.backend.value}.pytorch") is not None
    c.to_markdown()
    json.dumps(checklist_document(c))
