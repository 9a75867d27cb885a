"""The CLI's one renderer: text from frameworks, the machine, caches and packs is never parsed as markup."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from _hostile_text import assert_inert, hostile_text
from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parent.parent
PROBE = json.loads((ROOT / "tests" / "fixtures" / "evidence" / "probe_cpu_only.json").read_text())
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _hostile_probe(text: str) -> dict[str, Any]:
    data = copy.deepcopy(PROBE)
    data["software"]["os"] = text  # /etc/os-release's PRETTY_NAME
    data["cpu"]["model"] = text
    fw = next(iter(data["frameworks"].values()))
    fw.update(outcome="import_error", error=f"ImportError: {text}", version=text, distribution=text)
    fw["devices"] = [{"id": text, "name": text, "kind": "cpu"}]
    data["notes"] = [text]
    data["requirements"] = [{"framework": text, "check": text, "ok": None, "detail": text}]
    data["gpus"] = {"status": "error", "message": text}
    return data


@FEW
@given(text=hostile_text())
def test_probe_tables_show_hostile_text_as_text(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.commands.probe import _print_tables

    _print_tables(_hostile_probe(text))
    out = capsys.readouterr().out
    assert_inert(out)


def test_a_closing_tag_from_an_import_error_prints_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.commands.probe import _print_tables

    _print_tables(_hostile_probe("[/]boom[bold]"))
    out = capsys.readouterr().out
    assert "[/]boom[bold]" in out


@FEW
@given(text=hostile_text())
def test_bench_progress_shows_hostile_text_as_text(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    from types import SimpleNamespace

    from advisor.cli.commands.bench import _progress_printer
    from advisor.cli.output import console

    on_event = _progress_printer(console())
    failure = SimpleNamespace(benchmark="gemm", device="cpu", outcome="crashed", error=text)
    for ev in (SimpleNamespace(kind="framework_start", framework=text, message=text),
               SimpleNamespace(kind="bench_start", framework=text, device=text, benchmark=text, message=text),
               SimpleNamespace(kind="failure", framework=text, failure=failure),
               SimpleNamespace(kind="note", framework=text, message=text)):
        on_event(ev)
    assert_inert(capsys.readouterr().out)
