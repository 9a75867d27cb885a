"""Measured evidence from this machine, turned into 0-5 criterion scores that blend with the knowledge base.

Three kinds, chosen per criterion by `Criterion.evidence` in `criteria.yaml`:

* **benchmark**: each framework's throughput relative to the best framework on the same device and
  benchmark (geometric mean of ratios over the benchmarks they share; Fleming & Wallace 1986), mapped
  to 0-5 by `5 * sqrt(ratio)` and blended with the knowledge score with weight `BENCH_WEIGHT` scaled
  by how many benchmarks were shared. Where figures carry 95% confidence intervals, the ratio is taken
  at the intervals' near ends (overlapping intervals: equal); when the bench says the machine was too
  busy to trust (`machine_busy`), no benchmark evidence is used at all.
* **hardware**: for each accelerator the probe found or the profile requires (`must_run_on`, fleet), the
  route's support status capped by its tier; only a route the framework's own probe used here counts as
  measured (5), blended with weight `HARDWARE_WEIGHT`. A CPU alone adds no evidence.
* **serving** and **migration**: evidence from the team's own setup, in `advisor.scoring.setup_evidence`.

Inputs are the typed probe (`ProbeReport`) and bench run (`BenchReport`); a saved report is re-scored by
reading its sections back into them (`from_json`) first.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware, Support
from advisor.knowledge.tiers import TIER_CAP, Tier
from advisor.scoring.result import FrozenResult, Param

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport, Measurement
    from advisor.evidence.probe import ProbeReport

#: Weight of the benchmark figure in the performance score when at least `BENCH_FULL_AT` benchmarks are shared.
BENCH_WEIGHT = 0.4
BENCH_FULL_AT = 3
#: Ratios to the best framework below this are clipped (and warned about): a 10x gap between mature frameworks
#: on the same operation and device says more about the measurement (thread contention, a warm-up caught in the
#: timing) than about the framework, and one such figure must not dominate the geometric mean.
RATIO_FLOOR = 0.1
#: Weight of the probe's hardware finding in the hardware-fit score.
HARDWARE_WEIGHT = 0.5
#: A measurement whose interquartile range exceeds this fraction of its median is flagged as noisy.
SPREAD_LIMIT = 0.10
#: A measurement whose interquartile range exceeds half its median is left out of the comparison.
UNUSABLE_SPREAD = 0.50

#: Support status as a 0-5 figure (a usable third-party route is worth more than a first-party preview).
SUPPORT_VALUE: dict[Support, float] = {
    Support.SUPPORTED: 5.0,
    Support.COMMUNITY: 3.5,
    Support.PREVIEW: 3.0,
    Support.DEPRECATED: 1.5,
    Support.UNKNOWN: 2.5,
    Support.NONE: 0.0,
}
#: Probe accelerator keys and the hardware ids they mean (contract in notes/contracts.md).
_ACCEL_KEYS = {
    "tpu": Hardware.GOOGLE_TPU,
    "rocm": Hardware.AMD_ROCM,
    "apple_mps": Hardware.APPLE_METAL,
    "intel_xpu": Hardware.INTEL_GPU,
    "ascend": Hardware.HUAWEI_ASCEND,
}
#: Device kinds a framework's probe reports, and the hardware they run on.
_DEVICE_HW = {
    "gpu": (Hardware.NVIDIA_CUDA, Hardware.AMD_ROCM),
    "tpu": (Hardware.GOOGLE_TPU,),
    "mps": (Hardware.APPLE_METAL,),
    "xpu": (Hardware.INTEL_GPU,),
    "npu": (Hardware.HUAWEI_ASCEND,),
}


@dataclass
class Measured:
    """A measured 0-5 figure for one criterion, how much it counts, and what it was computed from."""

    score: float | None  # None: no measured figure (knowledge only)
    weight: float  # share of the blended score that comes from `score` (0 when score is None)
    summary: str
    figures: list[dict[str, Any]] = field(default_factory=list)
    #: Where `score` comes from (`advisor.scoring.explain.EvidenceSource`); None when there is no score.
    source: str | None = None


def present_hardware(probe: ProbeReport | None) -> dict[Hardware, str]:
    """Hardware the probe found (always the CPU), with a short description of each."""
    if probe is None:
        return {}
    found: dict[Hardware, str] = {Hardware.CPU: probe.cpu.model or "CPU"}
    devices = probe.gpus.devices
    if devices:
        names = sorted({d.name or "GPU" for d in devices})
        found[Hardware.NVIDIA_CUDA] = f"{len(devices)} x " + ", ".join(names)
    for key, hw in _ACCEL_KEYS.items():
        entry = probe.accelerators.get(key)
        if entry is not None and entry.present:
            found[hw] = entry.detail or key
    return found


def _framework_uses(probe: ProbeReport, framework: str) -> set[Hardware]:
    entry = probe.frameworks.get(framework)
    used: set[Hardware] = set()
    for dev in entry.devices if entry is not None else ():
        used.update(_DEVICE_HW.get(str(dev.get("kind")), ()))
    return used


#: Per hardware id, the support on the team's fleet where it differs from the knowledge base's (GPU floors).
Override = Mapping[Hardware, Support]


def _support(kb: KnowledgeBase, framework: str, hw: Hardware, override: Override | None) -> Support:
    return (override or {}).get(hw) or kb.hardware_support(framework, hw)


def route_tier(kb: KnowledgeBase, framework: str, hw: Hardware) -> Tier:
    """Who ships `framework`'s route to `hw` (UNKNOWN where the base does not say)."""
    entry = kb.frameworks[framework].hardware.get(hw)
    return entry.tier.tier if entry is not None and entry.tier is not None else Tier.UNKNOWN


