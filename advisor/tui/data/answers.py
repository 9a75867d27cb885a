"""The walk's answers in the profile's shape, the weights in effect, and which benchmark run the walk keeps."""

from __future__ import annotations

import copy
import platform
from typing import TYPE_CHECKING, Any

from advisor.tui import core
from advisor.tui.data.state import Walk

if TYPE_CHECKING:  # the TUI loads the core lazily (a missing core piece is said on screen)
    from advisor.profile import Profile


#: The walk's answers behind each section of a profile (see `Walk.loaded`).
SECTIONS: dict[str, tuple[str, ...]] = {
    "team": ("current_frameworks", "experience", "experience_by", "team_size", "horizon_months"),
    "codebase": ("current_frameworks", "codebase_size", "kloc_by"),
    "weights": ("scenario", "weights", "pairwise"),
}


def as_loaded(walk: Walk, section: str) -> bool:
    """Whether the walk's answers for `section` are still those it read from a loaded profile file."""
    fields = SECTIONS[section]
    return bool(walk.loaded_answers) and all(
        f in walk.loaded_answers and getattr(walk, f) == walk.loaded_answers[f] for f in fields
    )


def weight_scenario(walk: Walk, kb: Any) -> str | None:
    """The scenario whose preset holds the weights the user did not set (the balanced default where none is chosen).

    A loaded profile with weights and no scenario keeps none: the core reads the weights it does not give as 0.
    """
    if walk.scenario or not walk.weights or walk.pairwise or as_loaded(walk, "weights"):
        return walk.scenario
    default = core.default_scenario()
    return default if kb is not None and default in kb.scenarios else None


def effective_weights(walk: Walk, kb: Any) -> dict[str, float]:
    """Every criterion's weight on the 0-5 scale, as the core reads the walk: the user's own, else the preset's.

    The core's resolver decides (scenario presets scaled so their largest weight is 5, pairwise answers as
    5 x their AHP shares); the walk keeps only the weights the user set.
    """
    if kb is None:
        return dict(walk.weights)
    own = {c: w for c, w in walk.weights.items() if c in kb.criteria}
    scenario = weight_scenario(walk, kb)
    scenario = scenario if scenario in kb.scenarios else None  # the Team step shows an unknown one as the error
    try:
        return core.resolved_weights(kb, scenario, own, walk.pairwise)
    except core.ProfileProblem:  # answers the core refuses (the ranking says why): the preset's weights meanwhile
        return core.resolved_weights(kb, scenario, {}, [])


def walk_raw(walk: Walk, kb: Any, weights: dict[str, float] | None = None) -> dict[str, Any]:
    """The walk as a profile mapping (the shape `advisor.profile` reads from YAML); `weights` (what-if) replaces
    the walk's weights and its pairwise answers."""
    current = list(walk.current_frameworks)
    team: dict[str, Any] = {"current": current}
    if current:
        team["experience"] = {f: walk.experience_by.get(f, walk.experience) for f in current}
    if walk.team_size is not None:
        team["size"] = walk.team_size
    if float(walk.horizon_months) != 24.0:
        team["horizon_months"] = float(walk.horizon_months)
    codebase: dict[str, Any] = {"size": walk.codebase_size or "none"}
    kloc = {f: walk.kloc_by[f] for f in current if f in walk.kloc_by}
    if kloc:
        codebase["by_framework"] = kloc
    raw: dict[str, Any] = {"team": team, "codebase": codebase}
    scenario = weight_scenario(walk, kb)
    if scenario:
        raw["scenario"] = scenario
    domains = domain_answer(walk)
    for key, value in (("domains", domains), ("serving", walk.serving), ("fleet", [dict(f) for f in walk.fleet])):
        if value:
            raw[key] = dict(value) if isinstance(value, dict) else list(value)
    env = {k: v for k, v in (("os", list(walk.os or [])), ("python", walk.python)) if v}
    if env:
        raw["environment"] = env
    if weights is None and walk.pairwise:
        # The judgements themselves, so the core derives the weights (and the report shows profile.ahp).
        raw["pairwise"] = [list(j) for j in walk.pairwise]
    else:
        # What-if gives every weight; the walk only the ones the user set (the rest stay the scenario's).
        own = dict(weights if weights is not None else walk.weights)
        if own:
            raw["weights"] = own
    constraints: dict[str, Any] = {
        "must_run_on": list(walk.must_run_on),
        "must_deploy_to": list(walk.must_deploy_to),
        "exclude": list(walk.exclude),
        "maintainer_jurisdictions": list(walk.jurisdictions),
        "multi_backend": walk.multi_backend,
        "licenses": list(walk.licenses),
    }
    constraints = {k: v for k, v in constraints.items() if v}
    if constraints:
        raw["constraints"] = constraints
    return _with_loaded_sections(walk, raw, whatif=weights is not None)


