"""The benchmark engine: runs each framework's bench script in its own child and gathers immutable results.

Every framework runs `python -m <adapter.bench_module>` (see `advisor/frameworks/`) in a child
process with the same preset, thread count and per-benchmark budget; a plain NumPy child
(`probes.bench_numpy`) gives the baseline and the float64 reference of the agreement check.
Results stream back as JSON lines and become `Measurement`s. A child that crashes, hangs or is
killed for memory loses only the benchmark it was running: a watchdog kills a benchmark that
overruns, and the engine restarts the child for the benchmarks that remain. Collectives run on
the frameworks' own launchers: `torch.distributed.run` (torchrun) for PyTorch, a JAX child with
several host-platform devices for JAX.
"""

from __future__ import annotations

import math
import os
import platform
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.errors import ReportError, UsageError
from advisor.evidence.child import ChildResult, Outcome, run_child
from advisor.frameworks.base import FrameworkAdapter
from advisor.paths import probes_root
from advisor.privacy import recorded_env, scrub

if TYPE_CHECKING:
    from advisor.evidence.hardware.cpu import PeakEstimate

SCHEMA = "fwadvisor.bench/1"
#: Benchmarks in run order (the same list as probes/_bench.py's BENCHMARKS).
BENCHMARKS = (
    "gemm", "elementwise", "dispatch", "conv", "train_mlp", "train_transformer", "infer_latency", "transfer",
    "allreduce", "agreement",
)
#: Sizes live in probes/_bench.py; "test" is the tiny preset the test-suite uses.
PRESETS = ("test", "quick", "standard", "thorough")
DEVICES = ("cpu", "gpu", "tpu")
#: Seconds a single benchmark may run before the watchdog calls it hung (cold torch.compile included).
BENCH_TIMEOUT_S = {"test": 90.0, "quick": 150.0, "standard": 400.0, "thorough": 1200.0}
#: Seconds a child may take to import its framework and report its environment.
IMPORT_TIMEOUT_S = 180.0
#: A child that keeps crashing is restarted at most this many times per framework.
MAX_RESTARTS = 6
#: Relative tolerance of the agreement check: float32 work against a float64 reference.
AGREEMENT_TOL = 1e-4
NUMPY = "numpy"
#: Benchmarks the NumPy baseline runs (it has no autograd, compiler or devices).
NUMPY_BENCHMARKS = ("gemm", "elementwise", "dispatch", "agreement")
#: Variables that tune the collectives' transports; forwarded to the torchrun child when set.
_COLLECTIVE_ENV_PREFIXES = ("NCCL_", "GLOO_", "TORCH_DISTRIBUTED", "MASTER_")


# --------------------------------------------------------------------------------------------- data


def _opt_float(v: Any) -> float | None:
    return None if v is None else float(v)