def _route_value(
    kb: KnowledgeBase, framework: str, hw: Hardware, used: Collection[Hardware], override: Override | None = None
) -> float:
    """0-5 for the framework's route to `hw`: 5 when its own probe used the device here, else the support
    status capped by the route's tier (a vendor plugin cannot fit as well as the framework's own build)."""
    if hw in used:
        return 5.0
    return min(SUPPORT_VALUE[_support(kb, framework, hw, override)], TIER_CAP[route_tier(kb, framework, hw)])


def hardware_evidence(
    kb: KnowledgeBase,
    framework: str,
    probe: ProbeReport | None,
    required: Sequence[Hardware] = (),
    override: Override | None = None,
) -> Measured:
    """What this machine showed of `framework` on the team's accelerators (those here and those required).

    `required` is the profile's `must_run_on` and fleet: hardware the team will use even if this machine
    lacks it. Every route is listed in the figures (status, tier, its 0-5 value); only a route the
    framework's own probe used here is a measurement (5), blended with `HARDWARE_WEIGHT` times the share
    of the team's accelerators it covers. The rest is the knowledge base's word, which
    `advisor.scoring.hardware_fit` makes the knowledge score.
    """
    targets = team_targets(probe, required)
    if not targets:
        why = "no probe" if probe is None else "no accelerator found here; every framework runs on the CPU"
        return Measured(None, 0.0, f"{why}: knowledge only")
    used = _framework_uses(probe, framework) if probe is not None else set()
    figures = []
    for hw, detail in targets.items():
        figures.append(
            {
                "hardware": hw.value,
                "detail": detail,
                "status": _support(kb, framework, hw, override).value,
                "tier": route_tier(kb, framework, hw).value,
                "verified_here": hw in used,
                "value": _route_value(kb, framework, hw, used, override),
            }
        )
    parts = ", ".join(
        f"{f['hardware']}: {f['status']}, {f['tier']}{' (used here)' if f['verified_here'] else ''}" for f in figures
    )
    verified = sum(1 for f in figures if f["verified_here"])
    if not verified:
        return Measured(None, 0.0, f"team hardware: {parts}; nothing used here: knowledge only", figures)
    weight = HARDWARE_WEIGHT * verified / len(figures)
    return Measured(5.0, weight, f"team hardware: {parts}", figures, "probe")


