"""The assessment: constraints, evidence blending, weighted sum + TOPSIS, explanations, sensitivity, advice."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware, Support
from advisor.profile import ResolvedProfile
from advisor.scoring import evidence as ev
from advisor.scoring.constraints import Exclusion, apply_constraints
from advisor.scoring.explain import Breakdown, Contribution, blend, on_grid, total_of
from advisor.scoring.mcda import rank_order, topsis
from advisor.scoring.sensitivity import DEFAULT_DRAWS, Sensitivity, analyse

#: Probe outcomes that mean "the framework is there but something went wrong".
_FAILED = {"import_error", "crashed", "timed_out", "bad_output"}


@dataclass
class Warning_:
    """Something the reader should know before trusting the result."""

    code: str  # stale_fact, benchmark_spread, benchmark_outlier, bench_failure, import_failure, hardware, ...
    message: str
    framework: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form for the report."""
        return {"code": self.code, "message": self.message, "framework": self.framework}


@dataclass
class Recommendation:
    """The advice in one place: the choice, how sure, and what to do next."""

    framework: str | None
    name: str | None
    verdict: str  # clear, likely, tie, single, none
    tied_with: list[str]
    summary: str
    next_steps: list[str]

    def to_json(self) -> dict[str, Any]:
        """JSON form for the report."""
        return dict(self.__dict__)


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
    warnings: list[Warning_] = field(default_factory=list)


def _status(fid: str, probe: dict[str, Any] | None, bench: dict[str, Any] | None) -> tuple[str, bool | None]:
    # installed is None where nobody looked: no probe, or no adapter probed this framework (unknown, not "no").
    entry = ((probe or {}).get("frameworks") or {}).get(fid)
    installed = bool(entry.get("installed")) if entry else None
    benched = any(r.get("framework") == fid for r in (bench or {}).get("results") or [])
    if benched:
        return "measured here", True
    if installed:
        return "installed, not benchmarked", True
    if installed is False:
        return "not measured here (not installed): knowledge only", False
    why = "no probe" if not probe else "no adapter probes it"
    return f"not measured here ({why}): knowledge only", None


def _probe_warnings(probe: dict[str, Any] | None, present: dict[Hardware, str], out: list[Warning_]) -> None:
    if not probe:
        return
    accels = [hw for hw in present if hw is not Hardware.CPU]
    for fid, entry in (probe.get("frameworks") or {}).items():
        outcome = entry.get("outcome")
        if outcome in _FAILED:
            out.append(Warning_("import_failure", f"{fid}: probe {outcome}: {entry.get('error') or 'no detail'}", fid))
        if accels and entry.get("installed") and entry.get("accelerator_ok") is False:
            out.append(
                Warning_(
                    "hardware",
                    f"{fid} is installed but its build does not use the accelerator here "
                    f"({', '.join(hw.value for hw in accels)}); a CPU-only wheel?",
                    fid,
                )
            )
    for req in probe.get("requirements") or []:
        if req.get("ok") is False:
            out.append(
                Warning_(
                    "hardware", f"{req.get('framework')}: {req.get('check')}: {req.get('detail')}", req.get("framework")
                )
            )


