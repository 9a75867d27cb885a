"""One child that probes a framework and then serves its benchmarks, so the framework is imported once for both.

Runs as `python -m probes.probe_bench --probe probes.fw_torch[,probes.fw_keras] --bench probes.bench_torch
--preset fleet --threads 2 --serve`; standard library only. The probe scripts run first inside `probes.together`'s
section markers (their events, each ending with `done`, then `sections_end`); the bench script then runs with the
rest of the command line as its own, importing the framework the probe already loaded (a cached module). The
parent (`advisor.evidence.bench.shared`) splits the probe's sections off the start-up's events.
"""

from __future__ import annotations

import importlib
import os
import sys

from probes import together
from probes._proto import exit_now


def main(argv: list[str]) -> None:
    """Probe, then hand the remaining arguments to the bench script's `main()`."""
    probes: list[str] = []
    bench = ""
    rest: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--probe":
            probes = [m for m in next(it, "").split(",") if m.startswith("probes.")]
        elif arg == "--bench":
            bench = next(it, "")
        else:
            rest.append(arg)
    if "--threads" in rest[:-1]:
        # Read by probes that must fix a thread pool before their runtime starts (TensorFlow's cannot change after):
        # the bench below sets the same size, and would fail once the probe had started the runtime.
        os.environ["FWADVISOR_BENCH_THREADS"] = rest[rest.index("--threads") + 1]
    together.main(probes)
    if not bench.startswith("probes."):
        return
    sys.argv = [bench, *rest]
    importlib.import_module(bench).main()


if __name__ == "__main__":
    main(sys.argv[1:])
    exit_now()  # the results are out; skip the framework's slow teardown