def team_targets(probe: ProbeReport | None, required: Sequence[Hardware]) -> dict[Hardware, str]:
    """The team's accelerators: found here (with what was found) or required by the profile; never the CPU."""
    present = present_hardware(probe)
    targets: dict[Hardware, str] = {hw: f"found here: {d}" for hw, d in present.items() if hw is not Hardware.CPU}
    for hw in required:
        if hw is not Hardware.CPU:
            targets.setdefault(hw, "required by the profile")
    return targets


#: Criteria whose knowledge score describes a framework on its first-class hardware; on the team's hardware
#: they are capped by the support of the route there (see `hardware_cap`).
HARDWARE_BOUND = ("performance", "distributed_scale")


def hardware_cap(
    kb: KnowledgeBase,
    framework: str,
    probe: ProbeReport | None,
    required: Sequence[Hardware] = (),
    override: Override | None = None,
) -> tuple[float | None, str]:
    """The most a hardware-bound score can be on the team's accelerators, and the routes that cap it (None: no cap).

    A framework that reaches the team's accelerator only through a preview, community or deprecated
    route cannot be assumed to perform or scale there as it does on its first-class hardware, so
    such scores are capped at the route's support value (averaged over the team's accelerators).
    """
    found = hardware_evidence(kb, framework, probe, required, override)
    if not found.figures:
        return None, ""
    cap = sum(f["value"] for f in found.figures) / len(found.figures)
    if cap >= 5.0:
        return None, ""
    routes = ", ".join(f"{f['hardware']} {f['status']} ({f['tier']})" for f in found.figures if f["value"] < 5.0)
    return cap, routes


@dataclass
class HardwareSpecific:
    """A criterion's knowledge score on the team's hardware, with the facts it comes from."""

    score: float
    rationale: str
    sources: list[str]
    as_of: dt.date  # the oldest of the facts used
    parts: str  # each of the team's accelerators with its figure, e.g. "nvidia_cuda 4.5, amd_rocm 3.0"
    general: float  # the general score it replaces
    breadth: bool = False  # hardware fit: breadth beyond the team's hardware counts as portability instead


def _targets(probe: ProbeReport | None, required: Sequence[Hardware]) -> list[Hardware]:
    return list(team_targets(probe, required))


def hardware_specific(
    kb: KnowledgeBase,
    framework: str,
    criterion: str,
    probe: ProbeReport | None,
    required: Sequence[Hardware] = (),
    override: Override | None = None,
) -> HardwareSpecific | None:
    """The `criterion` score of `framework` on the team's accelerators, where the base has backend-specific facts.

    For each accelerator found here or required by the profile, the backend's own fact
    (`hardware.<id>.scores.<criterion>`) is used when the knowledge base has one; an accelerator without
    one counts as the general score, capped at its route's support value for the hardware-bound criteria
    (as `hardware_cap` does). The team needs every accelerator, so the lowest wins. None when no
    accelerator of the team has a backend-specific fact for this criterion (the general score and cap apply).
    """
    fw = kb.frameworks[framework]
    targets = _targets(probe, required)
    facts = {hw: fact for hw in targets if (entry := fw.hardware.get(hw)) and (fact := entry.scores.get(criterion))}
    if not facts:
        return None
    used = _framework_uses(probe, framework) if probe is not None else set()
    general = fw.scores[criterion]
    values: list[tuple[float, Hardware]] = []
    for hw in targets:
        fact = facts.get(hw)
        if fact is not None:
            values.append((fact.score, hw))
        elif criterion in HARDWARE_BOUND:
            values.append((min(general.score, _route_value(kb, framework, hw, used, override)), hw))
        else:
            values.append((general.score, hw))
    score, lowest = min(values, key=lambda v: v[0])
    lowest_fact = facts.get(lowest)
    parts = ", ".join(f"{hw.value} {v:.1f}" for v, hw in values)
    if lowest_fact is None:
        # The weakest accelerator has no specific fact: its figure is the (capped) general score.
        rationale = general.rationale
        if score < general.score:
            rationale = f"{rationale} (capped at the {lowest.value} route's support value {score:.1f})"
        return HardwareSpecific(score, rationale, [str(s) for s in general.sources], general.as_of, parts,
                                general.score)
    rationale = " ".join(f"{hw.value}: {f.rationale}" for hw, f in facts.items())
    sources = list(dict.fromkeys(str(s) for f in facts.values() for s in f.sources))
    as_of = min(f.as_of for f in facts.values())
    return HardwareSpecific(score, rationale, sources, as_of, parts, general.score)


