"""The report's view of the probe and bench sections (`advisor.report_evidence`) agrees with the models' JSON."""

from __future__ import annotations

import dataclasses

import pytest
from _scoring_support import bench_json

from advisor.evidence.bench.results import BenchFailure, BenchReport, Measurement
from advisor.evidence.hardware.accelerators import AcceleratorStatus
from advisor.evidence.hardware.cpu import CpuInfo
from advisor.evidence.hardware.memory import MemoryInfo
from advisor.evidence.hardware.nvidia import GpuDevice, GpuReport
from advisor.evidence.hardware.requirements import Requirement
from advisor.evidence.hardware.software import SoftwareInfo
from advisor.evidence.probe import ProbeReport, run_probe
from advisor.evidence.probe_frameworks import FrameworkProbe
from advisor.jsonio import model_json
from advisor.report_evidence import (
    AcceleratorShape,
    BenchShape,
    CpuShape,
    FailureShape,
    FrameworkShape,
    GpuDeviceShape,
    GpusShape,
    MemoryShape,
    ProbeShape,
    RequirementShape,
    ResultShape,
    SoftwareShape,
)

#: Each shape and the model whose JSON form it describes.
PAIRS = [
    (CpuShape, CpuInfo), (MemoryShape, MemoryInfo), (SoftwareShape, SoftwareInfo), (GpuDeviceShape, GpuDevice),
    (GpusShape, GpuReport), (AcceleratorShape, AcceleratorStatus), (FrameworkShape, FrameworkProbe),
    (RequirementShape, Requirement), (ProbeShape, ProbeReport), (ResultShape, Measurement),
    (FailureShape, BenchFailure), (BenchShape, BenchReport),
]
#: Per model, the fields the core reads (scoring, report/build's machine, the fleet): the shape must type each,
#: so a saved report with one of the wrong type is refused with its field named, not met deep in scoring.
READ = {
    CpuInfo: {"model", "arch", "logical_cores", "usable_cores"},
    MemoryInfo: {"total_bytes"},
    SoftwareInfo: {"os", "python", "env"},
    GpuDevice: {"name", "compute_capability"},
    GpuReport: {"devices"},
    AcceleratorStatus: {"present", "detail"},
    FrameworkProbe: {"installed", "outcome", "accelerator_ok", "error", "devices"},
    Requirement: {"framework", "check", "ok", "detail"},
    ProbeReport: {"cpu", "memory", "software", "gpus", "accelerators", "frameworks", "requirements"},
    Measurement: {"framework", "device", "benchmark", "variant", "value", "unit", "median_s", "iqr_s", "ci",
                  "warnings"},
    BenchFailure: {"framework", "benchmark", "device", "outcome"},
    BenchReport: {"results", "failures"},
}


@pytest.mark.parametrize(("shape", "model"), PAIRS, ids=lambda x: x.__name__)
def test_every_shape_field_is_a_field_of_its_model(shape, model) -> None:  # type: ignore[no-untyped-def]
    # `warning_codes` is written in Measurement's JSON beside `warnings` (the codes of the same warnings).
    names = {f.name for f in dataclasses.fields(model)} | ({"warning_codes"} if model is Measurement else set())
    assert set(shape.model_fields) <= names, sorted(set(shape.model_fields) - names)


@pytest.mark.parametrize(("shape", "model"), PAIRS, ids=lambda x: x.__name__)
def test_every_field_the_core_reads_is_typed_in_the_shape(shape, model) -> None:  # type: ignore[no-untyped-def]
    assert READ[model] <= set(shape.model_fields), sorted(READ[model] - set(shape.model_fields))


def test_a_real_probe_validates_and_reads_back() -> None:
    probe = run_probe(fast=True, cache=False)  # this machine, package metadata only: no framework imported
    data = model_json(probe)
    ProbeShape.model_validate(data)
    assert model_json(ProbeReport.from_json(data)) == data


def test_a_recorded_bench_validates_and_reads_back() -> None:
    data = model_json(BenchReport.from_json(bench_json()))
    BenchShape.model_validate(data)
    assert model_json(BenchReport.from_json(data)) == data
