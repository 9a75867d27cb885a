"""How long `team decide` takes in the core for 2 to N members (mixed weights and pairwise), on recorded evidence.

Usage: `python benchmarks/team_decide.py [--members 3 6 12] [--repeats 3]`. Members alternate between a
weights profile and a pairwise one (so the AIJ block, its eigenvector and the pairwise fragility scan are
all timed); the evidence is the recorded probe of the TUI tests, so nothing is measured but the scoring.
Prints the median wall time per team size and its CPU time (the figure to compare on a shared, loaded
machine); the load average is printed with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, nargs="+", default=[3, 6, 12])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import json

    from advisor.knowledge import load_knowledge
    from advisor.profile import load_profile_text, resolve_profile
    from advisor.team.decide import decide
    from advisor.team.members import Member

    kb = load_knowledge(include_user=False)
    probe = json.loads((ROOT / "tests" / "fixtures" / "tui" / "probe.json").read_text())
    criteria = list(kb.criteria)
    profiles = []
    for i in range(max(args.members)):
        if i % 2:
            a, b, c = criteria[i % len(criteria)], criteria[(i + 3) % len(criteria)], criteria[(i + 5) % len(criteria)]
            text = f"pairwise:\n  - [{a}, {b}, {2 + i % 5}]\n  - [{b}, {c}, 2]\n  - [{a}, {c}, 3]\n"
        else:
            text = "weights: {" + ", ".join(f"{c}: {1 + (i * 7 + j) % 5}" for j, c in enumerate(criteria)) + "}\n"
        profiles.append(Member(f"m{i}", f"m{i}.yaml", resolve_profile(load_profile_text(text), kb)))
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    for n in args.members:
        times, cpu = [], []
        for _ in range(args.repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            decide(kb, profiles[:n], probe=probe)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        print(f"{n:3d} members: median {statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f}); "
              f"CPU median {statistics.median(cpu):.3f} s")


if __name__ == "__main__":
    main()
