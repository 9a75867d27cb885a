"""The one place where the app calls the core library; a piece that is missing is reported as unavailable.

The app holds no scoring, probing or benchmarking logic: every figure it shows comes from a
function below, which only forwards to `advisor.evidence`, `advisor.scoring`, `advisor.report`,
`advisor.profile`, `advisor.checklist` and `advisor.progress`. Imports are deferred to the call
so that the app's first screen paints before the heavier core modules are loaded, and so that a
core module that is absent or broken turns into an `Unavailable` the screen can show plainly.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for types: the core itself is imported at the call
    from advisor.evidence.bench.results import BenchEvent, BenchFailure, BenchReport
    from advisor.evidence.probe import ProbeEvent, ProbeReport
    from advisor.profile import Profile
    from advisor.report import Report


class Unavailable(Exception):
    """A core capability is not available in this build (module missing) or failed to load."""


class ProfileProblem(Exception):
    """The core refused the walk's answers as a profile; the text is its one line (file, field, problem)."""


def _module(name: str) -> ModuleType:
    # Deferred import: keeps first paint fast and lets the app run while a core piece is absent.
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise Unavailable(f"{name} is not available ({exc})") from exc


def _attr(module: str, name: str) -> Any:
    mod = _module(module)
    try:
        return getattr(mod, name)
    except AttributeError as exc:
        raise Unavailable(f"{module}.{name} is not available") from exc


# --- knowledge -------------------------------------------------------------------------------------


def load_kb(packs: Sequence[str] = ()) -> Any:
    """The merged knowledge base (shipped base + user packs + `packs`)."""
    return _attr("advisor.knowledge", "load_knowledge")(list(packs))


# --- evidence --------------------------------------------------------------------------------------


def run_probe(
    *,
    fast: bool,
    on_event: Callable[[ProbeEvent], None] | None = None,
    cancel: threading.Event | None = None,
    kb: Any = None,
    frameworks: Sequence[str] | None = None,
) -> ProbeReport:
    """Probe this machine (fast: metadata only)."""
    fn = _attr("advisor.evidence.probe", "run_probe")
    return fn(fast=fast, on_event=on_event, cancel=cancel, kb=kb, frameworks=frameworks)  # type: ignore[no-any-return]


def probe_and_bench(
    *,
    preset: str | None,
    frameworks: Sequence[str] | None,
    on_probe_event: Callable[[ProbeEvent], None],
    on_bench_event: Callable[[BenchEvent], None],
    on_probe_done: Callable[[ProbeReport], None],
    cancel: threading.Event,
    kb: Any = None,
    limit: Sequence[str] | None = None,
) -> BenchReport | None:
    """Probe, then bench `frameworks` (default: every installed one) in the probe's own children: one import each.

    `limit` narrows the probe to those frameworks; the probe goes to `on_probe_done` as soon as it is
    made; the bench run is returned (None: no preset, cancelled, or nothing installed to benchmark).
    """
    candidates = list(frameworks) if frameworks else list(_attr("advisor.frameworks.registry", "adapters")())
    found = _attr("advisor.evidence.gather", "probe_and_bench")(
        kb=kb, preset=preset, candidates=candidates, frameworks=limit, on_event=on_probe_event,
        on_bench_event=on_bench_event, on_probe_done=on_probe_done, cancel=cancel,
    )
    return found.bench  # type: ignore[no-any-return]


def stop_children() -> str:
    """End every child process of this app (and theirs, torchrun's workers too); says what was stopped."""
    return str(_attr("advisor.evidence.children", "CHILDREN").stop_all().describe())


def children_alive() -> list[int]:
    """PIDs of this app's child processes (and their descendants) still running."""
    return list(_attr("advisor.evidence.children", "CHILDREN").alive())


def saved_evidence(
    probe: dict[str, Any] | None, bench: dict[str, Any] | None, file: str
) -> tuple[ProbeReport | None, BenchReport | None]:
    """Evidence saved as JSON (the last session's, kept between sessions) read back into the core's models.

    A file that no longer reads (another version wrote it, or it was edited) is as no evidence: measure again.
    """
    read = _attr("advisor.evidence.saved_report", "read_evidence")
    try:
        return read(probe, bench, file=file, identify=True)  # type: ignore[no-any-return]
    except _attr("advisor.errors", "ReportError"):
        return None, None