@dataclass(frozen=True)
class Measurement:
    """One figure, self-describing: what ran where, the value, its spread and the environment it came from."""

    framework: str
    device: str
    benchmark: str
    variant: str
    metric: str
    value: float
    unit: str
    higher_is_better: bool
    params: Mapping[str, Any] = field(default_factory=dict)
    median_s: float | None = None
    iqr_s: float | None = None
    min_s: float | None = None
    samples: int = 0
    compile_s: float | None = None
    pct_of_peak: float | None = None
    warnings: tuple[str, ...] = ()
    environment: Mapping[str, Any] = field(default_factory=dict)
    device_name: str = ""
    times_s: tuple[float, ...] = ()

    @property
    def rel_iqr(self) -> float | None:
        """IQR / median, the spread the warnings are about."""
        if self.median_s and self.iqr_s is not None:
            return self.iqr_s / self.median_s
        return None

    @property
    def key(self) -> str:
        """framework/device/benchmark/variant: unique within one report."""
        return f"{self.framework}/{self.device}/{self.benchmark}/{self.variant}"

    def to_json(self) -> dict[str, Any]:
        """The contract's result object."""
        return {
            "framework": self.framework, "device": self.device, "device_name": self.device_name,
            "benchmark": self.benchmark, "variant": self.variant, "params": dict(self.params),
            "metric": self.metric, "value": self.value, "unit": self.unit,
            "higher_is_better": self.higher_is_better, "median_s": self.median_s, "iqr_s": self.iqr_s,
            "min_s": self.min_s, "samples": self.samples, "compile_s": self.compile_s,
            "pct_of_peak": self.pct_of_peak, "warnings": list(self.warnings),
            "environment": dict(self.environment), "times_s": list(self.times_s),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Measurement:
        """Read one result object back (a saved report); a missing required key is a `ReportError`."""
        try:
            return cls(
                framework=str(data["framework"]), device=str(data["device"]), benchmark=str(data["benchmark"]),
                variant=str(data["variant"]), metric=str(data["metric"]), value=float(data["value"]),
                unit=str(data["unit"]), higher_is_better=bool(data["higher_is_better"]),
                params=dict(data.get("params") or {}), median_s=_opt_float(data.get("median_s")),
                iqr_s=_opt_float(data.get("iqr_s")), min_s=_opt_float(data.get("min_s")),
                samples=int(data.get("samples") or 0), compile_s=_opt_float(data.get("compile_s")),
                pct_of_peak=_opt_float(data.get("pct_of_peak")), warnings=tuple(data.get("warnings") or ()),
                environment=dict(data.get("environment") or {}), device_name=str(data.get("device_name") or ""),
                times_s=tuple(float(t) for t in data.get("times_s") or ()),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(f"bad benchmark result: {exc!r}", field="benchmarks.results") from exc


@dataclass(frozen=True)
class BenchFailure:
    """A benchmark that produced no figure, and why (missing, skipped, crashed, timed_out, error, ...)."""

    framework: str
    benchmark: str
    device: str | None
    outcome: str
    error: str

    def to_json(self) -> dict[str, Any]:
        """The contract's failure object."""
        return {"framework": self.framework, "benchmark": self.benchmark, "device": self.device,
                "outcome": self.outcome, "error": self.error}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BenchFailure:
        """Read one failure object back."""
        try:
            return cls(framework=str(data["framework"]), benchmark=str(data["benchmark"]),
                       device=None if data.get("device") is None else str(data["device"]),
                       outcome=str(data["outcome"]), error=str(data.get("error") or ""))
        except (KeyError, TypeError) as exc:
            raise ReportError(f"bad benchmark failure: {exc!r}", field="benchmarks.failures") from exc


@dataclass(frozen=True)
class BenchEvent:
    """Progress for a live display: a framework starts or ends, a benchmark starts, a figure or failure arrives."""

    kind: str  # "framework_start" | "framework_end" | "bench_start" | "result" | "failure" | "note"
    framework: str
    benchmark: str | None = None
    device: str | None = None
    message: str = ""
    measurement: Measurement | None = None
    failure: BenchFailure | None = None


@dataclass(frozen=True)
class BenchReport:
    """A whole run: its preset, wall time, environment, figures and failures."""

    preset: str
    wall_s: float
    environment: Mapping[str, Any]
    results: tuple[Measurement, ...]
    failures: tuple[BenchFailure, ...]

    def to_json(self) -> dict[str, Any]:
        """The `benchmarks` section of the report schema."""
        return {
            "schema": SCHEMA, "preset": self.preset, "wall_s": round(self.wall_s, 3),
            "environment": dict(self.environment),
            "results": [m.to_json() for m in self.results],
            "failures": [f.to_json() for f in self.failures],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BenchReport:
        """Read a saved bench section; a wrong schema or shape is a `ReportError`."""
        if not isinstance(data, Mapping) or data.get("schema") != SCHEMA:
            raise ReportError(f"not a {SCHEMA} document", field="benchmarks.schema")
        return cls(
            preset=str(data.get("preset", "")), wall_s=float(data.get("wall_s") or 0.0),
            environment=dict(data.get("environment") or {}),
            results=tuple(Measurement.from_json(r) for r in data.get("results") or ()),
            failures=tuple(BenchFailure.from_json(f) for f in data.get("failures") or ()),
        )

    def select(self, benchmark: str | None = None, framework: str | None = None,
               device: str | None = None) -> list[Measurement]:
        """Results filtered by benchmark, framework and device."""
        return [m for m in self.results
                if (benchmark is None or m.benchmark == benchmark)
                and (framework is None or m.framework == framework)
                and (device is None or m.device == device)]

    def best(self, benchmark: str, framework: str, device: str = "cpu", variant_prefix: str = "") -> Measurement | None:
        """The best figure of one benchmark for one framework (highest throughput or lowest latency)."""
        rows = [m for m in self.select(benchmark, framework, device) if m.variant.startswith(variant_prefix)]
        if not rows:
            return None
        return max(rows, key=lambda m: m.value if m.higher_is_better else -m.value)

    @property
    def frameworks(self) -> list[str]:
        """Frameworks with at least one figure or failure, in run order."""
        seen: dict[str, None] = {}
        for m in self.results:
            seen.setdefault(m.framework, None)
        for f in self.failures:
            seen.setdefault(f.framework, None)
        return list(seen)


# --------------------------------------------------------------------------------------------- helpers


def _peak_from_probe() -> PeakEstimate | None:
    """The CPU peak estimate of the hardware probe (None when it cannot be estimated)."""
    try:
        from advisor.evidence.hardware.cpu import probe_cpu
    except ImportError:
        return None
    try:
        return probe_cpu().peak
    except Exception:  # noqa: BLE001 - a peak estimate is optional context, never a reason to fail
        return None


def _pct_of_peak(res: Mapping[str, Any], device: str, peak: PeakEstimate | None) -> float | None:
    """GEMM (and conv) throughput as a percentage of the CPU's estimated peak for that precision."""
    if peak is None or device != "cpu":
        return None
    params = res.get("params") or {}
    if res.get("benchmark") == "gemm":
        gflops = float(res.get("value") or 0.0)
        dtype = params.get("dtype")
    elif res.get("benchmark") == "conv" and params.get("gflops") is not None:
        gflops, dtype = float(params["gflops"]), "fp32"
    else:
        return None
    ref = peak.fp32_gflops if dtype == "fp32" else (peak.bf16_gflops if dtype == "bf16" else None)
    return 100.0 * gflops / ref if ref else None


#: Marks the warning on a figure above 100% of the estimated peak (the CLI shortens it and explains it once).
ABOVE_PEAK = " of the estimated peak"


def _measurement(framework: str, res: Mapping[str, Any], env: Mapping[str, Any],
                 peak: PeakEstimate | None) -> Measurement:
    device = str(res.get("device", "cpu"))
    pct = _pct_of_peak(res, device, peak)
    warnings = tuple(str(w) for w in res.get("warnings") or ())
    if pct is not None and pct > 100.0 and peak is not None:
        # Say so next to the figure: the estimate's clock (or FMA count) is lower than what the chip ran at.
        warnings += (
            f"{pct:.0f}%{ABOVE_PEAK}: the estimate is too low for this CPU "
            f"(it assumes {peak.formula.split('=')[0].strip()})",
        )
    return Measurement(
        framework=framework, device=device, device_name=str(res.get("device_name") or ""),
        benchmark=str(res["benchmark"]), variant=str(res["variant"]), metric=str(res.get("metric", "throughput")),
        value=float(res["value"]), unit=str(res["unit"]), higher_is_better=bool(res.get("higher_is_better", True)),
        params=dict(res.get("params") or {}), median_s=_opt_float(res.get("median_s")),
        iqr_s=_opt_float(res.get("iqr_s")), min_s=_opt_float(res.get("min_s")), samples=int(res.get("samples") or 0),
        compile_s=_opt_float(res.get("compile_s")), pct_of_peak=pct,
        warnings=warnings, environment=dict(env),
        times_s=tuple(float(t) for t in res.get("times_s") or ()),
    )


def _env_of(event: Mapping[str, Any]) -> dict[str, Any]:
    """The per-result environment: version, threads, build of the child that measured it."""
    threads = event.get("threads") or {}
    n = threads.get("intra_op")
    return {"version": event.get("version"), "threads": n, "thread_settings": threads,
            "build": event.get("build") or {}, "python": event.get("python"), "devices": event.get("devices") or []}


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


class _Watchdog:
    """Kills a child whose current benchmark overran, or that never finished importing; also relays cancel."""

    def __init__(self, bench_timeout: float, import_timeout: float, cancel: threading.Event | None) -> None:
        self.kill = threading.Event()
        self.reason: str | None = None
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

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            now = time.monotonic()
            if self._cancel is not None and self._cancel.is_set():
                self.reason = "cancelled"
            elif self.current is not None and self.bench_started is not None \
                    and now - self.bench_started > self._bench_timeout:
                self.reason = f"no result within {self._bench_timeout:g} s; killed"
            elif self.bench_started is None and now - self.started > self._import_timeout:
                self.reason = f"did not start within {self._import_timeout:g} s (import hung?); killed"
            if self.reason is not None:
                self.kill.set()
                return


def _child_failure(child: ChildResult, watchdog: _Watchdog) -> tuple[str, str]:
    """(outcome, message) for a child that ended before finishing its benchmarks."""
    if child.outcome == Outcome.CANCELLED and watchdog.reason and watchdog.reason != "cancelled":
        return "timed_out", watchdog.reason
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
                    run.add(_measurement(framework, ev, run.envs.get(framework, {}), run.peak))
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
        if watchdog.reason == "cancelled":
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
    _run_script(run, adapter.id, "torch.distributed.run", args, ["allreduce"],
                root=adapter.script_root(), bench_timeout=bench_timeout, cancel=cancel, env=env)


def _compare_agreement(run: _Run, tol: float) -> None:
    """Compare every framework's agreement step with the NumPy float64 reference; a mismatch is a failure."""
    if not run.agreement:
        return
    ref = run.agreement.get((NUMPY, "cpu"))
    ref_name = "numpy float64"
    if ref is None:
        first = next(iter(sorted(run.agreement)))
        ref, ref_name = run.agreement[first], f"{first[0]} on {first[1]} (NumPy reference missing)"
    for (framework, device), got in sorted(run.agreement.items()):
        if got is ref:
            continue
        try:
            loss_err = abs(got["loss"] - ref["loss"]) / max(abs(ref["loss"]), 1e-12)
            grad_errs = {}
            for name, g_ref in ref["grads"].items():
                g = got["grads"][name]
                if len(g) != len(g_ref):
                    raise ValueError(f"gradient {name} has {len(g)} values, expected {len(g_ref)}")
                scale = max(max(abs(v) for v in g_ref), 1e-12)
                grad_errs[name] = max(abs(a - b) for a, b in zip(g, g_ref, strict=True)) / scale
            upd_errs = {k: abs(got["updated_norms"][k] - v) / max(abs(v), 1e-12)
                        for k, v in ref["updated_norms"].items()}
        except (KeyError, TypeError, ValueError) as exc:
            run.fail(framework, "agreement", device, "bad_output", f"cannot compare: {exc!r}")
            continue
        worst = max([loss_err, *grad_errs.values(), *upd_errs.values()])
        passed = math.isfinite(worst) and worst <= tol
        message = f"disagrees with {ref_name}: max relative error {worst:.2e} > {tol:g}"
        warnings: tuple[str, ...] = () if passed else (message,)
        run.add(Measurement(
            framework=framework, device=device, benchmark="agreement", variant="mlp-step-vs-reference",
            metric="error", value=worst, unit="rel. error", higher_is_better=False,
            params={"reference": ref_name, "tolerance": tol, "passed": passed, "loss": got["loss"],
                    "reference_loss": ref["loss"], "loss_rel_err": loss_err, "grad_max_rel_err": grad_errs,
                    "updated_norm_rel_err": upd_errs, "dtype": got.get("dtype")},
            samples=1, warnings=warnings, environment=run.envs.get(framework, {}),
        ))
        if not passed:
            run.fail(framework, "agreement", device, "mismatch", message)


def _environment(preset: str, peak: PeakEstimate | None, threads: int, budget: float | None) -> dict[str, Any]:
    env_vars = recorded_env()  # exact names only (advisor.privacy): a prefix would catch TF_VAR_* secrets
    try:
        load = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        load = None
    return {
        "python": platform.python_version(), "platform": platform.platform(), "machine": platform.machine(),
        "usable_cores": threads, "threads": threads, "preset": preset, "budget_s": budget,
        "peak": None if peak is None else {"fp32_gflops": peak.fp32_gflops, "bf16_gflops": peak.bf16_gflops,
                                           "formula": peak.formula},
        "loadavg_start": load, "env": env_vars,
        "method": "warm-up; calls batched into blocks >= 10 ms; blocks sampled until IQR/median <= 2% "
                  "(>= 5 samples) or the budget is spent; median, IQR, min reported",
    }


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# --------------------------------------------------------------------------------------------- entry point


def run_bench(
    *,
    preset: str = "quick",
    frameworks: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
    devices: Sequence[str] | None = None,
    budget_s: float | None = None,
    on_event: Callable[[BenchEvent], None] | None = None,
    cancel: threading.Event | None = None,
    peak: PeakEstimate | None = None,
    nproc: int = 2,
    rendezvous: Sequence[str] = (),
    threads: int | None = None,
    baseline: bool = True,
    adapters: Mapping[str, FrameworkAdapter] | None = None,
    bench_timeout_s: float | None = None,
) -> BenchReport:
    """Run the suite through each installed framework (one child each) and return every figure and failure.

    `budget_s` bounds the measuring time of the whole run (split evenly over frameworks and
    benchmarks; imports and compiles are extra). `rendezvous` are torchrun options for a
    multi-node all-reduce (e.g. `--nnodes=2 --node-rank=0 --rdzv-endpoint=host:29400`).
    `adapters` replaces the registry (plugins, tests); `baseline=False` skips the NumPy child.
    """
    if preset not in PRESETS:
        raise UsageError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}", field="--preset")
    selected = list(only) if only else list(BENCHMARKS)
    unknown = [b for b in selected if b not in BENCHMARKS]
    if unknown:
        raise UsageError(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}",
                         field="--only")
    bad_dev = [d for d in devices or () if d not in DEVICES]
    if bad_dev:
        raise UsageError(f"unknown device(s) {', '.join(bad_dev)}; choose from {', '.join(DEVICES)}",
                         field="--device")
    if nproc < 1:
        raise UsageError("--nproc must be at least 1", field="--nproc")
    if adapters is None:
        from advisor.frameworks.registry import adapters as registry

        adapters = registry()
    wanted = list(frameworks) if frameworks else list(adapters)
    missing_adapter = [f for f in wanted if f not in adapters]
    if missing_adapter:
        raise UsageError(f"no adapter for {', '.join(missing_adapter)}; known: {', '.join(adapters)}",
                         field="--framework")
    selected = [b for b in BENCHMARKS if b in selected]
    start = time.perf_counter()
    peak = peak if peak is not None else _peak_from_probe()
    n_threads = threads or _usable_cores()
    run = _Run(peak=peak, on_event=on_event)
    bench_timeout = bench_timeout_s or BENCH_TIMEOUT_S[preset]
    per_bench = None
    if budget_s is not None:
        per_bench = max(budget_s / max(len(wanted) * len(selected), 1), 0.01)
    base = ["--preset", preset, "--threads", str(n_threads)]
    if devices:
        base += ["--device", ",".join(devices)]
    if per_bench is not None:
        base += ["--budget", f"{per_bench:.4g}"]
    fault = {"FWADVISOR_BENCH_FAULT": os.environ["FWADVISOR_BENCH_FAULT"]} \
        if os.environ.get("FWADVISOR_BENCH_FAULT") else {}
    # Fix the OpenMP pool to the same size everywhere unless the user chose one.
    thread_env = {} if "OMP_NUM_THREADS" in os.environ else {"OMP_NUM_THREADS": str(n_threads)}

    np_benches = [b for b in selected if b in NUMPY_BENCHMARKS]
    if baseline and np_benches and (not devices or "cpu" in devices):
        run.tell(BenchEvent("framework_start", NUMPY, message="NumPy baseline"))
        _run_script(run, NUMPY, "probes.bench_numpy", base, np_benches, root=probes_root(),
                    bench_timeout=bench_timeout, cancel=cancel, env={**thread_env, **fault})
        run.tell(BenchEvent("framework_end", NUMPY))

    for fid in wanted:
        if cancel is not None and cancel.is_set():
            run.fail(fid, "*", None, "cancelled", "cancelled before it started")
            continue
        adapter = adapters[fid]
        if adapter.installed() is None:
            run.fail(fid, "*", None, "missing", f"not installed (none of {', '.join(adapter.distributions)})")
            continue
        if not adapter.bench_module:
            run.fail(fid, "*", None, "skipped", "its adapter names no benchmark script")
            continue
        run.tell(BenchEvent("framework_start", fid, message=adapter.display_name))
        own = list(selected)
        skip: list[str] = []
        collective = "allreduce" in own and fid in ("pytorch", "jax")
        if collective and fid == "pytorch":
            own.remove("allreduce")  # measured under torchrun below
        if collective and fid == "jax" and (not devices or "cpu" in devices):
            skip.append("allreduce@cpu")  # needs a child with several host devices, below
        if own:
            _run_script(run, fid, adapter.bench_module, base, own, root=adapter.script_root(),
                        bench_timeout=bench_timeout, cancel=cancel, env={**thread_env, **fault}, skip=skip)
        if own and devices and fid not in run.started and not any(f.framework == fid for f in run.failures):
            run.fail(fid, "*", None, "skipped", f"no {'/'.join(devices)} device visible to {adapter.display_name}")
        if collective and fid == "pytorch":
            run.tell(BenchEvent("note", fid, "allreduce", None, message=f"all-reduce: torchrun, {nproc} processes"))
            _torchrun(run, adapter, preset, nproc=nproc, rendezvous=rendezvous, devices=devices,
                      bench_timeout=bench_timeout, budget=per_bench, cancel=cancel)
        if collective and fid == "jax" and (not devices or "cpu" in devices):
            flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={nproc}".strip()
            _run_script(run, fid, adapter.bench_module, [*base[:4], "--device", "cpu",
                                                         *(["--budget", f"{per_bench:.4g}"] if per_bench else [])],
                        ["allreduce"], root=adapter.script_root(), bench_timeout=bench_timeout, cancel=cancel,
                        env={"XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu", **fault})
        run.tell(BenchEvent("framework_end", fid))

    if "agreement" in selected:
        _compare_agreement(run, AGREEMENT_TOL)
    env = _environment(preset, peak, n_threads, budget_s)
    try:
        env["loadavg_end"] = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        env["loadavg_end"] = None
    env["frameworks"] = run.envs
    env["argv"] = scrub(list(sys.argv[1:]))  # the command line names files, often under the home folder
    return BenchReport(preset=preset, wall_s=time.perf_counter() - start, environment=env,
                       results=tuple(run.results), failures=tuple(run.failures))