def _with_loaded_sections(walk: Walk, raw: dict[str, Any], *, whatif: bool) -> dict[str, Any]:
    """`raw` with the loaded file's own team, codebase and weight sections where their answers are unchanged."""
    keys = {"team": ("team",), "codebase": ("codebase",), "weights": ("scenario", "weights", "pairwise")}
    for section, names in keys.items():
        if not as_loaded(walk, section):
            continue
        for name in names:
            if whatif and name in ("weights", "pairwise"):
                continue  # What-if's weights are the point of the question; the file's scenario still applies
            raw.pop(name, None)
            if name in walk.loaded:
                raw[name] = copy.deepcopy(walk.loaded[name])
    return raw


def walk_profile(walk: Walk, kb: Any, weights: dict[str, float] | None = None) -> Profile:
    """The walk as the core's validated `Profile` (what the core scores and what an export writes)."""
    return core.parse_profile(walk_raw(walk, kb, weights), "<walk>")


def apply_profile(walk: Walk, profile: Profile) -> None:
    """Fill the walk from a validated profile (a loaded profile file, or the profile a report was made with)."""
    current = list(profile.team.current)
    levels = {profile.team.experience.get(f) for f in current} - {None}
    cons = profile.constraints
    walk.scenario = profile.scenario
    walk.current_frameworks = current
    walk.experience = str(levels.pop()) if len(levels) == 1 else "intermediate"
    walk.experience_by = {str(f): str(v) for f, v in profile.team.experience.items() if f in current}
    walk.codebase_size = str(profile.codebase.size or profile.codebase.effective_size())
    has_kloc = bool(profile.codebase.by_framework) or profile.codebase.kloc is not None
    walk.kloc_by = {f: profile.codebase.kloc_range(f, current)[0] for f in current} if has_kloc else {}
    walk.team_size = profile.team.size
    walk.horizon_months = float(profile.team.horizon_months)
    # The profile's own weights, on the 0-5 scale; the rest stay the scenario's.
    walk.weights = dict(profile.weights or {})
    walk.pairwise = [list(j) for j in profile.pairwise or []]
    if isinstance(profile.domains, dict):
        walk.domain_weights = {str(k): float(v) for k, v in profile.domain_weights().items()}
        walk.domains = list(walk.domain_weights)
    else:
        walk.domains, walk.domain_weights = list(profile.domains), {}
    walk.fleet = [f.model_dump(mode="json", exclude_none=True) for f in profile.fleet]
    walk.serving = list(profile.serving)
    walk.os = [str(o) for o in profile.environment.os]
    walk.python = profile.environment.python
    walk.must_run_on = [str(h) for h in cons.must_run_on] if cons else []
    walk.must_deploy_to = list(cons.must_deploy_to) if cons else []
    walk.exclude = list(cons.exclude) if cons else []
    walk.jurisdictions = list(cons.maintainer_jurisdictions) if cons else []
    walk.multi_backend = bool(cons.multi_backend) if cons else False
    walk.licenses = list(cons.licenses) if cons else []
    walk.loaded = core.profile_json(profile)
    walk.loaded_answers = {f: copy.deepcopy(getattr(walk, f)) for names in SECTIONS.values() for f in names}


def domain_answer(walk: Walk) -> list[str] | dict[str, float]:
    """The chosen domains: a list, or {domain: weight} where a loaded profile weighted them unevenly."""
    weights = {d: walk.domain_weights.get(d, 1.0) for d in walk.domains}
    return weights if any(w != 1.0 for w in weights.values()) else list(walk.domains)


def prefill_environment(walk: Walk, probe: dict[str, Any] | None) -> None:
    """Where the walk has not said: the OS of the probed machine (or of this one).

    The Python version is only offered (`probed_python`), not assumed: the machine's interpreter need not be
    the team's, and a version the knowledge base's newest release lacks would rule out a framework that the
    probe just ran here.
    """
    software = (probe or {}).get("software") or {}
    if walk.os is None:
        name = str(software.get("os") or platform.system()).lower()
        found = [o for o, marks in _OS_MARKS.items() if any(m in name for m in marks)]
        walk.os = found[:1]


def probed_python(probe: dict[str, Any] | None) -> str:
    """MAJOR.MINOR of the probed interpreter (or of this one), offered on the Team step."""
    version = str(((probe or {}).get("software") or {}).get("python") or platform.python_version())
    return ".".join(version.split(".")[:2])


#: Words in the probe's (or `platform.system()`'s) OS name that name the profile's OS ids.
_OS_MARKS: dict[str, tuple[str, ...]] = {"linux": ("linux",), "macos": ("darwin", "macos"), "windows": ("windows",)}


def was_cancelled(bench: dict[str, Any] | None) -> bool:
    """Whether a benchmark run was cut short by a cancel (the core records a `cancelled` failure)."""
    failures = (bench or {}).get("failures") or []
    return any(isinstance(f, dict) and f.get("outcome") == "cancelled" for f in failures)


def kept_bench(
    previous: dict[str, Any] | None, new: dict[str, Any] | None, *, cancelled: bool
) -> dict[str, Any] | None:
    """The run the walk keeps: a cancelled run never replaces a complete one; it is kept only when nothing was."""
    if new is None:
        return previous
    if (cancelled or was_cancelled(new)) and previous is not None and not was_cancelled(previous):
        return previous
    return new
