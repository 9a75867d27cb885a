"""Child launch: one bench script per child, a watchdog for hung benchmarks, restarts after a crash, torchrun."""

from __future__ import annotations

import enum
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.evidence.bench.figures import _env_of, _measurement
from advisor.evidence.bench.presets import _COLLECTIVE_ENV_PREFIXES, IMPORT_TIMEOUT_S, MAX_RESTARTS
from advisor.evidence.bench.results import BenchEvent, BenchFailure, Measurement
from advisor.evidence.child import ChildResult, Outcome, run_child
from advisor.evidence.children import CHILDREN
from advisor.frameworks.base import FrameworkAdapter

if TYPE_CHECKING:
    from advisor.evidence.hardware.cpu import PeakEstimate


@dataclass
class _Run:
    """Mutable state of one run (the report built from it is immutable)."""

    peak: PeakEstimate | None
    on_event: Callable[[BenchEvent], None] | None
    results: list[Measurement] = field(default_factory=list)
    failures: list[BenchFailure] = field(default_factory=list)
    agreement: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    envs: dict[str, dict[str, Any]] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)  # frameworks that began at least one benchmark
    cores: int = 1  # threads the run uses: the machine-state thresholds are shares of these
    gpu_peak: dict[str, Any] | None = None  # CUDA device 0's fp32 peak estimate (figures._gpu_peak_from_probe)
    cpu_low_precision: bool = True  # False: no bf16/fp16 GEMM on the CPU (the probe found no such units)

    def tell(self, event: BenchEvent) -> None:
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # noqa: BLE001, S110 - a display callback must not stop the run
                pass

    def fail(self, framework: str, benchmark: str, device: str | None, outcome: str, error: str) -> None:
        f = BenchFailure(framework, benchmark, device, outcome, error)
        self.failures.append(f)
        self.tell(BenchEvent("failure", framework, benchmark, device, error, failure=f))

    def add(self, m: Measurement) -> None:
        self.results.append(m)
        self.tell(BenchEvent("result", m.framework, m.benchmark, m.device, measurement=m))


def child_base_args(preset: str, threads: int, devices: Sequence[str] | None, per_bench: float | None) -> list[str]:
    """The command line every bench child of a run gets (the preset, threads, devices and budget)."""
    base = ["--preset", preset, "--threads", str(threads)]
    if devices:
        base += ["--device", ",".join(devices)]
    if per_bench is not None:
        base += ["--budget", f"{per_bench:.4g}"]
    return base


def child_env_vars(threads: int) -> dict[str, str]:
    """The variables every bench child of a run gets: the test hook's fault, and one OpenMP pool size everywhere."""
    fault = {"FWADVISOR_BENCH_FAULT": os.environ["FWADVISOR_BENCH_FAULT"]} \
        if os.environ.get("FWADVISOR_BENCH_FAULT") else {}
    # Fix the OpenMP pool to the same size everywhere unless the user chose one.
    thread_env = {} if "OMP_NUM_THREADS" in os.environ else {"OMP_NUM_THREADS": str(threads)}
    return {**thread_env, **fault}


class WatchdogStop(enum.Enum):
    """Why the watchdog ended a bench child."""

    CANCELLED = "cancelled"
    BENCH_TIMEOUT = "bench_timeout"
    IMPORT_TIMEOUT = "import_timeout"


class _Watchdog:
    """Kills a child whose current benchmark overran, or that never finished importing; also relays cancel."""

    def __init__(self, bench_timeout: float, import_timeout: float, cancel: threading.Event | None) -> None:
        self.kill = threading.Event()
        self.stopped_by: WatchdogStop | None = None
        self.current: tuple[str, str] | None = None
        self.started = time.monotonic()
        self.bench_started: float | None = None
        self._bench_timeout, self._import_timeout, self._cancel = bench_timeout, import_timeout, cancel
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> _Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=1)

    def begin(self, benchmark: str, device: str) -> None:
        self.current, self.bench_started = (benchmark, device), time.monotonic()

    def end(self) -> None:
        self.current, self.bench_started = None, time.monotonic()

    def message(self) -> str:
        """What the watchdog did, in words (for a timeout it ended)."""
        if self.stopped_by == WatchdogStop.BENCH_TIMEOUT:
            return f"no result within {self._bench_timeout:g} s; killed"
        if self.stopped_by == WatchdogStop.IMPORT_TIMEOUT:
            return f"did not start within {self._import_timeout:g} s (import hung?); killed"
        return "cancelled"

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            now = time.monotonic()
            if self._cancel is not None and self._cancel.is_set():
                self.stopped_by = WatchdogStop.CANCELLED
            elif self.current is not None and self.bench_started is not None \
                    and now - self.bench_started > self._bench_timeout:
                self.stopped_by = WatchdogStop.BENCH_TIMEOUT
            elif self.bench_started is None and now - self.started > self._import_timeout:
                self.stopped_by = WatchdogStop.IMPORT_TIMEOUT
            if self.stopped_by is not None:
                self.kill.set()
                return


def _child_failure(child: ChildResult, watchdog: _Watchdog) -> tuple[str, str]:
    """(outcome, message) for a child that ended before finishing its benchmarks."""
    if child.outcome == Outcome.CANCELLED and watchdog.stopped_by in (WatchdogStop.BENCH_TIMEOUT,
                                                                       WatchdogStop.IMPORT_TIMEOUT):
        return "timed_out", watchdog.message()
    if child.outcome == Outcome.CRASHED and child.signal == "SIGKILL":
        return "crashed", "killed by SIGKILL (often the kernel's out-of-memory killer)"
    msg = child.error or child.outcome.value
    tail = child.stderr_tail.strip().splitlines()[-1:] if child.outcome != Outcome.IMPORT_ERROR else []
    if tail and tail[0] not in msg:
        msg += f" ({tail[0][:300]})"
    return child.outcome.value, msg


