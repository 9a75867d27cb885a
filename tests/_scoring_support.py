"""Helpers shared by the scoring, profile and report tests: the small knowledge pack and a real CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
KB_SMALL = FIXTURES / "kb_small"
SCENARIOS = sorted((Path(__file__).resolve().parent / "scenarios").glob("*.yaml"))

# Runs the real `fwadvisor` entry point in a child process; with a base folder, the loader's
# shipped-base lookup is pointed at it first (the only difference from `python -m advisor`).
_RUNNER = """
import sys
from pathlib import Path
base = sys.argv[1]
if base:
    import advisor.knowledge.loader as loader
    loader.knowledge_dir = lambda: Path(base)
from advisor.cli import main
sys.exit(main(sys.argv[2:]))
"""


def load_small_kb() -> Any:
    """The `kb_small` test pack (not the shipped base)."""
    from advisor.knowledge import load_knowledge

    return load_knowledge(include_user=False, base=KB_SMALL)


def run_cli(
    args: list[str], *, base: Path | None = KB_SMALL, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`fwadvisor ARGS` in a real subprocess (with `base` as the knowledge base; None: the shipped one)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["FWADVISOR_NO_USER_PACKS"] = "1"
    return subprocess.run(
        [sys.executable, "-c", _RUNNER, str(base) if base else "", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or ROOT,
        timeout=timeout,
    )


def probe_json(name: str = "probe_cpu_only.json") -> dict[str, Any]:
    """A recorded probe JSON (hand-written to the contract in notes/contracts.md)."""
    return json.loads((FIXTURES / "evidence" / name).read_text())  # type: ignore[no-any-return]


def probe_fixture(name: str = "probe_cpu_only.json") -> Any:
    """A recorded probe, read into the model the core takes (`ProbeReport`)."""
    from advisor.evidence.probe import ProbeReport

    return ProbeReport.from_json(probe_json(name))


def bench_json(name: str = "bench_quick_cpu.json") -> dict[str, Any]:
    """A recorded bench JSON (hand-written to the contract in notes/contracts.md)."""
    return json.loads((FIXTURES / "evidence" / name).read_text())  # type: ignore[no-any-return]


def bench_fixture(name: str = "bench_quick_cpu.json") -> Any:
    """A recorded bench run, read into the model the core takes (`BenchReport`)."""
    from advisor.evidence.bench.results import BenchReport

    return BenchReport.from_json(bench_json(name))


def load_scenario(path: Path) -> tuple[dict[str, Any], Any, Any, Any]:
    """A `tests/scenarios/*.yaml` file: its expectation, its profile (validated as any user's), probe and bench."""
    from advisor.profile import parse_profile
    from advisor.yamlio import load_yaml_file, to_plain

    raw = load_yaml_file(path)
    assert set(raw) <= {"expect", "known_gap", "evidence", "profile"}, f"{path.name}: unexpected top-level keys"
    expect = to_plain(raw["expect"])
    expect["known_gap"] = to_plain(raw.get("known_gap") or {})
    assert expect.get("why") and expect.get("sources"), f"{path.name}: every expectation needs why and sources"
    evidence = to_plain(raw.get("evidence") or {})
    probe = probe_fixture(evidence["probe"]) if "probe" in evidence else None
    bench = bench_fixture(evidence["bench"]) if "bench" in evidence else None
    return expect, parse_profile(raw["profile"], path), probe, bench
