"""GPU GEMM through each framework: the figures, % of the GPU's fp32 peak, and each framework against the best.

Usage (on a machine with an NVIDIA GPU): `python benchmarks/gpu_gemm.py [--preset quick] [--runs 1] [--save DIR]`.
Each run is the real `fwadvisor bench --preset P --device gpu --only gemm --json` in a subprocess. The script
prints every GEMM figure with its 95% interval, its share of the fp32 peak the probe estimated from NVML
(CUDA cores x 2 x the highest SM clock; tensor-core figures get none), and its ratio to the best framework's
figure for the same variant: at sizes that time the math, frameworks calling the same cuBLAS land within a
few per cent of each other, so a wide gap says the size measured dispatch, or a precision mode differs.
Without a GPU it says so and exits 0.

Seen on one H200 (2026-12-04; PyTorch 2.11.0+cu130, JAX 0.11.2), quick: fp32-4096 PyTorch 50.4 and JAX 48.9
TFLOP/s (75% and 73% of 66.9); bf16-8192 671 and 697 TFLOP/s. With the older 1024 sizes the same GPU gave
bf16 PyTorch 125-183 and JAX 47-56 TFLOP/s over two runs: each call's dispatch, not the GPU.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--save", default=None, help="folder for each run's bench JSON")
    args = ap.parse_args()
    cmd = [sys.executable, "-m", "advisor", "bench", "--preset", args.preset, "--device", "gpu", "--only", "gemm",
           "--json"]
    print("command: fwadvisor", " ".join(cmd[3:]))
    for i in range(args.runs):
        with tempfile.TemporaryFile("w+") as out:  # a file, not a pipe: the JSON is larger than a pipe's buffer
            proc = subprocess.run(cmd, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL, check=False)
            out.seek(0)
            text = out.read()
        if proc.returncode not in (0, 1) or not text.strip():
            print(f"run {i}: exit {proc.returncode}", file=sys.stderr)
            return 1
        data = json.loads(text)
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            Path(args.save, f"gpu_gemm{i}.json").write_text(text)
        rows = [r for r in data.get("results") or [] if r.get("device") == "gpu" and r.get("benchmark") == "gemm"]
        peak = (data.get("environment") or {}).get("gpu_peak") or {}
        print(f"\nrun {i}: {data.get('wall_s', 0):.0f} s; GPU fp32 peak "
              f"{peak.get('fp32_gflops') or 'unknown'} GFLOP/s ({peak.get('formula') or 'no NVML estimate'})")
        if not rows:
            print("  no GPU GEMM figure (no GPU, or no framework that reached it)")
            continue
        best = {}
        for r in rows:
            best[r["variant"]] = max(best.get(r["variant"], 0.0), float(r["value"]))
        print(f"  {'framework':<11} {'variant':<11} {'GFLOP/s':>10} {'95% interval':>21} {'% peak':>7} {'vs best':>8}")
        for r in sorted(rows, key=lambda r: (r["variant"], r["framework"])):
            ci = r.get("ci") or [None, None]
            interval = f"{ci[0]:,.0f}-{ci[1]:,.0f}" if None not in ci else "-"
            pct = f"{r['pct_of_peak']:.0f}%" if r.get("pct_of_peak") is not None else "-"
            print(f"  {r['framework']:<11} {r['variant']:<11} {r['value']:>10,.0f} {interval:>21} {pct:>7} "
                  f"{r['value'] / best[r['variant']]:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