def _group_key(r: Measurement) -> tuple[str, str, str]:
    # The variant names the workload (size, dtype, eager/compiled); params also carry framework-specific
    # details (jit flags, optimizer spelling, cache hits) that must not split a comparison.
    return (r.device, r.benchmark, r.variant)


def _spread(r: Measurement) -> float | None:
    if r.median_s is not None and r.iqr_s is not None and r.median_s > 0:
        return r.iqr_s / r.median_s
    return None


def _usable(r: Measurement) -> bool:
    if r.benchmark == "agreement":  # numerical agreement is a correctness check, not speed
        return False
    spread = _spread(r)
    if spread is not None and spread > UNUSABLE_SPREAD:  # the figure says little; leave it out of the ratio
        return False
    return math.isfinite(r.value) and r.value > 0


class Ratio(FrozenResult):
    """One shared benchmark of one framework against the best on the same device (1 = best); a report figure."""

    device: str
    benchmark: str
    variant: str
    value: float
    ci: tuple[float, float] | None
    unit: str
    higher_is_better: bool
    ratio_to_best: float
    within_ci: bool  # the gap to the best lies inside the two confidence intervals: counted as equal
    ratio_used: float  # what the score uses: at the intervals' near ends, never below RATIO_FLOOR


def benchmark_ratios(bench: BenchReport | None, frameworks: Collection[str] | None = None) -> dict[str, list[Ratio]]:
    """Per framework: each shared benchmark's ratio to the best framework on the same device (1 = best).

    Only `frameworks` (the knowledge base's) take part: the bench's NumPy baseline is context, not a candidate.
    """
    groups: dict[tuple[str, str, str], dict[str, Measurement]] = {}
    for r in bench.results if bench is not None else ():
        if not _usable(r) or (frameworks is not None and r.framework not in frameworks):
            continue
        slot = groups.setdefault(_group_key(r), {})
        old = slot.get(r.framework)
        if old is None or (r.value > old.value) == r.higher_is_better:
            slot[r.framework] = r
    out: dict[str, list[Ratio]] = {}
    for (device, benchmark, variant), by_fw in groups.items():
        if len(by_fw) < 2:
            continue  # nothing to compare against on this device
        better = next(iter(by_fw.values())).higher_is_better
        top = max(by_fw.values(), key=lambda r: r.value if better else -r.value)
        best = top.value
        for fid, r in by_fw.items():
            ratio = r.value / best if better else best / r.value
            near = _near_ratio(r, top, better)
            out.setdefault(fid, []).append(
                Ratio(device=device, benchmark=benchmark, variant=variant, value=r.value, ci=r.ci, unit=r.unit,
                      higher_is_better=better, ratio_to_best=ratio, within_ci=near is not None and near >= 1.0,
                      ratio_used=max(ratio if near is None else near, RATIO_FLOOR))
            )
    return out


def _interval(r: Measurement) -> tuple[float, float] | None:
    if r.ci is not None and all(v > 0 for v in r.ci):
        return min(r.ci), max(r.ci)
    return None


