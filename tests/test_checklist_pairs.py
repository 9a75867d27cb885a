"""Done-means of issue 7: every (current -> chosen) pair among PyTorch, JAX and TensorFlow, on this machine.

The checklist is built from the shipped knowledge base and the real (fast) probe of this machine. Its
verification snippets are run for real: one child process per framework (three in all, shared by the
six pairs), with this venv's Python.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.checklist import Checklist, build_checklist
from advisor.evidence.probe import ProbeReport
from advisor.knowledge.schema import Hardware

FRAMEWORKS = ("pytorch", "jax", "tensorflow")
PAIRS = list(itertools.permutations(FRAMEWORKS, 2))


@pytest.fixture(scope="module")
def this_machine() -> ProbeReport:
    """The fast probe of this machine (package metadata only: no framework is imported)."""
    from advisor.evidence.probe import run_probe

    return run_probe(fast=True)


@pytest.fixture(scope="module")
def checklists(kb, this_machine: ProbeReport) -> dict[tuple[str, str], Checklist]:  # type: ignore[no-untyped-def]
    """The six checklists."""
    return {(src, dst): build_checklist(kb, dst, this_machine, from_framework=src) for src, dst in PAIRS}


@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_pair_names_cpu_install_line_snippet_and_concepts(kb, checklists, src: str, dst: str) -> None:  # type: ignore[no-untyped-def]
    c = checklists[(src, dst)]
    assert c.backend == Hardware.CPU  # this machine has no accelerator
    install = c.item(f"install.cpu.{dst}")
    expected = kb.frameworks[dst].hardware[Hardware.CPU].install
    assert install is not None and expected and install.code == expected.strip()
    snippet = c.item(f"verify.snippet.{dst}")
    assert snippet is not None and snippet.code and snippet.code_lang == "python"
    assert c.item(f"verify.command.{dst}").code == f"fwadvisor probe --framework {dst}"  # type: ignore[union-attr]
    concepts = [i for i in c.items if i.id.startswith("concept.")]
    assert len(concepts) >= 5, [i.id for i in concepts]
    assert len(concepts) == len(kb.concept_mapping(src, dst))
    assert any("unlearn" in i.title and "learn" in i.title for i in concepts)
    for task in ("task.port_layer", "task.train_step", "task.export"):
        assert c.item(task).done_when  # type: ignore[union-attr]
    md = c.to_markdown()
    assert f"`install.cpu.{dst}`" in md and md.count("- [ ] ") == len(c.ids)


@pytest.fixture(scope="module")
def snippet_runs(checklists, tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:  # type: ignore[no-untyped-def]
    """Run each framework's verification snippet once, the three children side by side."""
    snippets: dict[str, str] = {}
    for (_src, dst), c in checklists.items():
        code = c.item(f"verify.snippet.{dst}").code
        assert snippets.setdefault(dst, code) == code  # the snippet does not depend on the former framework
    work = tmp_path_factory.mktemp("verify")
    procs = {}
    for dst, code in snippets.items():
        path = Path(work) / f"verify_{dst}.py"
        path.write_text(code + "\n")
        # cwd is a scratch folder so nothing in the repository can shadow the framework's modules.
        procs[dst] = subprocess.Popen(
            [sys.executable, str(path)], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    results = {}
    for dst, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        results[dst] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    return results


@pytest.mark.frameworks
@pytest.mark.parametrize("dst", FRAMEWORKS)
def test_verification_snippet_runs_and_passes_here(snippet_runs, dst: str) -> None:  # type: ignore[no-untyped-def]
    result = snippet_runs[dst]
    assert result.returncode == 0, f"{dst} snippet failed:\n{result.stdout}\n{result.stderr[-3000:]}"
    assert result.stdout.strip(), "the snippet should say what it saw"
    assert "cpu" in result.stdout.lower()
