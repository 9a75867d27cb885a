"""What the README's two set-up commands download, per OS, and how long they take in a fresh venv.

Sizes come from pip itself: `pip install --dry-run --report` resolves each command's requirements against
the public package index alone (`--isolated`: no local wheel folders, caches or constraints of this machine)
for each target platform, and each resolved file's size is read from the index (HTTP HEAD of its URL).
`--time` also runs the set-up for real in a fresh venv on this machine and times it: the run command with
`--isolated --no-cache-dir` (everything downloaded), the test command as this machine's pip is configured.

    python benchmarks/readme_setup.py            # sizes per OS
    python benchmarks/readme_setup.py --time     # and real installs on this machine
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def _manylinux(arch: str) -> list[str]:
    # pip 23 does not widen a --platform tag to the older glibc tags that the same machine also runs.
    return [f"manylinux_2_{v}_{arch}" for v in range(28, 4, -1)] + [f"manylinux2014_{arch}", f"manylinux1_{arch}"]


#: pip --platform tags per target: a glibc 2.28 Linux (e.g. Debian 10, RHEL 8 and newer) and macOS 14.
PLATFORMS = {
    "Linux x86-64": _manylinux("x86_64"),
    "Linux aarch64": _manylinux("aarch64"),
    "macOS arm64": [f"macosx_{v}_0_arm64" for v in (14, 13, 12, 11)] + ["macosx_10_9_universal2"],
    "Windows x86-64": ["win_amd64"],
}


def project_requirements(extras: list[str]) -> list[str]:
    """fwadvisor's own dependencies and those of `extras` (the project itself is built locally, not downloaded)."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(meta["dependencies"])
    for extra in extras:
        reqs += [r for r in meta["optional-dependencies"][extra] if not r.startswith("fwadvisor")]
    return reqs


def framework_requirements() -> list[str]:
    """The pinned framework lines of .ci/frameworks.txt."""
    lines = (ROOT / ".ci" / "frameworks.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


COMMANDS = {
    "run": lambda: project_requirements(["gpu"]),
    "test": lambda: framework_requirements() + project_requirements(["gpu", "test"]),
}


def resolve(reqs: list[str], platform: list[str]) -> tuple[list[tuple[str, str, str]], str | None]:
    """[(name, version, url)] that pip would download for `platform` (Python 3.11), or the error pip gave."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        cmd = [sys.executable, "-m", "pip", "install", "--isolated", "--no-cache-dir", "--dry-run", "--quiet",
               "--ignore-installed", "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
               "--target", str(Path(tmp) / "t"), "--report", str(report)]
        for p in platform:
            cmd += ["--platform", p]
        proc = subprocess.run([*cmd, *reqs], capture_output=True, text=True)
        if proc.returncode != 0:
            last = [ln for ln in proc.stderr.splitlines() if ln.startswith("ERROR")]
            return [], (last[-1] if last else f"pip exit {proc.returncode}")[:160]
        data = json.loads(report.read_text())
    return [(i["metadata"]["name"], i["metadata"]["version"], i["download_info"]["url"]) for i in data["install"]], None


def size_of(url: str) -> int:
    """The file's size as the index serves it (Content-Length of a HEAD request)."""
    req = urllib.request.Request(url, method="HEAD")
    with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310 - the index's own https URL
        return int(resp.headers.get("Content-Length") or 0)


def sizes() -> None:
    """One line per command and OS: files, MB downloaded, the three largest."""
    print(f"{'command':6} {'target':16} {'files':>5} {'download':>10}   largest")
    for name, reqs in COMMANDS.items():
        for target, platform in PLATFORMS.items():
            if name == "test" and target != "Linux x86-64":
                # pip evaluates markers (torch's `platform_system == "Linux"` NVIDIA wheels) for this machine,
                # not the target: say only whether each pinned framework has a wheel there.
                missing = [r for r in framework_requirements() if resolve([r, "--no-deps"], platform)[1]]
                print(f"{name:6} {target:16} {'-':>5} {'-':>10}   no wheel for: {', '.join(missing) or 'none'}")
                continue
            files, error = resolve(reqs(), platform)
            if error:
                print(f"{name:6} {target:16} {'-':>5} {'-':>10}   does not resolve: {error}")
                continue
            sized = sorted(((size_of(u), n, v) for n, v, u in files), reverse=True)
            total = sum(s for s, _, _ in sized)
            top = ", ".join(f"{n} {v} {s / 1e6:.0f} MB" for s, n, v in sized[:3])
            print(f"{name:6} {target:16} {len(files):5} {total / 1e6:8.0f} MB   {top}")


def timed_install(name: str, pip_args: list[str]) -> None:
    """Create a fresh venv, run the pip install, print wall time and the venv's size on disk."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *pip_args], check=True, cwd=ROOT)
        wall = time.perf_counter() - start
        du = subprocess.run(["du", "-sm", str(venv)], capture_output=True, text=True, check=True).stdout.split()[0]
        print(f"{name}: {wall:.0f} s, venv {du} MB")


def main() -> None:
    """Sizes per OS; with --time, the real installs on this machine too."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", action="store_true", help="also install both for real in fresh venvs and time them")
    args = ap.parse_args()
    sizes()
    if args.time:
        if shutil.which("du") is None:
            sys.exit("du is needed for --time")
        timed_install("run command, every file from the index (--isolated --no-cache-dir)",
                      ["--isolated", "--no-cache-dir", "-e", ".[gpu]"])
        timed_install("test command, as this machine's pip is configured",
                      ["-r", ".ci/frameworks.txt", "-e", ".[gpu,test]"])


if __name__ == "__main__":
    main()
