"""Time to clean: seconds from a signal to the last child process gone, for the real CLI under real load.

Usage: `python benchmarks/time_to_clean.py [--rounds 3] [--case hung-import|torchrun] [--signal INT|TERM]`.
Each round starts `python -m advisor bench ...` as a subprocess, waits until its children are up
(found by their FWADVISOR_RUN_ID marker), sends the signal, and measures (a) until no process
carrying the tool's marker is left, (b) until the tool itself exited; it prints both with the
exit code, the last stderr line and the load average. The promise is (a) < 2 s.
`hung-import` needs no framework (a stand-in torch whose import sleeps); `torchrun` needs PyTorch.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
MARKER = "FWADVISOR_RUN_ID"


def marked(prefix: str, module: str = "") -> list[psutil.Process]:
    """Live processes carrying the marker (and `module` in their command line)."""
    out = []
    for p in psutil.process_iter():
        try:
            if p.environ().get(MARKER, "").startswith(prefix) and p.status() != psutil.STATUS_ZOMBIE \
                    and module in " ".join(p.cmdline()):
                out.append(p)
        except (psutil.Error, OSError):
            continue
    return out


def one_round(case: str, sig: signal.Signals, work: Path) -> tuple[float, float, int, str]:
    """(seconds to clean, seconds to exit, exit code, last stderr line) of one interrupted run."""
    env = dict(os.environ, TMPDIR=str(work))
    if case == "hung-import":
        standin = work / "standin"
        (standin / "torch").mkdir(parents=True, exist_ok=True)
        (standin / "torch" / "__init__.py").write_text("import time\ntime.sleep(600)\n")
        (standin / "torch-0.0.0.dist-info").mkdir(exist_ok=True)
        (standin / "torch-0.0.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 0\n")
        env["PYTHONPATH"] = f"{standin}{os.pathsep}{ROOT}"
        args, module, n = ["--only", "gemm"], "probes.bench_torch", 1
    else:
        env["PYTHONPATH"] = str(ROOT)
        args, module, n = ["--only", "allreduce", "--nproc", "2"], "probes.allreduce_torch", 2
    tool = subprocess.Popen([sys.executable, "-m", "advisor", "bench", "--framework", "pytorch", "--no-baseline",
                             "--preset", "test", *args], cwd=work, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    prefix = f"{tool.pid}-"
    end = time.monotonic() + 180
    while len(marked(prefix, module)) < n:
        if time.monotonic() > end or tool.poll() is not None:
            tool.kill()
            raise SystemExit(f"the children did not start: {tool.communicate()[1][-500:]}")
        time.sleep(0.05)
    t0 = time.monotonic()
    tool.send_signal(sig)
    while marked(prefix):
        time.sleep(0.01)
    clean = time.monotonic() - t0
    _, err = tool.communicate(timeout=30)
    return clean, time.monotonic() - t0, tool.returncode, (err.strip().splitlines() or [""])[-1]


def main() -> None:
    """Run the rounds and print one line each, then the median."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--case", choices=("hung-import", "torchrun"), default="hung-import")
    ap.add_argument("--signal", choices=("INT", "TERM"), default="INT")
    a = ap.parse_args()
    sig = signal.Signals[f"SIG{a.signal}"]
    cleans = []
    for i in range(a.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            clean, exited, code, last = one_round(a.case, sig, Path(tmp))
            left = sorted(p.name for p in Path(tmp).iterdir() if p.name != "standin")
        cleans.append(clean)
        print(f"round {i + 1}: {a.case} {sig.name}: clean {clean:.2f} s, exit {exited:.2f} s, code {code}, "
              f"temp left {left}, load {os.getloadavg()[0]:.2f}: {last}")
    print(f"median time to clean: {statistics.median(cleans):.2f} s (max {max(cleans):.2f} s)")


if __name__ == "__main__":
    main()
