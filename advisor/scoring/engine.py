"""The assessment: constraints, evidence blending, weighted sum + TOPSIS, explanations, sensitivity, advice."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from advisor.evidence.hardware.requirements import RequirementCode
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.freshness import StaleFact, stale_facts
from advisor.knowledge.schema import Hardware, Support
from advisor.profile import ResolvedProfile
from advisor.scoring import evidence as ev
from advisor.scoring import setup_evidence as setup
from advisor.scoring.advice import Audience, Recommendation, recommend, serving_gaps
from advisor.scoring.constraints import Exclusion, apply_constraints
from advisor.scoring.decision import BreakEven, advice_change, advised, break_even
from advisor.scoring.domains import domain_ecosystem
from advisor.scoring.explain import (
    Breakdown,
    Contribution,
    EvidenceSource,
    Note,
    NoteCode,
    Part,
    Status,
    blend,
    on_grid,
    total_of,
)
from advisor.scoring.fleet import FloorFinding, nvidia_finding, python_finding, team_fleet
from advisor.scoring.hardware_fit import team_hardware_fit
from advisor.scoring.mcda import rank_order, topsis
from advisor.scoring.migration import MoveCost, move_cost
from advisor.scoring.note_words import finding_words
from advisor.scoring.portability import CRITERION as VENDOR_RISK
from advisor.scoring.portability import team_portability
from advisor.scoring.result import Param, Result
from advisor.scoring.sensitivity import DEFAULT_DRAWS, Sensitivity, analyse

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport

#: Probe outcomes that mean "the framework is there but something went wrong".
_FAILED = {"import_error", "crashed", "timed_out", "bad_output"}


class WarningCode(StrEnum):
    """The kinds of assessment warning; programs decide on these, `advisor.report.words` writes the words."""

    PROFILE = "profile"  # params: kind (a ProfileWarningCode) and that warning's params
    # params: form (gpu_floor: a FloorFinding's; cpu_only_build: accelerators; requirement: check, checked (the
    # framework), requirement (a RequirementCode) and its facts, or detail in a probe file from before the codes)
    HARDWARE = "hardware"
    PYTHON_VERSION = "python_version"  # params: name, python, needs or newest (fleet.python_words)
    KNOWLEDGE = "knowledge"  # params: source, target (no migration entry from the team's framework to this one)
    STALE_FACT = "stale_fact"  # params: subject, review_days (the fact and its as-of date are fields)
    BENCHMARK_OUTLIER = "benchmark_outlier"  # params: benchmark, variant, ratio, floor (the ratio was clipped to it)
    # params: benchmark, variant, measurements, and spread, left_out (0/1) or flag (the figure's warning code)
    BENCHMARK_SPREAD = "benchmark_spread"
    # params: figures, busy_figures, and those of steal_pct_max, others_cores_max, others_cores_median, cores known
    MACHINE_BUSY = "machine_busy"
    BENCH_FAILURE = "bench_failure"  # params: device, benchmark, outcome, error
    IMPORT_FAILURE = "import_failure"  # params: outcome, error (empty: no detail)
    METHOD = "method"  # params: topsis_first, weighted_first (the two methods disagree on the winner)




class AssessmentWarning(Result):
    """Something to know before trusting the result: its code and parameters (the words are the edge's)."""

    code: WarningCode
    params: dict[str, Param] = {}
    framework: str | None = None
    fact: str | None = None  # stale_fact: the fact's id (e.g. "jax.scores.performance")
    as_of: str | None = None  # stale_fact: the fact's as-of date (ISO)


def _warning(
    code: WarningCode,
    params: Mapping[str, Param],
    framework: str | None = None,
    fact: str | None = None,
    as_of: str | None = None,
) -> AssessmentWarning:
    return AssessmentWarning(code=code, params=dict(params), framework=framework, fact=fact, as_of=as_of)


@dataclass
class Assessment:
    """Everything the scoring decided, ready for the report, the TUI and the checklist."""

    resolved: ResolvedProfile
    ranking: list[Breakdown]
    topsis: dict[str, float]
    topsis_order: list[str]
    exclusions: list[Exclusion]
    sensitivity: Sensitivity | None
    recommendation: Recommendation
    hardware: dict[str, str]
    warnings: list[AssessmentWarning] = field(default_factory=list)
    migration: dict[str, MoveCost] = field(default_factory=dict)  # per framework the team would move to
    break_even: BreakEven | None = None


def _status(fid: str, probe: ProbeReport | None, bench: BenchReport | None) -> tuple[Status, str, bool | None]:
    # installed is None where nobody looked: no probe, or no adapter probed this framework (unknown, not "no").
    entry = probe.frameworks.get(fid) if probe is not None else None
    installed = entry.installed if entry is not None else None
    benched = bench is not None and any(r.framework == fid for r in bench.results)
    if benched and ev.machine_busy(bench) is not None:
        # The figures exist but the scoring does not use them: saying "measured" would be a false claim.
        return Status.DISCARDED, "benchmarks discarded (machine busy): knowledge only", True
    if benched:
        return Status.MEASURED, "measured here", True
    if installed:
        return Status.INSTALLED, "installed, not benchmarked", True
    if installed is False:
        return Status.NOT_INSTALLED, "not measured here (not installed): knowledge only", False
    why = "no probe" if probe is None else "no adapter probes it"
    return Status.NOT_PROBED, f"not measured here ({why}): knowledge only", None


def _probe_warnings(probe: ProbeReport | None, present: dict[Hardware, str], out: list[AssessmentWarning]) -> None:
    if probe is None:
        return
    accels = [hw for hw in present if hw is not Hardware.CPU]
    for fid, entry in probe.frameworks.items():
        if entry.outcome in _FAILED:
            failed = {"outcome": entry.outcome, "error": entry.error or ""}
            out.append(_warning(WarningCode.IMPORT_FAILURE, failed, fid))
        if accels and entry.installed and entry.accelerator_ok is False:
            out.append(
                _warning(
                    WarningCode.HARDWARE,
                    {"form": "cpu_only_build", "accelerators": ", ".join(hw.value for hw in accels)},
                    fid,
                )
            )
    for req in probe.requirements:
        if req.ok is False:
            params: dict[str, Param] = {"form": "requirement", "check": req.check}
            if req.code is RequirementCode.NOTE:  # a probe file from before the codes: its words only
                params["detail"] = req.detail
            else:
                params |= {"checked": req.framework, "requirement": req.code.value, **req.facts}
            out.append(_warning(WarningCode.HARDWARE, params, req.framework))


def assess(
    kb: KnowledgeBase,
    resolved: ResolvedProfile,
    *,
    probe: ProbeReport | None = None,
    bench: BenchReport | None = None,
    today: dt.date | None = None,
    seed: int = 0,
    draws: int = DEFAULT_DRAWS,
    audience: Audience = "profile",
    known_stale: list[StaleFact] | None = None,
) -> Assessment:
    """Score every candidate framework for `resolved` with the evidence given (the probe and bench run, or None).

    `audience` is whom the advice addresses: one person's profile, or a team's (`advisor.team.decide`).
    `known_stale` is `stale_facts(kb, today)` where the caller has it (`decide` assesses every member on one base).
    """
    today = today or dt.date.today()
    warnings = [_warning(WarningCode.PROFILE, {"kind": w.code.value, **w.params}) for w in resolved.warnings]
    fleet = team_fleet(resolved.profile, probe)
    cons = apply_constraints(kb, resolved, fleet=fleet)
    # The team's hardware: what it must run on plus its fleet (the probe's GPUs are found by the evidence anyway).
    required = list(dict.fromkeys([*resolved.constraints.must_run_on, *(e.hardware for e in fleet)]))
    criteria = list(kb.criteria)
    costs: dict[str, MoveCost] = {}
    floors: dict[str, FloorFinding] = {}
    norm = resolved.normalized_weights
    present = ev.present_hardware(probe)
    ratios = ev.benchmark_ratios(bench, set(kb.frameworks))
    ranking: list[Breakdown] = []
    for fid in cons.candidates:
        fw = kb.frameworks[fid]
        status_code, status, installed = _status(fid, probe, bench)
        contributions: list[Contribution] = []
        notes: list[Note] = []
        floor = nvidia_finding(kb, fid, resolved.profile, fleet)
        override = {Hardware.NVIDIA_CUDA: floor.support} if floor else None
        # A pinned older release performs and scales as before: only a route with no release at all caps those.
        cap_override = override if floor is not None and floor.support is Support.NONE else None
        if floor is not None:
            floors[fid] = floor
            found: dict[str, str | float] = {**floor.params}
            notes.append(Note(NoteCode.GPU_FLOOR, found))
            warnings.append(_warning(WarningCode.HARDWARE, {"form": "gpu_floor", **floor.params}, fid))
        if python := python_finding(kb, fid, resolved.profile):
            facts: dict[str, str | float] = {**python}
            notes.append(Note(NoteCode.PYTHON_VERSION, facts))
            warnings.append(_warning(WarningCode.PYTHON_VERSION, facts, fid))
        cost = move_cost(kb, fid, resolved.profile)
        if cost is not None and cost.pairs:
            costs[fid] = cost
        notes += [Note(NoteCode.SERVING_GAP, {"serving": sid, "stack": kb.serving[sid].name, "framework": fw.name})
                  for sid, _text in serving_gaps(kb, fid, resolved)]
        dom = domain_ecosystem(kb, fid, resolved.domain_weights)
        for cid in criteria:
            crit = kb.criteria[cid]
            fact = fw.scores[cid]
            if crit.evidence == "benchmark":
                measured = ev.performance_evidence(fid, ratios, bench)
            elif crit.evidence == "hardware":
                measured = ev.hardware_evidence(kb, fid, probe, required, override)
            elif crit.evidence == "serving":
                measured = setup.serving_evidence(kb, fid, resolved.profile)
            elif crit.evidence == "migration":
                measured, mig_notes = setup.migration_evidence(kb, fid, resolved.profile)
                notes += [Note(NoteCode.NO_MIGRATION_ENTRY, {"source": src, "target": fid}) for src, _t in mig_notes]
                for src, _text in mig_notes:
                    warnings.append(_warning(WarningCode.KNOWLEDGE, {"source": src, "target": fid}, fid))
            else:
                measured = ev.Measured(None, 0.0, "knowledge only")
            knowledge = fact.score
            rationale, sources, as_of = fact.rationale, [str(s) for s in fact.sources], fact.as_of
            if crit.evidence == "hardware":
                # On the team's hardware, fit is that route and its tier; breadth becomes a portability note.
                on_hw = team_hardware_fit(kb, fid, probe, required, override)
            else:
                on_hw = ev.hardware_specific(kb, fid, cid, probe, required, cap_override)
            replaced = on_hw is not None  # the knowledge score no longer is the framework's general score
            parts: list[Part] = []
            if on_hw is not None:
                # A backend-specific fact replaces the hardware-agnostic score (and the cap, which only
                # guesses at it from the route's support status).
                knowledge = on_hw.score
                rationale, sources, as_of = on_hw.rationale, on_hw.sources, on_hw.as_of
                on: dict[str, Param] = {"criterion": cid, "name": crit.name, "parts": on_hw.parts,
                                        "general": on_hw.general, "breadth": int(on_hw.breadth)}
                measured.summary = f"{measured.summary}; {finding_words(NoteCode.ON_TEAM_HARDWARE, on)}"
                notes.append(Note(NoteCode.ON_TEAM_HARDWARE, on))
            elif cid in ev.HARDWARE_BOUND:
                cap, routes = ev.hardware_cap(kb, fid, probe, required, cap_override)
                if cap is not None and cap < knowledge:
                    knowledge = cap
                    capped: dict[str, Param] = {"criterion": cid, "name": crit.name, "cap": cap, "routes": routes}
                    measured.summary = f"{measured.summary}; {finding_words(NoteCode.HARDWARE_CAP, capped)}"
                    notes.append(Note(NoteCode.HARDWARE_CAP, capped))
            if cid == "ecosystem" and dom is not None and (on_hw is None or dom.score <= knowledge):
                # The team's domains replace the general score; a lower figure on the team's hardware still wins.
                knowledge = dom.score
                rationale, sources, as_of = dom.rationale, dom.sources, dom.as_of
                domains: dict[str, Param] = {"criterion": cid, "name": crit.name, "domains": dom.shown,
                                             "general": dom.general}
                measured.summary = f"{measured.summary}; {finding_words(NoteCode.DOMAINS, domains)}"
                measured.figures = [*measured.figures, *dom.parts]
                notes.append(Note(NoteCode.DOMAINS, domains))
                replaced = True
            if cid == VENDOR_RISK and (port := team_portability(kb, fid, probe, required, override)) is not None:
                # On the team's hardware, breadth beyond it is the hardware vendor's risk: it joins stewardship.
                knowledge, parts = port.governance(knowledge)
                beyond: dict[str, Param] = {"criterion": cid, "name": crit.name, **port.note()}
                measured.summary = f"{measured.summary}; {finding_words(NoteCode.PORTABILITY, beyond)}"
                notes.append(Note(NoteCode.PORTABILITY, beyond))
                replaced = True
            score = blend(knowledge, measured)
            contributions.append(
                Contribution(
                    criterion=cid,
                    name=crit.name,
                    weight=norm[cid],
                    score=score,
                    knowledge_score=knowledge if replaced else fact.score,
                    measured_score=measured.score,
                    evidence_weight=measured.weight if measured.score is not None else 0.0,
                    contribution=on_grid(norm[cid] * score),
                    rationale=rationale,
                    sources=sources,
                    as_of=as_of.isoformat(),
                    evidence=measured.summary,
                    figures=measured.figures,
                    evidence_source=EvidenceSource(measured.source).value
                    if measured.score is not None and measured.source
                    else None,
                    parts=parts,
                )
            )
        total = total_of([c.contribution for c in contributions])
        ranking.append(Breakdown(fid, fw.name, total, contributions, status, installed, notes, status_code))
    ranking.sort(key=lambda b: -b.total)  # stable: knowledge-base order breaks exact ties
    names = [b.framework for b in ranking]
    matrix = np.array([[c.score for c in b.contributions] for b in ranking]) if ranking else np.zeros((0, 0))
    weights = [norm[c] for c in criteria]
    closeness = topsis(matrix, weights) if ranking else np.zeros(0)
    topsis_scores = {n: float(v) for n, v in zip(names, closeness, strict=True)}
    # The profile's own weights (0-5): the analysis normalises them and states thresholds on their scale.
    scale = [resolved.weights[c] for c in criteria]
    sens = (
        analyse(matrix, scale, names, criteria, seed=seed, draws=draws, totals=[b.total for b in ranking])
        if ranking
        else None
    )

    weighted = {c for c in criteria if norm[c] > 0}
    for stale in stale_facts(kb, today) if known_stale is None else known_stale:
        if stale.framework in cons.candidates and (stale.kind != "score" or stale.subject in weighted):
            params: dict[str, Param] = {"subject": stale.subject, "review_days": stale.review_days}
            dated = stale.as_of.isoformat()
            warnings.append(_warning(WarningCode.STALE_FACT, params, stale.framework, stale.id, dated))
    for fid, gap in ev.implausible_gaps(ratios):
        warnings.append(_warning(WarningCode.BENCHMARK_OUTLIER, gap, fid))
    for fid, spread in ev.spread_warnings(bench):
        warnings.append(_warning(WarningCode.BENCHMARK_SPREAD, spread, fid))
    if (busy := ev.machine_busy(bench)) is not None:
        warnings.append(_warning(WarningCode.MACHINE_BUSY, busy))
    for f in bench.failures if bench is not None else ():
        if f.outcome == "skipped":  # a preset's deliberate choice, not a failure
            continue
        warnings.append(
            _warning(
                WarningCode.BENCH_FAILURE,
                {"benchmark": f.benchmark, "outcome": f.outcome, "error": f.error}
                | ({"device": f.device} if f.device is not None else {}),
                f.framework,
            )
        )
    _probe_warnings(probe, present, warnings)
    # An excluded framework is out of the advice: a warning about it (its Python, its install) would only mislead.
    warnings = [w for w in warnings if w.framework is None or w.framework in cons.candidates]
    if ranking and topsis_scores:
        order = rank_order(list(topsis_scores.values()), names)
        if order[0] != names[0]:
            warnings.append(
                _warning(WarningCode.METHOD, {"topsis_first": order[0], "weighted_first": names[0]})
            )
    else:
        order = []
    current = list(resolved.profile.team.current)
    verdict_gap = break_even(kb, ranking, current, costs, sens)
    if sens is not None:
        now = advised(ranking, verdict_gap).framework
        sens = sens.model_copy(
            update={"advice_change": advice_change(ranking, resolved.weights, current, costs, now)}
        )
    rec = recommend(kb, resolved, ranking, sens, present, bench, verdict_gap, costs, audience, floors)
    return Assessment(
        resolved=resolved,
        ranking=ranking,
        topsis=topsis_scores,
        topsis_order=order,
        exclusions=cons.exclusions,
        sensitivity=sens,
        recommendation=rec,
        hardware={hw.value: d for hw, d in present.items()},
        warnings=warnings,
        migration=costs,
        break_even=verdict_gap,
    )
