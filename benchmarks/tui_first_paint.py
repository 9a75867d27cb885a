"""Time to first paint of the interactive advisor, and SVG screenshots of its main screens for docs/.

First paint, two ways, each from process spawn (interpreter start-up included), median of N runs:
- in a real terminal: `fwadvisor tui --fresh` in a detached tmux session at 80x24, whose screen is
  polled until the welcome text appears, then until the machine summary (fast probe) is drawn;
- headless: a child runs the app with Textual's auto-pilot and reports when the welcome screen has
  been rendered once and when the machine summary has arrived.

Screenshots: the walk is replayed on recorded evidence (tests/fixtures/tui) so the pictures are
deterministic, and each main screen is saved with `App.save_screenshot` under docs/screenshots/.

    python benchmarks/tui_first_paint.py [RUNS] [--no-screenshots]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "docs" / "screenshots"
CHILD_FLAG = "--child"


def child() -> None:
    """Runs in the measured process: start the app like `fwadvisor` does and report first paint."""
    from advisor.cli import build_parser  # the same import path as the console script
    from advisor.tui.app import AdvisorApp

    build_parser()
    app = AdvisorApp(resume=False)

    async def pilot_run(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.pause()
        print(f"painted {time.time():.6f}", flush=True)
        # The machine summary arrives from the fast probe (a thread); wait until it is drawn.
        for _ in range(600):
            if app.probe_fast is not None or app.probe_fast_error is not None:
                break
            await asyncio.sleep(0.01)
        await pilot.pause()
        print(f"machine {time.time():.6f}", flush=True)
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=pilot_run)


def _headless_run(env: dict[str, str]) -> tuple[float, float]:
    start = time.time()
    out = subprocess.run(
        [sys.executable, __file__, CHILD_FLAG],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=ROOT,
        timeout=120,
    ).stdout
    marks = dict(line.split() for line in out.splitlines() if line.startswith(("painted", "machine")))
    return float(marks["painted"]) - start, float(marks["machine"]) - start


def _tmux_run(env: dict[str, str], tmux: str) -> tuple[float, float]:
    """A real terminal: poll tmux's screen until the welcome text, then the machine summary, is drawn."""
    session = f"fwadvisor-paint-{os.getpid()}"
    exe = shutil.which("fwadvisor") or f"{sys.executable} -m advisor"
    env_args = [a for k in ("FWADVISOR_CONFIG_DIR", "FWADVISOR_DATA_DIR") for a in ("-e", f"{k}={env[k]}")]
    start = time.time()
    subprocess.run(
        [tmux, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", *env_args, f"{exe} tui --fresh"],
        check=True,
        env=env,
    )
    painted = machine = None
    try:
        while time.time() - start < 60 and machine is None:
            screen = subprocess.run([tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
            now = time.time()
            if painted is None and "fwadvisor helps your team" in screen:
                painted = now - start
            if "Frameworks " in screen and "CPU " in screen:
                machine = now - start
            time.sleep(0.005)
    finally:
        subprocess.run([tmux, "kill-session", "-t", session], capture_output=True)
    if painted is None or machine is None:
        raise RuntimeError("the app did not paint within 60 s")
    return painted, machine


def first_paint(runs: int) -> None:
    """Print the median and range of first paint and of the machine summary over `runs` processes."""
    tmux = shutil.which("tmux")
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        env["FWADVISOR_CONFIG_DIR"] = str(Path(tmp) / "config")
        env["FWADVISOR_DATA_DIR"] = str(Path(tmp) / "data")
        for how in (["tmux 80x24 (real terminal)"] if tmux else []) + ["headless 80x24 (Textual auto-pilot)"]:
            paint, machine = [], []
            for _ in range(runs):
                p, m = _tmux_run(env, tmux) if how.startswith("tmux") and tmux else _headless_run(env)
                paint.append(p)
                machine.append(m)
            print(how)
            for name, xs in (("  first paint (welcome screen)", paint), ("  machine summary shown", machine)):
                print(
                    f"{name:32} median {statistics.median(xs) * 1000:6.0f} ms   "
                    f"min {min(xs) * 1000:6.0f} ms   max {max(xs) * 1000:6.0f} ms   ({runs} runs)"
                )
    print(f"load average while measuring: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


def screenshots() -> None:
    """Save each main screen, on recorded evidence, as SVG under docs/screenshots/."""
    import json

    from advisor.knowledge import load_knowledge
    from advisor.tui.app import AdvisorApp

    fixtures = ROOT / "tests" / "fixtures" / "tui"
    probe = json.loads((fixtures / "probe.json").read_text())
    bench = json.loads((fixtures / "bench.json").read_text())
    kb = load_knowledge(include_user=False)
    SHOTS.mkdir(parents=True, exist_ok=True)

    async def shoot() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["FWADVISOR_CONFIG_DIR"] = str(Path(tmp) / "config")
            os.environ["FWADVISOR_DATA_DIR"] = str(Path(tmp) / "data")
            app = AdvisorApp(kb=kb, probe=probe, bench=bench, live=False, resume=False)
            async with app.run_test(size=(120, 36)) as pilot:

                async def settle() -> None:
                    for _ in range(2):
                        await pilot.pause()
                        await app.workers.wait_for_complete()
                    await pilot.pause()

                async def save(name: str) -> None:
                    await settle()
                    app.screen.set_focus(None)
                    app.clear_notifications()
                    await pilot.pause()
                    app.save_screenshot(str(SHOTS / f"{name}.svg"))
                    print(f"saved docs/screenshots/{name}.svg")

                await save("welcome")
                for step in ("scenario", "priorities", "evidence"):
                    await pilot.press("n")
                    await save(step)
                app.screen.query_one("#evidence-tabs").active = "tab-charts"
                await save("evidence-charts")
                await pilot.press("n")
                await settle()
                await pilot.press("enter")  # choose the top framework
                await save("results")
                await pilot.press("n")
                await save("onboarding")
                await pilot.press("n")
                await save("export")

    asyncio.run(shoot())


def main() -> None:
    """Measure, then save screenshots unless told not to."""
    if CHILD_FLAG in sys.argv:
        child()
        return
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    first_paint(int(args[0]) if args else 10)
    if "--no-screenshots" not in sys.argv:
        screenshots()


if __name__ == "__main__":
    main()
