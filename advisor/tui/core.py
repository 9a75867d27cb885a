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
from typing import Any


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


def _json(obj: Any) -> dict[str, Any]:
    """The JSON form of a core result (dataclass with to_json, or already a dict)."""
    if isinstance(obj, dict):
        return obj
    to_json = getattr(obj, "to_json", None)
    if callable(to_json):
        data = to_json()
        if isinstance(data, dict):
            return data
    raise Unavailable(f"unexpected result type {type(obj).__name__} from the core")


# --- knowledge -------------------------------------------------------------------------------------


def load_kb(packs: Sequence[str] = ()) -> Any:
    """The merged knowledge base (shipped base + user packs + `packs`)."""
    return _attr("advisor.knowledge", "load_knowledge")(list(packs))


# --- evidence --------------------------------------------------------------------------------------


def run_probe(
    *,
    fast: bool,
    on_event: Callable[[Any], None] | None = None,
    cancel: threading.Event | None = None,
    kb: Any = None,
    frameworks: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Probe this machine (fast: metadata only) and return the probe JSON."""
    fn = _attr("advisor.evidence.probe", "run_probe")
    return _json(fn(fast=fast, on_event=on_event, cancel=cancel, kb=kb, frameworks=frameworks))


def run_bench(
    *,
    preset: str,
    frameworks: Sequence[str] | None = None,
    on_event: Callable[[Any], None] | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, Any]:
    """Run the benchmark preset through `frameworks` and return the bench JSON (the core finds the CPU peak)."""
    fn = _attr("advisor.evidence.bench", "run_bench")
    return _json(fn(preset=preset, frameworks=frameworks, on_event=on_event, cancel=cancel))


def stop_children() -> str:
    """End every child process of this app (and theirs, torchrun's workers too); says what was stopped."""
    return str(_attr("advisor.evidence.children", "CHILDREN").stop_all().describe())


def children_alive() -> list[int]:
    """PIDs of this app's child processes (and their descendants) still running."""
    return list(_attr("advisor.evidence.children", "CHILDREN").alive())


def runnable_frameworks(probe: dict[str, Any] | None) -> list[str]:
    """Frameworks the probe found installed and importable (what `fwadvisor report` benchmarks too)."""
    entries = (probe or {}).get("frameworks") or {}
    return [fid for fid, e in entries.items() if e.get("installed") and e.get("outcome") == "ok"]


def event_json(event: Any) -> dict[str, Any]:
    """A probe/bench progress event as a plain dict; nested results and failures in their JSON form."""
    if isinstance(event, dict):
        return event
    if hasattr(event, "__dataclass_fields__"):
        out: dict[str, Any] = {}
        for name in event.__dataclass_fields__:
            value = getattr(event, name)
            to_json = getattr(value, "to_json", None)
            out[name] = to_json() if callable(to_json) else value
        return out
    return {}


def bench_benchmarks() -> tuple[str, ...]:
    """The benchmarks of the suite, in the order the core runs them (for progress bars)."""
    return tuple(_attr("advisor.evidence.bench", "BENCHMARKS"))


# --- profile, scoring, report ----------------------------------------------------------------------


def profile_raw(answers: dict[str, Any]) -> dict[str, Any]:
    """The walk's answers as a profile mapping (the shape `advisor.profile` reads from YAML)."""
    current = list(answers.get("current_frameworks", []))
    team: dict[str, Any] = {"current": current}
    level = answers.get("experience")
    by = answers.get("experience_by") or {}
    if current and (level or by):
        team["experience"] = {fid: by.get(fid, level) for fid in current if by.get(fid, level)}
    if answers.get("team_size") is not None:
        team["size"] = answers["team_size"]
    if answers.get("horizon_months") not in (None, 24.0):
        team["horizon_months"] = answers["horizon_months"]
    codebase: dict[str, Any] = {"size": answers.get("codebase_size") or "none"}
    kloc = {f: v for f, v in (answers.get("kloc_by") or {}).items() if f in current}
    if kloc:
        codebase["by_framework"] = kloc
    raw: dict[str, Any] = {"team": team, "codebase": codebase}
    if answers.get("scenario"):
        raw["scenario"] = answers["scenario"]
    for key in ("domains", "serving", "fleet"):
        if answers.get(key):
            value = answers[key]
            raw[key] = dict(value) if isinstance(value, dict) else list(value)
    env = {k: v for k, v in (answers.get("environment") or {}).items() if v}
    if env:
        raw["environment"] = env
    if answers.get("pairwise"):
        # The judgements themselves, so the core derives the weights (and the report shows profile.ahp).
        raw["pairwise"] = [list(j) for j in answers["pairwise"]]
    elif answers.get("weights"):
        raw["weights"] = dict(answers["weights"])
    constraints = {
        k: (v if isinstance(v, bool) else list(v)) for k, v in (answers.get("constraints") or {}).items() if v
    }
    if constraints:
        raw["constraints"] = constraints
    return raw


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


def build_profile(answers: dict[str, Any]) -> Any:
    """Turn the walk's answers into the core's validated `Profile`."""
    return _attr("advisor.profile", "parse_profile")(profile_raw(answers), "<walk>")


def resolve(kb: Any, answers: dict[str, Any]) -> Any:
    """The profile checked against the knowledge base, with the scenario's defaults merged in."""
    return _attr("advisor.profile", "resolve_profile")(build_profile(answers), kb)


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
    answers: dict[str, Any],
    probe: dict[str, Any] | None,
    bench: dict[str, Any] | None,
    *,
    draws: int | None = None,
) -> dict[str, Any]:
    """Score the frameworks under the walk's answers with the evidence so far; returns the full report JSON.

    `draws` lowers the Monte-Carlo sensitivity draws for previews that must follow every key press.
    """
    resolved = resolve(kb, answers)
    engine = _attr("advisor.scoring", "assess")
    extra = {"draws": draws} if draws else {}
    assessment = engine(kb, resolved, probe=probe, bench=bench, **extra)
    build = _attr("advisor.report", "build_report")
    return _json(build(assessment, kb, probe=probe, bench=bench, profile_source="interactive advisor (fwadvisor)"))


def advice_change_line(report: dict[str, Any]) -> str | None:
    """The weight (0-5) that changes the report's advice, in the words the CLI and the Markdown use."""
    return _attr("advisor.report.sensitivity_text", "advice_change_line")(report)  # type: ignore[no-any-return]


def report_markdown(report: dict[str, Any]) -> str:
    """The Markdown form of a report JSON."""
    return str(_attr("advisor.report", "to_markdown")(report))


def profile_yaml(answers: dict[str, Any]) -> str:
    """The profile file (YAML) for the walk's answers; validated by the core before it is written."""
    import yaml  # deferred: only needed when a profile is exported

    profile = build_profile(answers)
    text = "# fwadvisor profile written by the interactive advisor\n" + yaml.safe_dump(
        _attr("advisor.profile", "profile_to_json")(profile), sort_keys=False
    )
    _attr("advisor.profile", "load_profile_text")(text, "<exported profile>")  # round-trips, or raises
    return text


def load_profile_answers(path: str, kb: Any) -> dict[str, Any]:
    """Read a profile file and return it as walk answers, checked exactly as `fwadvisor profile check` does.

    Raises the core's `ProfileError`, whose text is the CLI's one line (file, line, field, problem).
    """
    profile = _attr("advisor.profile", "load_profile")(path)
    _attr("advisor.profile", "resolve_profile")(profile, kb)
    return answers_from_profile(profile)


def report_answers(report: dict[str, Any]) -> dict[str, Any]:
    """The walk answers of the profile a saved report was made with (its `profile.as_written`)."""
    raw = (report.get("profile") or {}).get("as_written") or {}
    return answers_from_profile(_attr("advisor.profile", "parse_profile")(raw, "<report profile>"))


def answers_from_profile(profile: Any) -> dict[str, Any]:
    """A validated `Profile` as walk answers."""
    current = list(profile.team.current)
    levels = {profile.team.experience.get(f) for f in current} - {None}
    cons = profile.constraints
    weights = dict(profile.weights or {})  # the profile's own, on the 0-5 scale; the rest stay the scenario's
    pairwise = [list(j) for j in profile.pairwise or []]
    env = profile.environment
    return {
        "scenario": profile.scenario,
        "current_frameworks": current,
        "experience": str(levels.pop()) if len(levels) == 1 else "intermediate",
        "experience_by": {str(f): str(v) for f, v in profile.team.experience.items() if f in current},
        "codebase_size": str(profile.codebase.size or profile.codebase.effective_size()),
        "kloc_by": {f: profile.codebase.kloc_range(f, current)[0] for f in current}
        if profile.codebase.by_framework or profile.codebase.kloc is not None
        else {},
        "team_size": profile.team.size,
        "horizon_months": float(profile.team.horizon_months),
        "domains": profile.domain_weights() if isinstance(profile.domains, dict) else list(profile.domains),
        "fleet": [f.model_dump(mode="json", exclude_none=True) for f in profile.fleet],
        "serving": list(profile.serving),
        "environment": {"os": [str(o) for o in env.os], "python": env.python},
        "weights": weights,
        "pairwise": pairwise,
        "constraints": {
            "must_run_on": [str(h) for h in cons.must_run_on] if cons else [],
            "must_deploy_to": list(cons.must_deploy_to) if cons else [],
            "exclude": list(cons.exclude) if cons else [],
            "maintainer_jurisdictions": list(cons.maintainer_jurisdictions) if cons else [],
            "multi_backend": bool(cons.multi_backend) if cons else False,
            "licenses": list(cons.licenses) if cons else [],
        },
    }


def load_report(path: str) -> dict[str, Any]:
    """Read and validate a saved report JSON."""
    return _json(_attr("advisor.report", "load_report")(path))


def report_json_text(report: dict[str, Any]) -> str:
    """The report as JSON text, exactly as `fwadvisor report --json` writes it."""
    return str(_attr("advisor.report", "to_json_text")(report))


# --- checklist and progress ------------------------------------------------------------------------


def checklist(
    kb: Any,
    framework: str,
    current: str | None,
    probe: dict[str, Any] | None,
    targets: Sequence[str] = (),
    must_run_on: Sequence[str] = (),
) -> Any:
    """The onboarding checklist for `framework` on the probed machine (or the hardware the team must run on)."""
    fn = _attr("advisor.checklist", "build_checklist")
    done = progress_done(framework, current)
    return fn(
        kb, framework, probe, from_framework=current, targets=list(targets), must_run_on=list(must_run_on), done=done
    )


def recommended_framework(report: dict[str, Any]) -> str | None:
    """The framework a report recommends (its recommendation, else the top of its ranking)."""
    found = _attr("advisor.team", "recommended_framework")(report)
    return str(found) if found else None


def progress_done(framework: str, current: str | None) -> set[str]:
    """Ids of the checklist items already ticked for `framework` (coming from `current`)."""
    return set(_attr("advisor.progress", "ProgressStore")().done(framework, current))


def progress_set(framework: str, current: str | None, item_id: str, done: bool) -> None:
    """Tick or untick one checklist item (stored atomically by the core)."""
    _attr("advisor.progress", "ProgressStore")().set_done(framework, current, item_id, done)
