"""`team merge` Markdown: one onboarding checklist per framework, each item once, naming machines where it differs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.knowledge import load_knowledge
from advisor.team import merge_reports

ROOT = Path(__file__).resolve().parent.parent
TEAM = ROOT / "tests" / "fixtures" / "team"
# Two hand-written reports (fake H100s: no GPU here; an old Python) and one real CPU-only report.
THREE = [TEAM / "alice-fake-gpu.json", TEAM / "bob-schema2.json", TEAM / "real-cpu-quick.json"]


@pytest.fixture(scope="module")
def fkb():  # type: ignore[no-untyped-def]
    """The fixture knowledge base (tests/fixtures/checklist/kb)."""
    return load_knowledge(include_user=False, base=ROOT / "tests" / "fixtures" / "checklist" / "kb")


def _item_lines(markdown: str, item_id: str) -> list[str]:
    return [line for line in markdown.splitlines() if re.match(rf"- \[[ x]\] .* `{re.escape(item_id)}`", line)]


def _same(a, b) -> bool:  # type: ignore[no-untyped-def]
    return (a.title, a.detail, a.code, a.done_when, a.links, a.warning) == (
        b.title, b.detail, b.code, b.done_when, b.links, b.warning)


@pytest.mark.parametrize("framework", [None, "pytorch"])
def test_one_checklist_per_framework_with_each_item_once(fkb, framework: str | None) -> None:  # type: ignore[no-untyped-def]
    summary = merge_reports(fkb, THREE, framework=framework)
    machines = summary.machines
    assert len(machines) == 3
    md = summary.to_markdown()
    headings = [line for line in md.splitlines() if line.endswith("onboarding checklist")
                or "onboarding checklist (coming from" in line]
    assert len(headings) == 1 and headings[0].startswith(f"### {summary.framework_name} onboarding checklist")
    assert f"For {', '.join(m.label for m in machines)}." in md
    ids = dict.fromkeys(i for m in machines for i in m.checklist.ids)
    for item_id in ids:
        holders = [(m.label, m.checklist.item(item_id)) for m in machines if m.checklist.item(item_id)]
        variants: list[list[str]] = []
        for label, item in holders:
            for group in variants:
                if _same(dict(holders)[group[0]], item):
                    group.append(label)
                    break
            else:
                variants.append([label])
        lines = _item_lines(md, item_id)
        assert len(lines) == len(variants), (item_id, lines)
        for group, line in zip(variants, lines, strict=True):
            if len(group) == len(machines):
                assert " — for " not in line, line  # the same on every machine: no machine named
            else:
                assert line.endswith(" — for " + ", ".join(group)), (line, group)


def test_merge_of_three_is_far_shorter_than_three_checklists(fkb) -> None:  # type: ignore[no-untyped-def]
    summary = merge_reports(fkb, THREE)
    md = summary.to_markdown()
    separate = sum(len(m.checklist.to_markdown(level=3).splitlines()) for m in summary.machines)
    merged = len(md.split("## Checklists", 1)[1].splitlines())
    assert merged < separate * 2 / 3, (merged, separate)
