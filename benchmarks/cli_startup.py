"""Start-up time of `fwadvisor --help` (and `--version`, `kb list --json`): median of N fresh processes."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time


def measure(cmd: list[str], runs: int) -> tuple[float, float, float]:
    """(median, min, max) wall seconds over `runs` fresh processes."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times)


def main() -> None:
    """Print one line per command."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    exe = shutil.which("fwadvisor")
    cases = {
        "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
        "python -m advisor --help": [sys.executable, "-m", "advisor", "--help"],
        "python -m advisor --version": [sys.executable, "-m", "advisor", "--version"],
        "python -m advisor kb list --json": [sys.executable, "-m", "advisor", "kb", "list", "--json"],
    }
    if exe:
        cases["fwadvisor --help (console script)"] = [exe, "--help"]
    print(f"{'command':42} {'median':>9} {'min':>9} {'max':>9}   ({runs} runs)")
    for name, cmd in cases.items():
        med, lo, hi = measure(cmd, runs)
        print(f"{name:42} {med * 1000:8.1f}ms {lo * 1000:8.1f}ms {hi * 1000:8.1f}ms")


if __name__ == "__main__":
    main()
