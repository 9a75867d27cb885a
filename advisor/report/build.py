"""An assessment turned into the report dict (validated by the models on the way), without identifying data."""

from __future__ import annotations

import datetime as dt
import socket
from typing import Any

from advisor import __version__
from advisor.jsonio import json_text
from advisor.knowledge.base import KnowledgeBase
from advisor.privacy import scrub
from advisor.profile import WEIGHT_SCALE_MAX, profile_to_json
from advisor.report.models import (
    Ahp,
    ContributionModel,
    EffectiveWeightModel,
    ExclusionModel,
    Knowledge,
    Machine,
    Method,
    Pack,
    ProfileSection,
    RankingEntry,
    RecommendationSection,
    Report,
    SensitivitySection,
    Tool,
    WarningModel,
)
from advisor.report_evidence import AllReduceShape, BenchShape, ProbeShape
from advisor.scoring.engine import Assessment


def anonymise(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """Drop identifying keys (host, user) and hide home folders, user and host names (`advisor.privacy.scrub`)."""
    return None if data is None else scrub(data)


def _machine(probe: dict[str, Any] | None, hardware: dict[str, str], hostname: str | None) -> Machine:
    p = probe or {}
    cpu, mem, sw = p.get("cpu") or {}, p.get("memory") or {}, p.get("software") or {}
    gpus = [str(d.get("name")) for d in (p.get("gpus") or {}).get("devices") or []]
    return Machine(
        hostname=hostname,
        os=sw.get("os"),
        arch=cpu.get("arch"),
        python=sw.get("python"),
        cpu=cpu.get("model"),
        logical_cores=cpu.get("logical_cores"),
        usable_cores=cpu.get("usable_cores"),
        memory_total_bytes=mem.get("total_bytes"),
        gpus=gpus,
        hardware=hardware,
    )


def build_report(
    assessment: Assessment,
    kb: KnowledgeBase,
    *,
    probe: dict[str, Any] | None,
    bench: dict[str, Any] | None,
    profile_source: str,
    identify: bool = False,
    hostname: str | None = None,
    allreduce: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report as a JSON-ready dict (validated by the pydantic models on the way).

    `allreduce` is a fleet node's all-reduce (`AllReduceReport.to_json()`), kept in the report's own section.
    """
    r = assessment.resolved
    if identify and hostname is None:
        hostname = socket.gethostname()
    if not identify:
        hostname = None
        probe, bench, allreduce = anonymise(probe), anonymise(bench), anonymise(allreduce)
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
            notes=b.notes,
            contributions=[ContributionModel(**c.to_json()) for c in b.contributions],
        )
        for i, b in enumerate(assessment.ranking)
    ]
    cons = r.constraints.model_dump(mode="json")
    report = Report(
        generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        tool=Tool(version=__version__),
        knowledge=Knowledge(version=kb.version, packs=[Pack(**p.to_json()) for p in kb.packs]),
        machine=_machine(probe, assessment.hardware, hostname),
        probe=None if probe is None else ProbeShape.model_validate(probe),
        benchmarks=None if bench is None else BenchShape.model_validate(bench),
        allreduce=None if allreduce is None else AllReduceShape.model_validate(allreduce),
        profile=ProfileSection(
            source=profile_source,
            scenario=r.scenario,
            weight_source=r.weight_source,  # type: ignore[arg-type]
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
            effective_weights={
                c: EffectiveWeightModel(**e.to_json())  # type: ignore[arg-type]
                for c, e in r.effective_weights.items()
            },
        ),
        method=Method(),
        ranking=ranking,
        sensitivity=SensitivitySection(**assessment.sensitivity.to_json()) if assessment.sensitivity else None,
        exclusions=[ExclusionModel(**e.to_json()) for e in assessment.exclusions],
        warnings=[WarningModel(**w.to_json()) for w in assessment.warnings],
        recommendation=RecommendationSection(**assessment.recommendation.to_json()),
        migration={fid: cost.to_json() for fid, cost in assessment.migration.items()},
    )
    data = report.model_dump(mode="json")
    # Every string, not only the evidence: the profile's source path and warnings can name the home folder too.
    return data if identify else scrub(data, drop_keys=False)


def to_json_text(report: dict[str, Any]) -> str:
    """The report as strict JSON text (full float precision, so contributions add up; NaN/inf become null)."""
    return json_text(report)
