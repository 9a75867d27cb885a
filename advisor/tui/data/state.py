"""The user's answers in the walk (scenario, team, weights, constraints) and where they stopped.

This is presentation state, not advice: it is turned into a profile for the core, and saved as
JSON in the user config directory so a half-done walk can be resumed and the theme remembered.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from advisor.atomic import atomic_write_text
from advisor.errors import AdvisorError
from advisor.jsonio import read_json
from advisor.paths import user_config_dir, user_data_dir

#: The walk, in order: back/forward move along this list.
STEPS: tuple[str, ...] = ("welcome", "scenario", "priorities", "evidence", "results", "onboarding", "export")

STEP_TITLES: dict[str, str] = {
    "welcome": "Welcome",
    "scenario": "Team",
    "priorities": "Priorities",
    "evidence": "Evidence",
    "results": "Results",
    "onboarding": "Onboarding",
    "export": "Export",
}

EXPERIENCE_LEVELS: tuple[str, ...] = ("none", "beginner", "intermediate", "expert")
CODEBASE_SIZES: tuple[str, ...] = ("none", "small", "medium", "large")
BENCH_PRESETS: tuple[str, ...] = ("none", "quick", "standard", "thorough")

STATE_FILE = "tui-state.json"
EVIDENCE_FILE = "tui-evidence.json"
#: 2: weights on the profiles' 0-5 scale, only those the user set. Files without it held percentages.
STATE_VERSION = 2
WEIGHT_SCALE_MAX = 5.0  # advisor.profile.WEIGHT_SCALE_MAX (a test holds them equal)

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

#: The types a state-file value may have where the field's default is None (else a string).
_OPTIONAL: dict[str, tuple[type, ...]] = {"team_size": (int,), "os": (list,)}


@dataclass
class Walk:
    """What the user has answered so far; every field has a neutral default."""

    step: str = "welcome"
    scenario: str | None = None
    current_frameworks: list[str] = field(default_factory=list)
    experience: str = "intermediate"
    codebase_size: str = "none"
    team_size: int | None = None  # engineers who would do a move (None: not given)
    horizon_months: float = 24.0  # months over which the team weighs a move
    experience_by: dict[str, str] = field(default_factory=dict)  # per current framework; else `experience`
    kloc_by: dict[str, float] = field(default_factory=dict)  # kLOC per current framework
    domains: list[str] = field(default_factory=list)
    serving: list[str] = field(default_factory=list)
    os: list[str] | None = None  # None: not answered yet (prefilled from the probe)
    python: str | None = None  # None: not answered yet (prefilled from the probe or this interpreter)
    jurisdictions: list[str] = field(default_factory=list)  # allowed maintainer countries (empty: any)
    multi_backend: bool = False
    # Kept from a loaded profile so an export loses nothing the step does not show: domain weights, fleet, licences.
    domain_weights: dict[str, float] = field(default_factory=dict)
    fleet: list[dict[str, Any]] = field(default_factory=list)
    licenses: list[str] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)
    # "Which matters more?" answers [a, b, x]; while set they, not `weights`, are the profile's (AHP).
    pairwise: list[list[Any]] = field(default_factory=list)
    must_run_on: list[str] = field(default_factory=list)
    must_deploy_to: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    bench_preset: str = "quick"
    chosen: str | None = None  # the framework the user picked on the results screen
    # The profile file as loaded (its YAML form) and the answers the walk read from it: where the user has not
    # changed a section's answers since, the file's own section is what the walk scores and exports, so that
    # what the walk cannot show (a total kLOC, keras_share, experience in a framework not used today, weights
    # without a preset) is neither lost nor replaced by a default.
    loaded: dict[str, Any] = field(default_factory=dict)
    loaded_answers: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (for the state file)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Walk:
        """Rebuild from the state file; unknown, ill-typed or invalid values are dropped rather than trusted."""
        return cls.read(data)[0]

    @classmethod
    def read(cls, data: Any, version: int = STATE_VERSION) -> tuple[Walk, list[str]]:
        """The walk from the state file, and one line per value dropped or converted (the rest is kept).

        Each value is checked where it sits in a profile, by the profile loader itself, so a value the
        loader would refuse (`codebase_size: huge`) never reaches a screen. Weights of a file older than
        `STATE_VERSION` were percentages: converted to 0-5 where that is certain, else dropped.
        """
        walk = cls()
        notes: list[str] = []
        if not isinstance(data, dict):
            return walk, notes
        for key, default in asdict(walk).items():
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
            problem = _check(key, value)
            if problem is not None:
                notes.append(f"walk.{key}: {problem}; dropped")
                continue
            setattr(walk, key, value)
        if walk.step not in STEPS:
            notes.append(f"walk.step: {walk.step!r} is not a step of the walk")
            walk.step = "welcome"
        if walk.bench_preset not in BENCH_PRESETS:
            notes.append(f"walk.bench_preset: {walk.bench_preset!r} is not one of {', '.join(BENCH_PRESETS)}")
            walk.bench_preset = "quick"
        if walk.loaded and (problem := _check_loaded(walk.loaded)) is not None:
            notes.append(f"walk.loaded: {problem}; dropped (the answers on screen are kept)")
            walk.loaded, walk.loaded_answers = {}, {}
        walk.kloc_by = {k: float(v) for k, v in walk.kloc_by.items()}
        walk.pairwise = [list(j) for j in walk.pairwise]
        if walk.pairwise:
            walk.weights = {}  # the answers, not weights, are the profile's
        elif version < STATE_VERSION and walk.weights:
            notes.append(_old_weights(walk))
        return walk, notes


def _kind(default: Any, key: str) -> str:
    if default is None:
        return " or ".join(t.__name__ for t in _OPTIONAL.get(key, (str,)))
    return type(default).__name__


def _check(key: str, value: Any) -> str | None:
    """The profile loader's objection to `value` where `key` sits in a profile (None: none)."""
    from advisor.tui import core  # deferred: the settings (theme) are read before the core is needed

    path = _PROFILE_PATH.get(key)
    if path is None or value is None or value == [] or value == {}:
        return None
    if key == "experience_by":
        value = dict(value)
    problem = core.check_answer(path, value, source="saved walk")
    return None if problem is None else problem.removeprefix("saved walk: ")


