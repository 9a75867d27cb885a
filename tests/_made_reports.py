"""Reports made the way a user makes them: the real `fwadvisor report --json --no-bench`, one per scenario."""

from __future__ import annotations

from pathlib import Path

from _scoring_support import run_cli

#: Five shipped scenarios: five different profiles (the probe is shared through the session's probe cache).
SCENARIOS = ("generic", "mobile_edge", "research_prototyping", "production_inference", "tpu_first")


def make_reports(folder: Path, scenarios: tuple[str, ...] = SCENARIOS) -> list[Path]:
    """One report file per scenario, written by the real CLI (real probe, shipped knowledge) into `folder`."""
    paths = []
    for scenario in scenarios:
        path = folder / f"{scenario}.json"
        proc = run_cli(["report", "--json", "--no-bench", "--scenario", scenario, "-o", str(path)], base=None)
        assert proc.returncode == 0, proc.stderr[-2000:]
        paths.append(path)
    return paths