def assess(
    kb: KnowledgeBase,
    resolved: ResolvedProfile,
    *,
    probe: dict[str, Any] | None = None,
    bench: dict[str, Any] | None = None,
    today: dt.date | None = None,
    seed: int = 0,
    draws: int = DEFAULT_DRAWS,
) -> Assessment:
    """Score every candidate framework for `resolved` with the evidence given (probe/bench JSON or None)."""
    today = today or dt.date.today()
    warnings = [Warning_("profile", w) for w in resolved.warnings]
    cons = apply_constraints(kb, resolved)
    criteria = list(kb.criteria)
    norm = resolved.normalized_weights
    present = ev.present_hardware(probe)
    ratios = ev.benchmark_ratios(bench, set(kb.frameworks))
    ranking: list[Breakdown] = []
    for fid in cons.candidates:
        fw = kb.frameworks[fid]
        status, installed = _status(fid, probe, bench)
        contributions: list[Contribution] = []
        notes: list[str] = []
        for cid in criteria:
            crit = kb.criteria[cid]
            fact = fw.scores[cid]
            if crit.evidence == "benchmark":
                measured = ev.performance_evidence(fid, ratios, bench)
            elif crit.evidence == "hardware":
                measured = ev.hardware_evidence(kb, fid, probe, resolved.constraints.must_run_on)
            elif crit.evidence == "migration":
                measured, mig_notes = ev.migration_evidence(kb, fid, resolved.profile)
                notes.extend(mig_notes)
                for note in mig_notes:
                    warnings.append(Warning_("knowledge", note, fid))
            else:
                measured = ev.Measured(None, 0.0, "knowledge only")
            knowledge = fact.score
            rationale, sources, as_of = fact.rationale, [str(s) for s in fact.sources], fact.as_of
            on_hw = ev.hardware_specific(kb, fid, cid, probe, resolved.constraints.must_run_on)
            if on_hw is not None:
                # A backend-specific fact replaces the hardware-agnostic score (and the cap, which only
                # guesses at it from the route's support status).
                knowledge = on_hw.score
                rationale, sources, as_of = on_hw.rationale, on_hw.sources, on_hw.as_of
                measured.summary = f"{measured.summary}; {on_hw.summary}"
                notes.append(f"{crit.name}: {on_hw.summary}")
            elif cid in ev.HARDWARE_BOUND:
                cap, why = ev.hardware_cap(kb, fid, probe, resolved.constraints.must_run_on)
                if cap is not None and cap < knowledge:
                    knowledge = cap
                    measured.summary = f"{measured.summary}; {why}"
                    notes.append(f"{crit.name}: {why}")
            score = blend(knowledge, measured)
            contributions.append(
                Contribution(
                    criterion=cid,
                    name=crit.name,
                    weight=norm[cid],
                    score=score,
                    knowledge_score=knowledge if on_hw is not None else fact.score,
                    measured_score=measured.score,
                    evidence_weight=measured.weight if measured.score is not None else 0.0,
                    contribution=on_grid(norm[cid] * score),
                    rationale=rationale,
                    sources=sources,
                    as_of=as_of.isoformat(),
                    evidence=measured.summary,
                    figures=measured.figures,
                )
            )
        total = total_of([c.contribution for c in contributions])
        ranking.append(Breakdown(fid, fw.name, total, contributions, status, installed, notes))
    ranking.sort(key=lambda b: -b.total)  # stable: knowledge-base order breaks exact ties
    names = [b.framework for b in ranking]
    matrix = np.array([[c.score for c in b.contributions] for b in ranking]) if ranking else np.zeros((0, 0))
    weights = [norm[c] for c in criteria]
    closeness = topsis(matrix, weights) if ranking else np.zeros(0)
    topsis_scores = {n: float(v) for n, v in zip(names, closeness, strict=True)}
    sens = (
        analyse(matrix, weights, names, criteria, seed=seed, draws=draws, totals=[b.total for b in ranking])
        if ranking
        else None
    )

    weighted = {c for c in criteria if norm[c] > 0}
    stale: dict[str, list[str]] = {}
    for fid, cid, as_of in kb.stale_scores(today):
        if fid in cons.candidates and cid in weighted:
            stale.setdefault(fid, []).append(f"{cid} ({as_of.isoformat()})")
    for fid, items in stale.items():
        warnings.append(Warning_("stale_fact", f"{fid}: facts older than a year: {', '.join(items)}", fid))
    for fid, text in ev.implausible_gaps(ratios):
        warnings.append(Warning_("benchmark_outlier", text, fid))
    for fid, text in ev.spread_warnings(bench):
        warnings.append(Warning_("benchmark_spread", text, fid))
    if busy := ev.machine_busy(bench):
        warnings.append(Warning_("machine_busy", busy))
    for f in (bench or {}).get("failures") or []:
        if f.get("outcome") == "skipped":  # a preset's deliberate choice, not a failure
            continue
        warnings.append(
            Warning_(
                "bench_failure",
                f"{f.get('framework')}/{f.get('device')}/{f.get('benchmark')}: {f.get('outcome')}: {f.get('error')}",
                f.get("framework"),
            )
        )
    _probe_warnings(probe, present, warnings)
    if ranking and topsis_scores:
        order = rank_order(list(topsis_scores.values()), names)
        if order[0] != names[0]:
            warnings.append(
                Warning_(
                    "method",
                    f"TOPSIS ranks {order[0]} first where the weighted sum ranks {names[0]} first: "
                    "a sign that the choice depends on how criteria trade off",
                )
            )
    else:
        order = []
    rec = _recommend(kb, resolved, ranking, sens, present, bench)
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
    )