def evidence_json(evidence: ProbeReport | BenchReport | None) -> dict[str, Any] | None:
    """A probe or bench in its JSON form, to keep it between sessions (read back by `saved_evidence`)."""
    return None if evidence is None else dict(_attr("advisor.jsonio", "model_json")(evidence))


def probe_failures(probe: ProbeReport) -> list[BenchFailure]:
    """The frameworks whose probe failed (crashed, timed out, could not import), as the bench's failures."""
    failure = _attr("advisor.evidence.bench.results", "BenchFailure")
    return [failure(framework=fid, benchmark="probe", device=None, outcome=info.outcome, error=info.error or "")
            for fid, info in probe.frameworks.items() if info.outcome not in ("ok", "missing", "skipped")]


def bench_benchmarks() -> tuple[str, ...]:
    """The benchmarks of the suite, in the order the core runs them (for progress bars)."""
    return tuple(_attr("advisor.evidence.bench", "BENCHMARKS"))


# --- profile, scoring, report ----------------------------------------------------------------------


def check_answer(path: Sequence[str], value: Any, source: str = "Team step") -> str | None:
    """None when `value` at `path` (e.g. team.size) passes the profile loader's own check, else its one line."""
    raw: Any = value
    for key in reversed(path):
        raw = {key: raw}
    try:
        _attr("advisor.profile", "parse_profile")(raw, source)
    except _attr("advisor.errors", "ProfileError") as exc:
        return str(exc)
    return None


def typed(text: str) -> Any:
    """A typed field's text read as the profile loader reads a YAML scalar (`12` an int, `1.5` a float)."""
    import yaml  # deferred: only the team step's fields need it

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, OverflowError):  # `2026-13-45` (no such date), past int's digit limit
        return text


def parse_profile(raw: dict[str, Any], source: str) -> Profile:
    """A profile mapping checked by the core's loader into its `Profile` (raises the core's `ProfileError`)."""
    return _attr("advisor.profile", "parse_profile")(raw, source)  # type: ignore[no-any-return]


def same_profile(a: Profile | None, b: Profile | None) -> bool:
    """Whether two profiles say the same (compared as the core writes them, not by object identity)."""
    if a is None or b is None:
        return a is b
    to_json = _attr("advisor.profile", "profile_to_json")
    return bool(to_json(a) == to_json(b))


def profile_json(profile: Profile) -> dict[str, Any]:
    """The profile in its file form (what was written, defaults left out)."""
    return dict(_attr("advisor.profile", "profile_to_json")(profile))


def resolve(kb: Any, profile: Profile) -> Any:
    """The profile checked against the knowledge base, with the scenario's defaults merged in."""
    return _attr("advisor.profile", "resolve_profile")(profile, kb)


def default_scenario() -> str:
    """The scenario the core reads a profile without scenario or weights as."""
    return str(_attr("advisor.profile", "DEFAULT_SCENARIO"))


def weight_scale_max() -> float:
    """The top of the one weight scale (0 = ignore ... 5 = decisive)."""
    return float(_attr("advisor.profile", "WEIGHT_SCALE_MAX"))


def resolved_weights(
    kb: Any, scenario: str | None, weights: dict[str, float], pairwise: Sequence[Sequence[Any]]
) -> dict[str, float]:
    """Every criterion's weight on the 0-5 scale, as the core's resolver reads these answers."""
    raw: dict[str, Any] = {"scenario": scenario}
    if pairwise:
        raw["pairwise"] = [list(j) for j in pairwise]
    elif weights:
        raw["weights"] = dict(weights)
    try:
        profile = _attr("advisor.profile", "parse_profile")(raw, "<walk>")
        return dict(_attr("advisor.profile", "resolve_profile")(profile, kb).weights)
    except _attr("advisor.errors", "ProfileError") as exc:
        raise ProfileProblem(str(exc)) from exc


def shares(weights: dict[str, float]) -> dict[str, float]:
    """Each weight's share of the total (they sum to 1), as the core normalises them."""
    return dict(_attr("advisor.profile", "weights_table")(weights))


def pairwise_weights(judgements: Sequence[tuple[str, str, float]]) -> tuple[dict[str, float], float | None]:
    """Weights from "which matters more?" answers (the core's AHP) and the consistency ratio."""
    result = _attr("advisor.profile", "ahp_weights")(judgements)
    return dict(result.weights), result.consistency_ratio


