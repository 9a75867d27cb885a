"""A saved report's evidence read back into the probe and bench models, for re-scoring (`report --from-json`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from advisor.errors import ReportError
from advisor.evidence.bench.results import BenchReport
from advisor.evidence.probe import ProbeReport
from advisor.privacy import allowed_evidence


def read_evidence(
    probe: Mapping[str, Any] | None, bench: Mapping[str, Any] | None, *, file: str | Path, identify: bool = False
) -> tuple[ProbeReport | None, BenchReport | None]:
    """The saved `probe` and `benchmarks` sections as models; a malformed one is a `ReportError` naming `file`.

    The same allow-list as a live run applies first: a foreign report's other variables are not carried forward.
    """
    try:
        typed_probe = None if probe is None else ProbeReport.from_json(allowed_evidence(probe, identify=identify))
        typed_bench = None if bench is None else BenchReport.from_json(allowed_evidence(bench, identify=identify))
    except ReportError as exc:
        exc.file = exc.file or str(file)
        raise
    return typed_probe, typed_bench