def _check_loaded(raw: dict[str, Any]) -> str | None:
    """The profile loader's objection to a saved copy of a loaded profile file (None: none)."""
    from advisor.tui import core  # deferred, as in `_check`

    try:
        core.parse_profile(raw, "saved walk")
    except Exception as exc:  # noqa: BLE001 - any refusal drops the copy; the walk's own answers stay
        return str(exc).removeprefix("saved walk: ")[:200]
    return None


def _old_weights(walk: Walk) -> str:
    """Weights saved as percentages by an older version: to 0-5 with the same shares, or dropped when unsure."""
    top = max(walk.weights.values())
    if top > WEIGHT_SCALE_MAX:
        # That version saved every criterion's weight once one was changed, so scaling keeps every share.
        walk.weights = {k: round(v * WEIGHT_SCALE_MAX / top, 2) for k, v in walk.weights.items()}
        return "walk.weights: saved as percentages by an older version; converted to the 0-5 scale (same shares)"
    walk.weights = {}
    return (
        "walk.weights: saved by an older version, on a scale that cannot be told (percent or 0-5); dropped, "
        "the scenario's weights apply"
    )


@dataclass
class Settings:
    """What the app remembers between runs."""

    theme: str | None = None
    last_profile: str | None = None  # path of the profile last loaded or exported
    walk: Walk = field(default_factory=Walk)
    #: What reading the file dropped or converted, one line each (shown once; never saved).
    notes: list[str] = field(default_factory=list, compare=False)


#: The settings hold a theme, a path and the walk's answers: kilobytes. A larger file is not ours.
_STATE_LIMIT = 1 << 20


def state_path() -> Path:
    """Where the settings and the half-done walk live."""
    return user_config_dir() / STATE_FILE


def load_settings(path: Path | None = None) -> Settings:
    """Read the settings; a missing or corrupt file gives defaults (it only holds conveniences)."""
    path = path or state_path()
    try:
        # Through the one input reader: a FIFO or device in its place would hang the app's start, a deep file crash it.
        data = read_json(path, AdvisorError, limit=_STATE_LIMIT)
    except AdvisorError:
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    theme = data.get("theme")
    last = data.get("last_profile")
    version = data.get("version")
    walk, notes = Walk.read(data.get("walk"), version if type(version) is int else 1)
    return Settings(
        theme=theme if isinstance(theme, str) else None,
        last_profile=last if isinstance(last, str) else None,
        walk=walk,
        notes=[f"{path}: {note}; the rest of the walk is kept" for note in notes],
    )


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Write the settings atomically."""
    data = {
        "version": STATE_VERSION,
        "theme": settings.theme,
        "last_profile": settings.last_profile,
        "walk": settings.walk.to_json(),
    }
    atomic_write_text(path or state_path(), json.dumps(data, indent=2) + "\n")


def evidence_path() -> Path:
    """Where the last probe and benchmark JSON are kept, so a resumed walk need not measure again."""
    return user_data_dir() / EVIDENCE_FILE


def load_evidence(path: Path | None = None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(probe, bench) saved by the last session; (None, None) when there is none or it cannot be read."""
    try:
        data = read_json(path or evidence_path(), AdvisorError)  # a report's limits: it holds a probe and a bench
    except AdvisorError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    probe, bench = data.get("probe"), data.get("bench")
    return (probe if isinstance(probe, dict) else None), (bench if isinstance(bench, dict) else None)


def save_evidence(probe: dict[str, Any] | None, bench: dict[str, Any] | None, path: Path | None = None) -> None:
    """Keep the evidence of this session (written atomically)."""
    atomic_write_text(path or evidence_path(), json.dumps({"probe": probe, "bench": bench}) + "\n")
