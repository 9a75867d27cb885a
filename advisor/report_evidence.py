"""The shape of a report's `probe`, `benchmarks` and `allreduce` sections, as strict as the code that reads them.

The probe and bench JSON have many more fields than scoring, compare and the TUI use, and they grow; those
extra fields are allowed. The fields the code does read are typed here, so a saved report whose `probe.cpu`
is a number or whose `benchmarks.results` is a string fails validation with one line (file, field) instead of
a traceback deep inside scoring. Numbers are finite by construction: JSON text has no NaN or Infinity.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from advisor.limits import MAX_GPU_NAME, MAX_GPUS


class _Open(BaseModel):
    """A section with more fields than the advisor reads: those are kept as they are."""

    model_config = ConfigDict(extra="allow")


class CpuShape(_Open):
    """`probe.cpu`: what the machine summary and the hardware evidence read."""

    model: str | None = None
    arch: str | None = None
    logical_cores: int | None = Field(default=None, ge=0)
    usable_cores: int | None = Field(default=None, ge=0)


class MemoryShape(_Open):
    """`probe.memory`."""

    total_bytes: int | None = Field(default=None, ge=0)


class SoftwareShape(_Open):
    """`probe.software`."""

    os: str | None = None
    python: str | None = None
    env: dict[str, str] | None = None


class GpuDeviceShape(_Open):
    """One entry of `probe.gpus.devices`: its name becomes a fleet entry's model, so it has the same bound."""

    name: Annotated[str, StringConstraints(max_length=MAX_GPU_NAME)] | None = None
    compute_capability: str | None = None


class GpusShape(_Open):
    """`probe.gpus`."""

    devices: Annotated[list[GpuDeviceShape], Field(max_length=MAX_GPUS)] | None = None


class AcceleratorShape(_Open):
    """One entry of `probe.accelerators` (tpu, rocm, mps, xpu, ascend)."""

    present: bool | None = None
    detail: str | None = None


class FrameworkShape(_Open):
    """One entry of `probe.frameworks`."""

    installed: bool | None = None
    outcome: str | None = None
    accelerator_ok: bool | None = None
    error: str | None = None
    devices: list[dict[str, Any]] | None = None


class RequirementShape(_Open):
    """One entry of `probe.requirements`."""

    framework: str | None = None
    check: str | None = None
    ok: bool | None = None
    detail: str | None = None
    code: str | None = None
    facts: dict[str, str | int | float] | None = None


class ProbeShape(_Open):
    """A report's `probe` section (schema fwadvisor.probe/1)."""

    cpu: CpuShape | None = None
    memory: MemoryShape | None = None
    software: SoftwareShape | None = None
    gpus: GpusShape | None = None
    accelerators: dict[str, AcceleratorShape | None] | None = None
    frameworks: dict[str, FrameworkShape] | None = None
    requirements: list[RequirementShape] | None = None


class WarningCodeShape(_Open):
    """The code of one benchmark warning (advisor.evidence.bench.BenchWarningCode) and its parameters."""

    code: str
    params: dict[str, Any] = Field(default_factory=dict)


class ResultShape(_Open):
    """One entry of `benchmarks.results`: a measurement."""

    framework: str
    device: str | None = None
    benchmark: str
    variant: str | None = None
    metric: str | None = None
    value: float | None = None
    unit: str | None = None
    median_s: float | None = None
    iqr_s: float | None = None
    pct_of_peak: float | None = None
    ci: Annotated[list[float], Field(min_length=2, max_length=2)] | None = Field(
        default=None, description="the value's 95% confidence interval [low, high] (CSV and compare read it)"
    )
    warnings: list[str] | None = None
    warning_codes: list[WarningCodeShape] | None = Field(
        default=None, description="per warning, in the same order: its code and parameters (what programs read)"
    )


class FailureShape(_Open):
    """One entry of `benchmarks.failures`."""

    framework: str
    benchmark: str | None = None
    device: str | None = None
    outcome: str | None = None


class BenchShape(_Open):
    """A report's `benchmarks` section (schema fwadvisor.bench/1)."""

    preset: str | None = None
    results: list[ResultShape] | None = None
    failures: list[FailureShape] | None = None


class AllReduceRowShape(_Open):
    """One message size of an all-reduce run: nccl-tests' figures (algbw = S/t, busbw = algbw * 2(n-1)/n)."""

    bytes: int = Field(ge=1)
    ranks: int = Field(ge=1)
    time_us: float = Field(ge=0)
    algbw_GBps: float = Field(ge=0)  # noqa: N815 - the unit is part of the name, as in fwadvisor.collective/1
    busbw_GBps: float = Field(ge=0)  # noqa: N815
    times_s: list[float] = Field(min_length=1)


class AllReduceRunShape(_Open):
    """One all-reduce run (`advisor.evidence.bench.collective_model.CollectiveRun`): how it ended, its rows."""

    framework: str
    scope: Literal["intra_node", "inter_node"]
    outcome: Literal["ok", "failed", "timed_out", "cancelled", "missing", "skipped"]
    nnodes: int = Field(ge=1)
    nproc_per_node: int = Field(ge=1)
    backend: str = ""
    error: str = ""
    rows: list[AllReduceRowShape] = Field(default_factory=list)


class AllReduceShape(_Open):
    """A fleet node's `allreduce` section (schema fwadvisor.collective/1): its intra-node run beside its share
    of the inter-node run; the leader's (node 0's) inter-node run carries the rows."""

    framework: str
    intra: AllReduceRunShape | None = None
    inter: AllReduceRunShape | None = None