def _near_ratio(r: Measurement, top: Measurement, better: bool) -> float | None:
    """The ratio to the best at the near ends of the two confidence intervals, at most 1 (None: no intervals).

    Differences inside the intervals count as equal: where the intervals overlap the ratio is 1, and
    otherwise it is the smallest gap the measurements allow, so noise cannot make a framework look worse.
    """
    mine, best = _interval(r), _interval(top)
    if mine is None or best is None:
        return None
    return min(1.0, mine[1] / best[0]) if better else min(1.0, best[1] / mine[0])


def machine_busy(bench: BenchReport | None) -> dict[str, Param] | None:
    """The figures that show the machine was too busy while the benchmarks ran (None: it was not)."""
    machine = bench.environment.get("machine_state") if bench is not None else None
    if not isinstance(machine, Mapping) or not machine.get("busy"):
        return None
    keys = ("figures", "busy_figures", "steal_pct_max", "others_cores_max", "others_cores_median", "cores")
    params: dict[str, Param] = {
        k: v for k in keys if isinstance(v := machine.get(k), int | float) and not isinstance(v, bool)
    }
    if "others_cores_max" not in params and "cores" not in params and machine.get("reasons"):
        # A file written before the figures were kept names its causes in words only.
        params["reasons"] = "; ".join(str(r) for r in machine.get("reasons") or [])
    return params


def performance_evidence(framework: str, ratios: Mapping[str, list[Ratio]], bench: BenchReport | None) -> Measured:
    """The benchmark figure for `framework`: 5 * sqrt(geometric mean of ratios to the best)."""
    if bench is None:
        return Measured(None, 0.0, "no benchmarks run: knowledge only")
    if machine_busy(bench) is not None:
        return Measured(None, 0.0, "measured on a busy machine: knowledge only")
    rows = ratios.get(framework) or []
    if not rows:
        ran = any(r.framework == framework for r in bench.results)
        why = "no benchmark shared with another framework" if ran else "not measured here"
        return Measured(None, 0.0, f"{why}: knowledge only")
    geo = math.exp(math.fsum(math.log(r.ratio_used) for r in rows) / len(rows))
    weight = BENCH_WEIGHT * min(1.0, len(rows) / BENCH_FULL_AT)
    summary = f"{len(rows)} benchmark(s) shared; geometric mean {geo:.2f} of the best framework's throughput"
    return Measured(5.0 * math.sqrt(geo), weight, summary, [r.model_dump(mode="json") for r in rows], "benchmark")


def implausible_gaps(ratios: Mapping[str, list[Ratio]]) -> list[tuple[str, dict[str, Param]]]:
    """(framework, params) per ratio below `RATIO_FLOOR`, which was clipped to it before scoring."""
    return [
        (fid, {"benchmark": r.benchmark, "variant": r.variant, "ratio": r.ratio_to_best, "floor": RATIO_FLOOR})
        for fid, rows in ratios.items()
        for r in rows
        if r.ratio_to_best < RATIO_FLOOR
    ]


def spread_warnings(bench: BenchReport | None) -> list[tuple[str, dict[str, Param]]]:
    """(framework, params) per measurement that cannot be trusted as it is (pyperf-style checks).

    `spread` (IQR/median) is given where that is the cause, with `left_out` 1 where the figure was left out of
    the ratios; otherwise `flag` is the code of the measurement's first warning. `measurements`: the
    framework's measurements in all.
    """
    total: dict[str, int] = {}
    out: list[tuple[str, dict[str, Param]]] = []
    for r in bench.results if bench is not None else ():
        if r.benchmark == "agreement":
            continue
        total[r.framework] = total.get(r.framework, 0) + 1
        spread = _spread(r)
        params: dict[str, Param] = {"benchmark": r.benchmark, "variant": r.variant}
        if spread is not None and spread > SPREAD_LIMIT:
            out.append((r.framework, {**params, "spread": spread, "left_out": int(spread > UNUSABLE_SPREAD)}))
        elif r.warnings:
            out.append((r.framework, {**params, "flag": r.warnings[0].code.value}))
    return [(fid, {**params, "measurements": total[fid]}) for fid, params in out]
