"""The walk's answers in the profile's shape, the weights in effect, and which benchmark run the walk keeps."""

from __future__ import annotations

import platform
from typing import Any

from advisor.tui import core
from advisor.tui.data.state import Walk


def weight_scenario(walk: Walk, kb: Any) -> str | None:
    """The scenario whose preset holds the weights the user did not set (the balanced default where none is chosen)."""
    if walk.scenario or not walk.weights or walk.pairwise:
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


def walk_answers(walk: Walk, kb: Any, weights: dict[str, float] | None = None) -> dict[str, Any]:
    """The answers the core scores; `weights` (what-if) replaces the walk's weights and its pairwise answers."""
    answers: dict[str, Any] = {
        "scenario": weight_scenario(walk, kb),
        "current_frameworks": list(walk.current_frameworks),
        "experience": walk.experience,
        "codebase_size": walk.codebase_size,
        "experience_by": {f: walk.experience_by.get(f, walk.experience) for f in walk.current_frameworks},
        "kloc_by": {f: walk.kloc_by[f] for f in walk.current_frameworks if f in walk.kloc_by},
        "team_size": walk.team_size,
        "horizon_months": float(walk.horizon_months),
        "domains": domain_answer(walk),
        "fleet": [dict(f) for f in walk.fleet],
        "serving": list(walk.serving),
        "environment": {"os": list(walk.os or []), "python": walk.python},
        # What-if gives every weight; the walk only the ones the user set (the rest stay the scenario's).
        "weights": dict(weights if weights is not None else walk.weights),
        "constraints": {
            "must_run_on": list(walk.must_run_on),
            "must_deploy_to": list(walk.must_deploy_to),
            "exclude": list(walk.exclude),
            "maintainer_jurisdictions": list(walk.jurisdictions),
            "multi_backend": walk.multi_backend,
            "licenses": list(walk.licenses),
        },
    }
    if weights is None and walk.pairwise:
        answers["pairwise"] = [list(j) for j in walk.pairwise]
    return answers


def apply_answers(walk: Walk, answers: dict[str, Any]) -> None:
    """Fill the walk from answers (a loaded profile or report)."""
    walk.scenario = answers["scenario"]
    walk.current_frameworks = list(answers["current_frameworks"])
    walk.experience = answers["experience"]
    walk.codebase_size = answers["codebase_size"]
    walk.weights = dict(answers["weights"])
    walk.pairwise = [list(j) for j in answers.get("pairwise") or []]
    walk.must_run_on = list(answers["constraints"]["must_run_on"])
    walk.must_deploy_to = list(answers["constraints"]["must_deploy_to"])
    walk.exclude = list(answers["constraints"]["exclude"])
    walk.jurisdictions = list(answers["constraints"].get("maintainer_jurisdictions") or [])
    walk.multi_backend = bool(answers["constraints"].get("multi_backend"))
    walk.experience_by = dict(answers.get("experience_by") or {})
    walk.kloc_by = dict(answers.get("kloc_by") or {})
    walk.team_size = answers.get("team_size")
    domains = answers.get("domains") or []
    walk.domains = list(domains)
    walk.domain_weights = {str(k): float(v) for k, v in domains.items()} if isinstance(domains, dict) else {}
    walk.horizon_months = float(answers.get("horizon_months") or 24.0)
    walk.fleet = [dict(f) for f in answers.get("fleet") or []]
    walk.licenses = list(answers["constraints"].get("licenses") or [])
    walk.serving = list(answers.get("serving") or [])
    env = answers.get("environment") or {}
    walk.os = list(env.get("os") or [])
    walk.python = env.get("python")


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
