"""Rounds into one figure: pooled samples, the median's confidence interval, outliers, and the machine's state.

A figure measured in several rounds (interleaved with the other frameworks' rounds) pools the
per-call times of all rounds; its 95% confidence interval is the order-statistics interval of the
pooled median, widened to cover every round's own median, so that a drift between rounds shows as
uncertainty instead of hiding in one lucky round. The thresholds of a busy machine are here too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from advisor.evidence.bench.results import BenchWarningCode as Code
from advisor.evidence.bench.results import MachineState

#: A figure whose IQR exceeds this fraction of its median, or whose rounds' medians differ by more than
#: `ROUND_SPREAD`, or that is above `PEAK_LIMIT` % of the estimated peak, is measured again (once).
OUTLIER_REL_IQR = 0.10
ROUND_SPREAD = 0.15
PEAK_LIMIT = 105.0
#: The machine counts as busy during a measurement when other processes used more than this share of its
#: cores on average, or the hypervisor stole more than `BUSY_STEAL_PCT` % of the CPU time.
BUSY_OTHERS_SHARE = 0.25
BUSY_STEAL_PCT = 5.0
#: A run is too busy to recommend from when more than this share of its figures were measured on a busy machine.
BUSY_FIGURES_SHARE = 1 / 3
#: Child warnings about one round's spread, replaced by the pooled figure's own.
_ROUND_SPREAD_CODES = {Code.UNSTABLE, Code.FEW_SAMPLES, Code.FEW_CALLS, Code.WIDE_SPREAD}


class ChildNote(TypedDict):
    """A warning as the children send it (probes/_timing.note): a code, its sentence and the code's parameters."""

    code: str
    message: str
    params: dict[str, object]


class ResultRow(TypedDict, total=False):
    """One `result` event of a bench child (probes/_bench.py), or the pooled row of several rounds of it.

    The child's JSON line as it came: any key may be missing; `figures._measurement` reads it into a model.
    """

    event: str
    framework: str
    benchmark: str
    variant: str
    device: str
    device_name: str
    metric: str
    value: float
    unit: str
    higher_is_better: bool
    params: dict[str, Any]
    median_s: float | None
    iqr_s: float | None
    min_s: float | None
    samples: int
    times_s: list[float]
    compile_s: float | None
    ci: list[float] | None
    rounds: int
    machine: MachineState
    warnings: list[ChildNote | str]


def _note(code: Code, message: str, **params: object) -> ChildNote:
    """A warning as the children send it (probes/_timing.note)."""
    return {"code": code.value, "message": message, "params": params}


def _code(note: Any) -> str | None:
    return note.get("code") if isinstance(note, Mapping) else None


