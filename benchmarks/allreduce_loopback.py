"""Cross-node all-reduce on loopback beside the single-node one, same sizes: PyTorch (gloo) and JAX (gloo).

Two "nodes" are two launchers on this host (torchrun agents with a c10d rendezvous on 127.0.0.1, or two
JAX processes joined by jax.distributed); the single-node run has as many ranks in one launcher. For PyTorch
both runs are two gloo processes over the loopback, so the difference is what the launcher and the
rendezvous add; for JAX the single-node run is one process whose two host devices reduce in memory, the
two-node run gloo over TCP. Prints one table per framework and writes the JSON (one `fwadvisor.collective/1`
document per framework) to --out.

    PYTHONPATH=. .venv/bin/python benchmarks/allreduce_loopback.py [--sizes 4K,64K,1M,16M] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from advisor.cli.commands.bench_allreduce import parse_sizes, render
from advisor.cli.output import console
from advisor.evidence.bench.collective import Plan, run_loopback
from advisor.jsonio import model_json


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", default="4K,64K,1M,16M")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--samples", type=int, default=5)
    p.add_argument("--framework", action="append", default=[])
    p.add_argument("--out", default="")
    a = p.parse_args()
    out = []
    for fw in a.framework or ["pytorch", "jax"]:
        plan = Plan(framework=fw, sizes=parse_sizes(a.sizes), iters=a.iters, samples=a.samples, devices=("cpu",))
        start = time.perf_counter()
        report = run_loopback(2, plan=plan)
        console().print(render(report))
        print(f"{fw}: {time.perf_counter() - start:.1f} s wall, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        out.append(model_json(report))
    text = json.dumps(out, indent=1)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