def _install_hint(kb: KnowledgeBase, fid: str, present: dict[Hardware, str]) -> str | None:
    fw = kb.frameworks[fid]
    for hw in [h for h in present if h is not Hardware.CPU] + [Hardware.CPU]:
        entry = fw.hardware.get(hw)
        if entry is not None and entry.install and entry.status is not Support.NONE:
            return f"Install {fw.name} for {hw.value}: `{entry.install}`"
    if fw.distributions:
        return f"Install {fw.name}: `pip install {fw.distributions[0]}`"
    return None


def _recommend(
    kb: KnowledgeBase,
    resolved: ResolvedProfile,
    ranking: list[Breakdown],
    sens: Sensitivity | None,
    present: dict[Hardware, str],
    bench: dict[str, Any] | None,
) -> Recommendation:
    if not ranking or sens is None:
        return Recommendation(
            None,
            None,
            "none",
            [],
            "No framework meets every hard constraint; see the exclusions.",
            ["Relax a constraint (must_run_on, must_deploy_to, licenses) or add an overlay pack."],
        )
    top = ranking[0]
    name = top.name
    steps: list[str] = []
    if sens.verdict == "tie":
        others = ", ".join(kb.frameworks[f].name for f in sens.tied_with)
        summary = (
            f"{name} and {others} are a statistical tie for this profile (lead {sens.gap:.2f} of 5); "
            "either is a sound choice."
        )
        by_name = {b.framework: b for b in ranking}
        rival = by_name[sens.tied_with[0]]
        diffs = sorted(
            (
                (c.contribution - r.contribution, c.name)
                for c, r in zip(top.contributions, rival.contributions, strict=True)
            ),
            key=lambda t: -abs(t[0]),
        )[:3]
        steps.append(
            "Decide on the criteria where they differ most: "
            + ", ".join(f"{n} ({'+' if d >= 0 else '-'}{abs(d):.2f} for {name})" for d, n in diffs)
            + "."
        )
        steps.append(f"Prototype one representative model in both {name} and {rival.name} before committing.")
    else:
        how = "clearly" if sens.verdict == "clear" else "probably"
        summary = f"{name} is {how} the best fit for this profile ({top.total:.2f} of 5"
        summary += f", ahead of {kb.frameworks[sens.runner_up].name} by {sens.gap:.2f})." if sens.runner_up else ")."
    if kb.frameworks[top.framework].kind == "multi_backend":
        single = next((b for b in ranking if kb.frameworks[b.framework].kind != "multi_backend"), None)
        if single is not None:
            steps.append(
                f"{name} is a multi-backend layer: it runs on another framework. Choose its backend too; the "
                f"highest-ranked single framework here is {single.name} ({single.total:.2f})."
            )
    current = list(resolved.profile.team.current)
    if top.framework in current:
        steps.append(f"Stay with {name}: the team already uses it, so there is no migration cost.")
    else:
        for src in current:
            mig = kb.migrations.get((src, top.framework))
            if mig is not None:
                tools = ", ".join(f"{t.name} ({t.url})" for t in mig.tools) or "no dedicated tools"
                steps.append(f"Plan the migration {src} -> {top.framework} ({mig.cost.value} cost); tools: {tools}.")
    if top.installed is not True:
        hint = _install_hint(kb, top.framework, present)
        if hint:
            steps.append(hint + ".")
    if top.installed and not bench:
        steps.append("Run `fwadvisor report` without --no-bench to blend measured performance into the ranking.")
    if ev.machine_busy(bench):
        steps.append("The benchmarks ran on a busy machine and are not used: run `fwadvisor report` again when it is "
                     "quiet to blend measured performance in.")
    if sens.smallest is not None and sens.verdict != "tie":
        t = sens.smallest
        steps.append(
            f"Check the weight of {kb.criteria[t.criterion].name}: at {100 * t.threshold_weight:.0f}% "
            f"(now {100 * t.current_weight:.0f}%) {kb.frameworks[t.new_winner].name} would win."
        )
    steps.append(f"Run `fwadvisor checklist` for the onboarding checklist for {name}.")
    return Recommendation(top.framework, name, sens.verdict, list(sens.tied_with), summary, steps)
