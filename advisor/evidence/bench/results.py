"""Immutable, self-describing benchmark results: figures, failures, progress events and a whole run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, cast

from pydantic import ConfigDict, Field, computed_field, field_serializer, with_config
from pydantic.dataclasses import dataclass as model
from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only from Python 3.12

from advisor.errors import ReportError
from advisor.evidence.bench.presets import SCHEMA


def _opt_float(v: Any) -> float | None:
    return None if v is None else float(v)


def _opt_interval(v: Any) -> tuple[float, float] | None:
    if v is None:
        return None
    lo, hi = v
    return float(lo), float(hi)


@with_config(ConfigDict(extra="allow"))  # a newer child may send more: kept as sent
class MachineState(TypedDict, total=False):
    """The machine's state while a figure was measured, as a bench child sends it (probes/_machine.between).

    Pooled over rounds (`stats.merge_machine`) the worst of each is kept, `freq_mhz` becomes [min, max] and
    `rounds` counts the states pooled. Any key may be missing or None: nothing was readable.
    """

    wall_s: float | None
    load1: float | None
    load1_before: float | None
    own_share: float | None
    freq_mhz: float | list[float] | None
    others_cores: float | None
    steal_pct: float | None
    rounds: int


class BenchWarningCode(StrEnum):
    """Why a figure may not be trusted; the children (probes/_timing.py, _bench.py) send the same codes."""

    UNSTABLE = "unstable"  # rel_iqr: the IQR as a share of the median
    FEW_SAMPLES = "few_samples"  # samples
    SHORT_BLOCKS = "short_blocks"  # block_ms: timed blocks so short that timer overhead matters
    WIDE_SPREAD = "wide_spread"  # ratio: the median over the minimum
    TIMED_ONCE = "timed_once"  # seconds: one call, too slow to repeat
    ONE_ROUND = "one_round"  # seconds: a call longer than a round's budget, measured in one round only
    FEW_CALLS = "few_calls"  # calls: latency percentiles from under 100 calls
    ROUNDS_DISAGREE = "rounds_disagree"  # spread: the rounds' medians differ by this share
    ABOVE_PEAK = "above_peak"  # pct, assumes: above 100% of the estimated peak
    BELOW_REFERENCE = "below_reference"  # share, reference, cause: a GEMM far below its reference's figure
    DISAGREES = "disagrees"  # reference, error, tolerance: numerical agreement failed
    NOTE = "note"  # a sentence without a code (a saved file from before codes, or a foreign child)


@dataclass(frozen=True)
class BenchWarning:
    """One warning on a figure: its code and parameters, and the sentence written from them where it arose."""

    code: BenchWarningCode
    message: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message

    def code_json(self) -> dict[str, Any]:
        """The code and parameters, as `warning_codes` carries them."""
        return {"code": self.code.value, "params": dict(self.params)}

    @classmethod
    def from_event(cls, item: Any) -> BenchWarning:
        """A child's note ({code, message, params}); anything else is kept as a sentence with code `note`."""
        if isinstance(item, Mapping):
            try:
                code = BenchWarningCode(str(item.get("code")))
            except ValueError:
                code = BenchWarningCode.NOTE
            params = item.get("params")
            return cls(code, str(item.get("message") or ""), dict(params) if isinstance(params, Mapping) else {})
        return cls(BenchWarningCode.NOTE, str(item))


class WarningCode(TypedDict):
    """A warning's code and parameters, as a saved result's `warning_codes` carries them."""

    code: str
    params: dict[str, Any]


def read_warnings(messages: Sequence[Any], codes: Sequence[Any] | None) -> tuple[BenchWarning, ...]:
    """A saved result's warnings: each sentence with its code (a file from before codes: code `note`)."""
    codes = list(codes or ())
    if len(codes) != len(messages):
        codes = [{}] * len(messages)
    return tuple(
        BenchWarning.from_event({**c, "message": str(m)} if isinstance(c, Mapping) else str(m))
        for m, c in zip(messages, codes, strict=True)
    )