def assess(
    kb: Any,
    profile: Profile,
    probe: ProbeReport | None,
    bench: BenchReport | None,
    *,
    draws: int | None = None,
) -> Report:
    """Score the frameworks under the walk's profile with the evidence so far; returns the full typed report.

    `draws` lowers the Monte-Carlo sensitivity draws for previews that must follow every key press.
    """
    resolved = resolve(kb, profile)
    engine = _attr("advisor.scoring", "assess")
    extra = {"draws": draws} if draws else {}
    assessment = engine(kb, resolved, probe=probe, bench=bench, **extra)
    build = _attr("advisor.report", "build_report")
    return build(assessment, kb, probe=probe, bench=bench,  # type: ignore[no-any-return]
                 profile_source="interactive advisor (fwadvisor)")


def advice_change_line(report: Report) -> str | None:
    """The weight (0-5) that changes the report's advice, in the words the CLI and the Markdown use."""
    return _attr("advisor.report.sensitivity_text", "advice_change_line")(report)  # type: ignore[no-any-return]


def report_markdown(report: Report) -> str:
    """The Markdown form of a report."""
    return str(_attr("advisor.report", "to_markdown")(report))


def profile_yaml(profile: Profile) -> str:
    """The profile file (YAML) for the walk's profile; read back by the core before it is written."""
    import yaml  # deferred: only needed when a profile is exported

    text = "# fwadvisor profile written by the interactive advisor\n" + yaml.safe_dump(
        _attr("advisor.profile", "profile_to_json")(profile), sort_keys=False
    )
    _attr("advisor.profile", "load_profile_text")(text, "<exported profile>")  # round-trips, or raises
    return text


def load_checked_profile(path: str, kb: Any) -> Profile:
    """Read a profile file, checked exactly as `fwadvisor profile check` does.

    Raises the core's `ProfileError`, whose text is the CLI's one line (file, line, field, problem).
    """
    profile = _attr("advisor.profile", "load_profile")(path)
    _attr("advisor.profile", "resolve_profile")(profile, kb)
    return profile  # type: ignore[no-any-return]


def report_profile(report: Report) -> Profile:
    """The profile a saved report was made with (its `profile.as_written`)."""
    return parse_profile(report.profile.as_written, "<report profile>")


def report_evidence(report: Report) -> tuple[ProbeReport | None, BenchReport | None]:
    """A saved report's probe and benchmarks as the core's models (what its file wrote, no nulls added)."""
    probe, bench = (None if s is None else s.model_dump(mode="json", exclude_unset=True)
                    for s in (report.probe, report.benchmarks))
    return saved_evidence(probe, bench, "<opened report>")


def load_report(path: str) -> Report:
    """Read and validate a saved report JSON."""
    return _attr("advisor.report", "load_report")(path)  # type: ignore[no-any-return]


def report_json_text(report: Report) -> str:
    """The report as JSON text, exactly as `fwadvisor report --json` writes it."""
    return str(_attr("advisor.report", "to_json_text")(report))


# --- checklist and progress ------------------------------------------------------------------------


def checklist(
    kb: Any,
    framework: str,
    current: str | None,
    probe: ProbeReport | None,
    targets: Sequence[str] = (),
    must_run_on: Sequence[str] = (),
) -> Any:
    """The onboarding checklist for `framework` on the probed machine (or the hardware the team must run on)."""
    fn = _attr("advisor.checklist", "build_checklist")
    done = progress_done(framework, current)
    return fn(
        kb, framework, probe, from_framework=current, targets=list(targets),
        must_run_on=list(must_run_on), done=done,
    )


def recommended_framework(report: Report) -> str | None:
    """The framework a report recommends (its recommendation, else the top of its ranking)."""
    return report.recommendation.framework or (report.ranking[0].framework if report.ranking else None)


def progress_done(framework: str, current: str | None) -> set[str]:
    """Ids of the checklist items already ticked for `framework` (coming from `current`)."""
    return set(_attr("advisor.progress", "ProgressStore")().done(framework, current))


def progress_set(framework: str, current: str | None, item_id: str, done: bool) -> None:
    """Tick or untick one checklist item (stored atomically by the core)."""
    _attr("advisor.progress", "ProgressStore")().set_done(framework, current, item_id, done)
