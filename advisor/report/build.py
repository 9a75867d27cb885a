"""An assessment turned into the typed `Report`, without identifying data unless asked; its JSON text."""

from __future__ import annotations

import datetime as dt
import socket
from typing import TYPE_CHECKING, Any

from advisor import __version__
from advisor.jsonio import json_text, model_json
from advisor.knowledge.base import KnowledgeBase
from advisor.privacy import scrub
from advisor.profile import WEIGHT_SCALE_MAX, profile_to_json
from advisor.report.models import (
    Ahp,
    Knowledge,
    Machine,
    Method,
    NoteCodeModel,
    Pack,
    ProfileSection,
    RankingEntry,
    Report,
    Tool,
    worded_exclusions,
    worded_recommendation,
    worded_warnings,
)
from advisor.report_evidence import AllReduceShape, BenchShape, ProbeShape
from advisor.scoring.engine import Assessment

if TYPE_CHECKING:
    from advisor.evidence.bench.collective_model import AllReduceReport
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport


def anonymise(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """Drop identifying keys (host, user) and hide home folders, user and host names (`advisor.privacy.scrub`)."""
    return None if data is None else scrub(data)


def _machine(probe: ProbeReport | None, hardware: dict[str, str], hostname: str | None) -> Machine:
    if probe is None:
        return Machine(hostname=hostname, hardware=hardware)
    cpu, sw = probe.cpu, probe.software
    return Machine(
        hostname=hostname,
        os=sw.os,
        arch=cpu.arch,
        python=sw.python,
        cpu=cpu.model,
        logical_cores=cpu.logical_cores,
        usable_cores=cpu.usable_cores,
        memory_total_bytes=probe.memory.total_bytes,
        gpus=[str(d.name) for d in probe.gpus.devices],
        hardware=hardware,
    )


def build_report(
    assessment: Assessment,
    kb: KnowledgeBase,
    *,
    probe: ProbeReport | None,
    bench: BenchReport | None,
    profile_source: str,
    identify: bool = False,
    hostname: str | None = None,
    allreduce: AllReduceReport | None = None,
) -> Report:
    """The report as the typed `Report`: exactly what its JSON text reads back as (`to_json_text`).

    `allreduce` is a fleet node's all-reduce, kept in the report's own section.
    """
    r = assessment.resolved
    if identify and hostname is None:
        hostname = socket.gethostname()
    # The report file is an edge: the evidence is written as JSON here, and scrubbed unless --identify.
    probe_json = None if probe is None else model_json(probe)
    bench_json = None if bench is None else model_json(bench)
    allreduce_json = None if allreduce is None else model_json(allreduce)
    if not identify:
        hostname = None
        probe_json, bench_json = anonymise(probe_json), anonymise(bench_json)
        allreduce_json = anonymise(allreduce_json)
    topsis_rank = {f: i + 1 for i, f in enumerate(assessment.topsis_order)}
    ranking = [
        RankingEntry(
            rank=i + 1,
            framework=b.framework,
            name=b.name,
            total=b.total,
            topsis=assessment.topsis[b.framework],
            topsis_rank=topsis_rank[b.framework],
            status=b.status,
            status_code=b.status_code.value,
            installed=b.installed,
            note_codes=[NoteCodeModel(code=n.code, params=n.params) for n in b.notes],
            contributions=b.contributions,
        )
        for i, b in enumerate(assessment.ranking)
    ]
    cons = r.constraints.model_dump(mode="json")
    report = Report(
        generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        tool=Tool(version=__version__),
        knowledge=Knowledge(version=kb.version, packs=[Pack.model_validate(p, from_attributes=True) for p in kb.packs]),
        machine=_machine(probe, assessment.hardware, hostname),
        probe=None if probe_json is None else ProbeShape.model_validate(probe_json),
        benchmarks=None if bench_json is None else BenchShape.model_validate(bench_json),
        allreduce=None if allreduce_json is None else AllReduceShape.model_validate(allreduce_json),
        profile=ProfileSection(
            source=profile_source,
            scenario=r.scenario,
            weight_source=r.weight_source,
            weights=r.weights,
            normalized_weights=r.normalized_weights,
            constraints=cons,
            policies=list(r.policies),
            frameworks=list(r.frameworks),
            as_written=profile_to_json(r.profile),
            ahp=Ahp(
                lambda_max=r.ahp.lambda_max,
                consistency_index=r.ahp.consistency_index,
                consistency_ratio=r.ahp.consistency_ratio,
                missing_pairs=r.ahp.missing_pairs,
            )
            if r.ahp
            else None,
            weight_scale=f"0-{WEIGHT_SCALE_MAX:g} importance; scenario presets scaled so their largest weight is "
            f"{WEIGHT_SCALE_MAX:g}",
            effective_weights=r.effective_weights,
        ),
        method=Method(),
        ranking=ranking,
        sensitivity=assessment.sensitivity,
        exclusions=worded_exclusions(assessment.exclusions),
        warnings=worded_warnings(assessment.warnings),
        recommendation=worded_recommendation(assessment.recommendation),
        migration=assessment.migration,
    )
    data = report.model_dump(mode="json")
    # Every string, not only the evidence: the profile's source path and warnings can name the home folder too.
    # Validated from its JSON form, so the object returned is the one its saved JSON reads back as.
    return Report.model_validate(data if identify else scrub(data, drop_keys=False))


def to_json_text(report: Report) -> str:
    """The report as strict JSON text (full float precision, so contributions add up; NaN/inf become null)."""
    return json_text(report.model_dump(mode="json"))