@model(frozen=True)
class Measurement:
    """One figure, self-describing: what ran where, the value, its spread and the environment it came from.

    Its JSON form is one entry of the bench schema's `results`: `warnings` as their sentences, and beside them
    `warning_codes`, the same warnings' codes and parameters (what programs read).
    """

    framework: str
    device: str
    benchmark: str
    variant: str
    metric: str
    value: float
    unit: str
    higher_is_better: bool
    params: Mapping[str, Any] = Field(default_factory=dict)
    median_s: float | None = None
    iqr_s: float | None = None
    min_s: float | None = None
    samples: int = 0
    compile_s: float | None = None
    pct_of_peak: float | None = None
    warnings: tuple[BenchWarning, ...] = ()
    environment: Mapping[str, Any] = Field(default_factory=dict)
    device_name: str = ""
    times_s: tuple[float, ...] = ()
    ci: tuple[float, float] | None = None  # 95% confidence interval of the value (see bench/stats.py)
    machine: MachineState = Field(default_factory=lambda: MachineState())  # state while it was measured
    rounds: int = 1

    @field_serializer("warnings")
    def _sentences(self, value: tuple[BenchWarning, ...]) -> list[str]:
        return [w.message for w in value]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def warning_codes(self) -> list[WarningCode]:
        """Per warning, in the same order: its code and parameters."""
        return [WarningCode(code=w.code.value, params=dict(w.params)) for w in self.warnings]

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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Measurement:
        """Read one result object back (a saved report); a missing framework, benchmark or value is a `ReportError`.

        What an older or hand-written result lacks is read as the scoring always read it: no `metric` is
        throughput, no `higher_is_better` follows the metric, no device or unit is "unknown", no variant "".
        """
        try:
            metric = str(data.get("metric") or "throughput")
            return cls(
                framework=str(data["framework"]), device=str(data.get("device") or "unknown"),
                benchmark=str(data["benchmark"]), variant=str(data.get("variant") or ""), metric=metric,
                value=float(data["value"]), unit=str(data.get("unit") or "unknown"),
                higher_is_better=bool(data.get("higher_is_better", metric == "throughput")),
                params=dict(data.get("params") or {}), median_s=_opt_float(data.get("median_s")),
                iqr_s=_opt_float(data.get("iqr_s")), min_s=_opt_float(data.get("min_s")),
                samples=int(data.get("samples") or 0), compile_s=_opt_float(data.get("compile_s")),
                pct_of_peak=_opt_float(data.get("pct_of_peak")),
                warnings=read_warnings(data.get("warnings") or (), data.get("warning_codes")),
                environment=dict(data.get("environment") or {}), device_name=str(data.get("device_name") or ""),
                times_s=tuple(float(t) for t in data.get("times_s") or ()),
                ci=_opt_interval(data.get("ci")), machine=cast(MachineState, dict(data.get("machine") or {})),
                rounds=int(data.get("rounds") or 1),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReportError(f"bad benchmark result: {exc!r}", field="benchmarks.results") from exc


@model(frozen=True)
class BenchFailure:
    """A benchmark that produced no figure, and why (missing, skipped, crashed, timed_out, error, ...)."""

    framework: str
    benchmark: str
    device: str | None
    outcome: str
    error: str

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


@model(frozen=True)
class BenchReport:
    """A whole run: its preset, wall time, environment, figures and failures (the report's `benchmarks`)."""

    preset: str
    wall_s: float
    environment: Mapping[str, Any]
    results: tuple[Measurement, ...]
    failures: tuple[BenchFailure, ...]
    schema: Literal["fwadvisor.bench/1"] = Field(default=SCHEMA, kw_only=True)

    @field_serializer("wall_s")
    def _wall(self, value: float) -> float:
        return round(value, 3)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BenchReport:
        """Read a saved bench section; a wrong schema or shape is a `ReportError`."""
        # A section without `schema` (hand-written, or from before it was written) is taken as this schema.
        if not isinstance(data, Mapping) or data.get("schema", SCHEMA) != SCHEMA:
            raise ReportError(f"not a {SCHEMA} document", field="benchmarks.schema")
        results: list[Measurement] = []
        for i, r in enumerate(data.get("results") or ()):
            try:
                results.append(Measurement.from_json(r))
            except ReportError as exc:
                raise ReportError(exc.message, field=f"benchmarks.results[{i}]") from exc
        try:
            return cls(
                preset=str(data.get("preset", "")), wall_s=float(data.get("wall_s") or 0.0),
                environment=dict(data.get("environment") or {}), results=tuple(results),
                failures=tuple(BenchFailure.from_json(f) for f in data.get("failures") or ()),
            )
        except (TypeError, ValueError) as exc:
            raise ReportError(f"malformed benchmarks: {exc!r}", field="benchmarks") from exc

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
