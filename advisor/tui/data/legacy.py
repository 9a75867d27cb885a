"""State files of versions before 3 (the walk's answers field by field) read into the walk's `Profile`."""

from __future__ import annotations

import copy
from typing import Any

#: The answers such a file held, with their neutral defaults.
_FIELDS: dict[str, Any] = {
    "scenario": None,
    "current_frameworks": [],
    "experience": "intermediate",
    "codebase_size": "none",
    "team_size": None,
    "horizon_months": 24.0,
    "experience_by": {},
    "kloc_by": {},
    "domains": [],
    "serving": [],
    "os": None,
    "python": None,
    "jurisdictions": [],
    "multi_backend": False,
    "domain_weights": {},
    "fleet": [],
    "licenses": [],
    "weights": {},
    "pairwise": [],
    "must_run_on": [],
    "must_deploy_to": [],
    "exclude": [],
    "loaded": {},
    "loaded_answers": {},
}

#: Where each answer sits in a profile: the profile loader checks a saved value there, as for a typed one.
_PROFILE_PATH: dict[str, tuple[str, ...]] = {
    "scenario": ("scenario",),
    "current_frameworks": ("team", "current"),
    "experience": ("team", "experience", "x"),
    "experience_by": ("team", "experience"),
    "codebase_size": ("codebase", "size"),
    "team_size": ("team", "size"),
    "horizon_months": ("team", "horizon_months"),
    "kloc_by": ("codebase", "by_framework"),
    "domains": ("domains",),
    "domain_weights": ("domains",),
    "serving": ("serving",),
    "os": ("environment", "os"),
    "python": ("environment", "python"),
    "jurisdictions": ("constraints", "maintainer_jurisdictions"),
    "multi_backend": ("constraints", "multi_backend"),
    "fleet": ("fleet",),
    "licenses": ("constraints", "licenses"),
    "weights": ("weights",),
    "pairwise": ("pairwise",),
    "must_run_on": ("constraints", "must_run_on"),
    "must_deploy_to": ("constraints", "must_deploy_to"),
    "exclude": ("constraints", "exclude"),
}

#: The types a value may have where the field's default is None (else a string).
_OPTIONAL: dict[str, tuple[type, ...]] = {"team_size": (int,), "os": (list,)}

#: The answers behind each section a loaded profile file kept (the file's section stood while they were unchanged).
_SECTIONS: dict[str, tuple[str, ...]] = {
    "team": ("current_frameworks", "experience", "experience_by", "team_size", "horizon_months"),
    "codebase": ("current_frameworks", "codebase_size", "kloc_by"),
    "weights": ("scenario", "weights", "pairwise"),
}


def read_answers(data: dict[str, Any], version: int, scale_max: float) -> tuple[dict[str, Any], list[str]]:
    """The profile mapping an old walk's answers stand for, and one line per value dropped or converted."""
    from advisor.tui import core  # deferred: the settings (theme) are read before the core is needed

    answers = copy.deepcopy(_FIELDS)
    notes: list[str] = []
    for key, default in _FIELDS.items():
        if key not in data:
            continue
        value = data[key]
        if not (
            type(value) is type(default)
            or (type(default) is float and type(value) is int)
            or (default is None and type(value) in _OPTIONAL.get(key, (str,)))
        ):
            notes.append(f"walk.{key}: a {type(value).__name__} where a {_kind(default, key)} belongs; dropped")
            continue
        problem = _check(core, key, value)
        if problem is not None:
            notes.append(f"walk.{key}: {problem}; dropped")
            continue
        answers[key] = value
    if answers["loaded"]:
        try:
            core.parse_profile(answers["loaded"], "saved walk")
        except Exception as exc:  # noqa: BLE001 - any refusal drops the copy; the walk's own answers stay
            problem = str(exc).removeprefix("saved walk: ")[:200]
            notes.append(f"walk.loaded: {problem}; dropped (the answers on screen are kept)")
            answers["loaded"], answers["loaded_answers"] = {}, {}
    if answers["pairwise"]:
        answers["weights"] = {}  # the answers, not weights, were the profile's
    elif version < 2 and answers["weights"]:
        notes.append(_old_weights(answers, scale_max))
    return _raw(core, answers), notes