def _remaining(benchmarks: Sequence[str], env: Mapping[str, Any], done_pairs: set[str]) -> bool:
    """Whether any selected benchmark is still to run on any device the child reported."""
    kinds = [str(d.get("kind")) for d in env.get("devices") or () if isinstance(d, Mapping)] or ["cpu"]
    return any(f"{b}@{k}" not in done_pairs for b in benchmarks for k in kinds)


def _run_script(
    run: _Run,
    framework: str,
    module: str,
    base_args: Sequence[str],
    benchmarks: Sequence[str],
    *,
    root: Any,
    bench_timeout: float,
    cancel: threading.Event | None,
    env: Mapping[str, str] | None = None,
    skip: Sequence[str] = (),
) -> None:
    """Run one bench script until every selected benchmark ran or failed, restarting it after a crash."""
    done_pairs: set[str] = set(skip)
    restarts = 0
    while True:
        watchdog = _Watchdog(bench_timeout, IMPORT_TIMEOUT_S, cancel)
        saw_start = False

        def on_child_event(ev: dict[str, Any], watchdog: _Watchdog = watchdog) -> None:
            nonlocal saw_start
            kind = ev.get("event")
            if kind == "env":
                run.envs.setdefault(framework, _env_of(ev))  # the main child's (a collective child's differs)
                watchdog.bench_started = watchdog.bench_started or time.monotonic()
            elif kind == "bench_start":
                saw_start = True
                run.started.add(framework)
                watchdog.begin(str(ev.get("benchmark")), str(ev.get("device")))
                done_pairs.add(f"{ev.get('benchmark')}@{ev.get('device')}")
                run.tell(BenchEvent("bench_start", framework, ev.get("benchmark"), ev.get("device")))
            elif kind == "bench_end":
                watchdog.end()
            elif kind == "result":
                try:
                    run.add(_measurement(framework, ev, run.envs.get(framework, {}), run.peak, run.gpu_peak))
                except (KeyError, TypeError, ValueError) as exc:
                    run.fail(framework, str(ev.get("benchmark")), ev.get("device"), "bad_output", repr(exc))
            elif kind == "skip":
                run.fail(framework, str(ev.get("benchmark")), ev.get("device"), "skipped", str(ev.get("reason")))
            elif kind == "bench_error":
                run.fail(framework, str(ev.get("benchmark")), ev.get("device"), str(ev.get("outcome", "error")),
                         str(ev.get("error")))
            elif kind == "agreement":
                run.agreement[(framework, str(ev.get("device")))] = dict(ev)

        args = [*base_args, "--only", ",".join(benchmarks)]
        if done_pairs:
            args += ["--skip", ",".join(sorted(done_pairs))]
        with watchdog:
            child = run_child(module, args, root=root, timeout=IMPORT_TIMEOUT_S + bench_timeout * len(benchmarks) * 4,
                              on_event=on_child_event, cancel=watchdog.kill, env=env)
        if child.outcome == Outcome.OK:
            return
        if child.outcome == Outcome.CRASHED and child.of("done") and watchdog.current is None:
            # Finished and said so, then died on the way out (some runtimes crash at interpreter exit).
            run.tell(BenchEvent("note", framework, message=f"finished, then {child.error}"))
            return
        if watchdog.stopped_by == WatchdogStop.CANCELLED or (cancel is not None and cancel.is_set()):
            run.fail(framework, "*", None, "cancelled", "cancelled")
            return
        outcome, message = _child_failure(child, watchdog)
        if watchdog.current is None or not saw_start:
            # It never got going (import failed or hung) or died between benchmarks: report it once.
            run.fail(framework, "*", None, outcome, message)
            return
        bench, device = watchdog.current
        run.fail(framework, bench, device, outcome, message)
        if not _remaining(benchmarks, run.envs.get(framework, {}), done_pairs):
            return
        restarts += 1
        if restarts > MAX_RESTARTS:
            run.fail(framework, "*", None, outcome, f"gave up after {MAX_RESTARTS} restarts: {message}")
            return
        run.tell(BenchEvent("note", framework, bench, device, message=f"restarting after {outcome} in {bench}"))


def _torchrun(
    run: _Run,
    adapter: FrameworkAdapter,
    preset: str,
    *,
    nproc: int,
    rendezvous: Sequence[str],
    devices: Sequence[str] | None,
    bench_timeout: float,
    budget: float | None,
    cancel: threading.Event | None,
) -> None:
    """All-reduce over `nproc` processes launched by torchrun (gloo on CPU, NCCL on GPU)."""
    launcher = ["--standalone", "--nnodes=1"] if not rendezvous else list(rendezvous)
    args = [*launcher, f"--nproc-per-node={nproc}", "--max-restarts=0", "-m", "probes.allreduce_torch",
            "--preset", preset]
    if devices:
        args += ["--device", ",".join(devices)]
    if budget is not None:
        args += ["--budget", f"{budget:g}"]
    env = {k: v for k, v in os.environ.items() if k.startswith(_COLLECTIVE_ENV_PREFIXES)}
    env["OMP_NUM_THREADS"] = "1"  # torchrun's default too: ranks share the cores
    with CHILDREN.temp_dir("torchrun") as tmp:  # torchrun's log folders (mkdtemp) land here and go with it
        env["TMPDIR"] = str(tmp)
        _run_script(run, adapter.id, "torch.distributed.run", args, ["allreduce"],
                    root=adapter.script_root(), bench_timeout=bench_timeout, cancel=cancel, env=env)