def _pct(sorted_xs: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (NumPy's default method), without NumPy in the parent."""
    if len(sorted_xs) == 1:
        return sorted_xs[0]
    pos = (len(sorted_xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def median_ci(times: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """The order-statistics 95% interval of the median (the sample's range below 6 samples); see probes/_bench."""
    xs = sorted(times)
    n = len(xs)
    if n < 6:
        return xs[0], xs[-1]
    half = z * math.sqrt(n) / 2.0
    return xs[max(int(math.floor(n / 2.0 - half)), 0)], xs[min(int(math.ceil(n / 2.0 + half)), n - 1)]


def _to_value(res: ResultRow) -> tuple[float, bool] | None:
    """(k, throughput?) such that value = k / median_s (throughput) or k * median_s (latency)."""
    med, value = res.get("median_s"), res.get("value")
    if not isinstance(med, int | float) or not isinstance(value, int | float) or med <= 0:
        return None
    higher = bool(res.get("higher_is_better", True))
    return (float(value) * med, True) if higher else (float(value) / med, False)


def merge_rounds(rounds: Sequence[ResultRow]) -> ResultRow:
    """One result event from the same figure's rounds (the same framework, device, benchmark and variant)."""
    first = rounds[-1].copy()
    scale = _to_value(first)
    times = [float(t) for r in rounds for t in r.get("times_s") or ()]
    round_medians = [float(m) for r in rounds if isinstance(m := r.get("median_s"), int | float)]
    if scale is None or not times:
        first["rounds"] = len(rounds)
        return first
    xs = sorted(times)
    med = _pct(xs, 50)
    lo_s, hi_s = median_ci(xs)
    if len(round_medians) > 1:
        lo_s, hi_s = min(lo_s, *round_medians), max(hi_s, *round_medians)
    k, higher = scale
    out = first.copy()
    out.update({
        "median_s": med, "iqr_s": _pct(xs, 75) - _pct(xs, 25), "min_s": xs[0], "samples": len(xs),
        "times_s": times[:400], "value": k / med if higher else k * med, "rounds": len(rounds),
        "ci": [k / hi_s, k / lo_s] if higher else [k * lo_s, k * hi_s],
        "machine": merge_machine([r.get("machine") or MachineState() for r in rounds]),
    })
    params = dict(first.get("params") or {})
    if isinstance(params.get("gflops"), int | float) and (first_med := first.get("median_s")):
        params["gflops"] = float(params["gflops"]) * float(first_med) / med  # conv: the same rescaling
    if len(round_medians) > 1:
        params["round_values"] = [k / m if higher else k * m for m in round_medians]
    out["params"] = params
    kept = [w for r in rounds for w in r.get("warnings") or () if _code(w) not in _ROUND_SPREAD_CODES]
    unique: dict[str, ChildNote | str] = {}
    for w in [*kept, *pooled_warnings(out, round_medians)]:
        unique.setdefault(repr(w), w)  # the same note from several rounds, once
    out["warnings"] = list(unique.values())
    return out


def pooled_warnings(res: ResultRow, round_medians: Sequence[float]) -> list[ChildNote]:
    """The pyperf-style checks on the pooled figure: spread, sample count, rounds that disagree."""
    out: list[ChildNote] = []
    med, iqr, n = res.get("median_s") or 0.0, res.get("iqr_s") or 0.0, int(res.get("samples") or 0)
    if med > 0 and iqr / med > OUTLIER_REL_IQR:
        why = ("another process may be using the CPU" if res.get("device", "cpu") == "cpu"
               else "clock changes, or calls so short that the launch overhead varies")
        out.append(_note(Code.UNSTABLE, f"unstable: IQR is {iqr / med:.0%} of the median ({why})", rel_iqr=iqr / med))
    # A call too slow to repeat was timed once on purpose (probes/_timing.measure), and its note says so.
    timed_once = any(_code(w) == Code.TIMED_ONCE for w in res.get("warnings") or ())
    if n < 5 and not timed_once:
        out.append(_note(Code.FEW_SAMPLES, f"only {n} sample(s): the budget was too small for a stable figure",
                         samples=n))
    if len(round_medians) > 1 and min(round_medians) > 0 and max(round_medians) / min(round_medians) - 1 > ROUND_SPREAD:
        spread = max(round_medians) / min(round_medians) - 1
        out.append(_note(Code.ROUNDS_DISAGREE, f"rounds disagree: their medians differ by {spread:.0%}", spread=spread))
    return out


def is_outlier(res: ResultRow, pct_of_peak: float | None) -> str | None:
    """Why a pooled figure should be measured again, or None."""
    med, iqr = res.get("median_s"), res.get("iqr_s")
    if pct_of_peak is not None and pct_of_peak > PEAK_LIMIT:
        return f"{pct_of_peak:.0f}% of the estimated peak"
    if isinstance(med, int | float) and isinstance(iqr, int | float) and med > 0 and iqr / med > OUTLIER_REL_IQR:
        return f"IQR {iqr / med:.0%} of the median"
    values = (res.get("params") or {}).get("round_values") or []
    if len(values) > 1 and min(values) > 0 and max(values) / min(values) - 1 > ROUND_SPREAD:
        return f"rounds differ by {max(values) / min(values) - 1:.0%}"
    return None


def merge_machine(states: Sequence[MachineState]) -> MachineState:
    """The machine's state over several rounds: the worst load, others' use and steal; our share; the clocks."""
    def vals(key: str) -> list[float]:
        return [float(v) for s in states if isinstance(v := s.get(key), int | float)]

    others, steal, share, load, freq = vals("others_cores"), vals("steal_pct"), vals("own_share"), vals("load1"), \
        vals("freq_mhz")
    return {
        "others_cores": max(others) if others else None, "steal_pct": max(steal) if steal else None,
        "own_share": min(share) if share else None, "load1": max(load) if load else None,
        "freq_mhz": [min(freq), max(freq)] if freq else None, "rounds": len(states),
    }


def busy_cause(machine: MachineState, cores: int) -> Literal["steal", "others"] | None:
    """What made the machine too busy while a figure was measured: CPU steal, other processes, or None."""
    others, steal = machine.get("others_cores"), machine.get("steal_pct")
    if isinstance(steal, int | float) and steal > BUSY_STEAL_PCT:
        return "steal"
    if isinstance(others, int | float) and others > BUSY_OTHERS_SHARE * max(cores, 1):
        return "others"
    return None


def busy_reason(machine: MachineState, cores: int) -> str | None:
    """Why the machine was too busy while a figure was measured (None: it was not, or nothing was readable)."""
    cause = busy_cause(machine, cores)
    if cause == "steal":
        return f"{machine.get('steal_pct'):.0f}% CPU steal"
    if cause == "others":
        return f"other processes used {machine.get('others_cores'):.1f} of {cores} cores"
    return None