def _kind(default: Any, key: str) -> str:
    if default is None:
        return " or ".join(t.__name__ for t in _OPTIONAL.get(key, (str,)))
    return type(default).__name__


def _check(core: Any, key: str, value: Any) -> str | None:
    """The profile loader's objection to `value` where `key` sits in a profile (None: none)."""
    path = _PROFILE_PATH.get(key)
    if path is None or value is None or value == [] or value == {}:
        return None
    if key == "experience_by":
        value = dict(value)
    problem = core.check_answer(path, value, source="saved walk")
    return None if problem is None else str(problem).removeprefix("saved walk: ")


def _old_weights(answers: dict[str, Any], scale_max: float) -> str:
    """Weights saved as percentages by version 1: to 0-5 with the same shares, or dropped when unsure."""
    weights = answers["weights"]
    top = max(weights.values())
    if top > scale_max:
        # That version saved every criterion's weight once one was changed, so scaling keeps every share.
        answers["weights"] = {k: round(v * scale_max / top, 2) for k, v in weights.items()}
        return "walk.weights: saved as percentages by an older version; converted to the 0-5 scale (same shares)"
    answers["weights"] = {}
    return (
        "walk.weights: saved by an older version, on a scale that cannot be told (percent or 0-5); dropped, "
        "the scenario's weights apply"
    )


def _raw(core: Any, a: dict[str, Any]) -> dict[str, Any]:
    """The old answers as a profile mapping, as version 2 scored and exported them."""
    current = list(a["current_frameworks"])
    team: dict[str, Any] = {"current": current}
    if current:
        team["experience"] = {f: a["experience_by"].get(f, a["experience"]) for f in current}
    if a["team_size"] is not None:
        team["size"] = a["team_size"]
    if float(a["horizon_months"]) != 24.0:
        team["horizon_months"] = float(a["horizon_months"])
    codebase: dict[str, Any] = {"size": a["codebase_size"] or "none"}
    kloc = {f: float(a["kloc_by"][f]) for f in current if f in a["kloc_by"]}
    if kloc:
        codebase["by_framework"] = kloc
    raw: dict[str, Any] = {"team": team, "codebase": codebase}
    scenario = a["scenario"]
    if not scenario and a["weights"] and not a["pairwise"] and not _as_loaded(a, "weights"):
        scenario = core.default_scenario()
    if scenario:
        raw["scenario"] = scenario
    weighted = {d: a["domain_weights"].get(d, 1.0) for d in a["domains"]}
    domains = weighted if any(w != 1.0 for w in weighted.values()) else list(a["domains"])
    for key, value in (("domains", domains), ("serving", a["serving"]), ("fleet", a["fleet"])):
        if value:
            raw[key] = copy.deepcopy(value)
    env = {k: v for k, v in (("os", list(a["os"] or [])), ("python", a["python"])) if v}
    if env:
        raw["environment"] = env
    if a["pairwise"]:
        raw["pairwise"] = [list(j) for j in a["pairwise"]]
    elif a["weights"]:
        raw["weights"] = dict(a["weights"])
    constraints = {
        "must_run_on": a["must_run_on"],
        "must_deploy_to": a["must_deploy_to"],
        "exclude": a["exclude"],
        "maintainer_jurisdictions": a["jurisdictions"],
        "multi_backend": a["multi_backend"],
        "licenses": a["licenses"],
    }
    constraints = {k: v for k, v in constraints.items() if v}
    if constraints:
        raw["constraints"] = constraints
    # Where the answers of a section were still those read from a loaded file, the file's section stood.
    for section, names in {"team": ("team",), "codebase": ("codebase",),
                           "weights": ("scenario", "weights", "pairwise")}.items():
        if _as_loaded(a, section):
            for name in names:
                raw.pop(name, None)
                if name in a["loaded"]:
                    raw[name] = copy.deepcopy(a["loaded"][name])
    return raw


def _as_loaded(a: dict[str, Any], section: str) -> bool:
    loaded = a["loaded_answers"]
    return bool(loaded) and bool(a["loaded"]) and all(
        f in loaded and a[f] == loaded[f] for f in _SECTIONS[section]
    )
