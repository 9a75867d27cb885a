"""The screens' edits of the walk's `Profile`, the weights in effect, and which benchmark run the walk keeps.

The walk holds the core's own `Profile`: a loaded file is kept as it was read, and each edit rewrites only
the field it names (through the profile loader, so a value it refuses never lands), so an export loses
nothing the screens do not show (a total kLOC, keras_share, a fleet, weights without a preset).
"""

from __future__ import annotations

import copy
import platform
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from advisor.tui import core

if TYPE_CHECKING:  # the TUI loads the core lazily (a missing core piece is said on screen)
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport
    from advisor.profile import Profile

#: What a fresh walk answers: nothing, on a greenfield codebase (a profile without a size reads as medium).
FRESH: dict[str, Any] = {"codebase": {"size": "none"}}

#: The constraint lists the Priorities step ticks, by their key in `constraints`.
CONSTRAINT_LISTS: tuple[str, ...] = ("must_run_on", "must_deploy_to", "exclude")


def fresh_profile() -> Profile:
    """The profile of a walk with nothing answered."""
    return core.parse_profile(copy.deepcopy(FRESH), "<walk>")


def is_fresh(profile: Profile) -> bool:
    """Whether `profile` answers nothing (what `fresh_profile` gives)."""
    return core.profile_json(profile) == FRESH


def _empty(value: Any) -> bool:
    return value is None or value is False or value == [] or value == {}


def edited(profile: Profile, changes: dict[tuple[str, ...], Any]) -> Profile:
    """`profile` with the value at each path (e.g. ("team", "size")) replaced; an empty value removes the field.

    The result is read by the profile loader, as a file would be: a value it refuses raises `ProfileProblem`.
    Every other field stays as written (the file's own keys, not defaults), so the export stays the file's.
    """
    raw = copy.deepcopy(core.profile_json(profile))
    for path, value in changes.items():
        parents = [raw]
        node = raw
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
            parents.append(node)
        if _empty(value):
            node.pop(path[-1], None)
            for key, parent in zip(reversed(path[:-1]), reversed(parents[:-1]), strict=True):
                if parent.get(key) == {}:  # an emptied section says nothing: leave it out
                    parent.pop(key)
        else:
            node[path[-1]] = copy.deepcopy(value)
    try:
        return core.parse_profile(raw, "<walk>")
    except Exception as exc:  # the core's ProfileError: its one line
        raise core.ProfileProblem(str(exc)) from exc


def answer(profile: Profile, *path: str, value: Any) -> Profile:
    """`profile` with one field replaced (see `edited`)."""
    return edited(profile, {path: value})


# --- team and codebase ----------------------------------------------------------------------------


def current(profile: Profile) -> list[str]:
    """The frameworks the team uses today."""
    return [str(f) for f in profile.team.current]


def with_current(profile: Profile, frameworks: Sequence[str]) -> Profile:
    """The team's frameworks replaced; what was said of one no longer used (experience, kLOC) goes with it.

    Experience in a framework the file names but the team never used today stays (it is knowledge).
    """
    new = list(frameworks)
    gone = set(current(profile)) - set(new)
    experience = {str(f): str(v) for f, v in profile.team.experience.items() if f not in gone}
    kloc = {str(f): float(k) for f, k in profile.codebase.by_framework.items() if f in new}
    changes: dict[tuple[str, ...], Any] = {("team", "current"): new}
    if gone & set(profile.team.experience):
        changes[("team", "experience")] = experience
    if set(profile.codebase.by_framework) - set(new):
        changes[("codebase", "by_framework")] = kloc  # a number for code not moved would count in the total
    return edited(profile, changes)


def experience(profile: Profile, framework: str) -> str:
    """The team's experience with a current framework (intermediate unless stated, as the core reads it)."""
    level = profile.team.experience.get(framework)
    return str(level) if level is not None else "intermediate"


def with_experience(profile: Profile, framework: str, level: str) -> Profile:
    """The team's experience with `framework` set."""
    levels = {str(f): str(v) for f, v in profile.team.experience.items()}
    return answer(profile, "team", "experience", value={**levels, framework: level})


def kloc(profile: Profile, framework: str) -> float | None:
    """kLOC of `framework`'s code as the profile gives it: its own number, or its even share of a total kLOC."""
    codebase = profile.codebase
    if codebase.by_framework:
        own = codebase.by_framework.get(framework)
        return None if own is None else float(own)
    if codebase.kloc is None:
        return None
    return float(codebase.kloc_range(framework, current(profile))[0])


def with_kloc(profile: Profile, framework: str, value: float | None) -> Profile:
    """kLOC of one framework set (None: cleared); a file's total kLOC becomes its even share per framework."""
    by = {f: k for f in current(profile) if (k := kloc(profile, f)) is not None}
    by.update({str(f): float(k) for f, k in profile.codebase.by_framework.items()})
    if value is None:
        by.pop(framework, None)
    else:
        by[framework] = float(value)
    return edited(profile, {("codebase", "by_framework"): by, ("codebase", "kloc"): None})


def codebase_size(profile: Profile) -> str:
    """The size class the Team step shows (the file's, else the one its kLOC gives)."""
    return str(profile.codebase.size or profile.codebase.effective_size())


# --- weights --------------------------------------------------------------------------------------


def with_scenario(profile: Profile, scenario: str) -> Profile:
    """A scenario chosen: its preset's weights apply until the user changes one."""
    return edited(profile, {("scenario",): scenario, ("weights",): None, ("pairwise",): None})


def with_weights(
    profile: Profile, kb: Any, weights: dict[str, float], pairwise: Sequence[Sequence[Any]] = ()
) -> Profile:
    """The user's own weights (0-5) or pairwise answers (which stand for the weights while given).

    Weights without a scenario are read beside the balanced default, as the core reads a profile without
    weights, so that the criteria the user did not touch keep a weight rather than 0.
    """
    judgements = [list(j) for j in pairwise]
    changes: dict[tuple[str, ...], Any] = {
        ("weights",): None if judgements else dict(weights),
        ("pairwise",): judgements or None,
    }
    default = core.default_scenario()
    if profile.scenario is None and weights and not judgements and kb is not None and default in kb.scenarios:
        changes[("scenario",)] = default
    return edited(profile, changes)


def effective_weights(profile: Profile, kb: Any) -> dict[str, float]:
    """Every criterion's weight on the 0-5 scale, as the core reads the profile: the user's own, else the preset's."""
    own = {str(c): float(w) for c, w in (profile.weights or {}).items()}
    if kb is None:
        return own
    own = {c: w for c, w in own.items() if c in kb.criteria}
    scenario = profile.scenario if profile.scenario in kb.scenarios else None  # an unknown one: the Team step says
    pairwise = [list(j) for j in profile.pairwise or []]
    try:
        return core.resolved_weights(kb, scenario, own, pairwise)
    except core.ProfileProblem:  # answers the core refuses (the ranking says why): the preset's weights meanwhile
        return core.resolved_weights(kb, scenario, {}, [])


def whatif_profile(profile: Profile, weights: dict[str, float]) -> Profile:
    """The profile with every weight given (What-if): they, not the pairwise answers, are the profile's."""
    return edited(profile, {("weights",): dict(weights), ("pairwise",): None})


# --- lists ----------------------------------------------------------------------------------------


def with_domains(profile: Profile, chosen: Sequence[str]) -> Profile:
    """The chosen domains; a file's uneven domain weights are kept for the domains still chosen."""
    weights = profile.domain_weights()
    kept = {d: weights.get(d, 1.0) for d in chosen}
    value: Any = kept if any(w != 1.0 for w in kept.values()) else list(chosen)
    return answer(profile, "domains", value=value)


def constraint_list(profile: Profile, key: str) -> list[str]:
    """One list of the profile's constraints (`exclude`, `must_run_on`...), as ids."""
    cons = profile.constraints
    return [str(v) for v in getattr(cons, key)] if cons is not None else []


def with_constraint(profile: Profile, key: str, value: Any) -> Profile:
    """One constraint set (an empty list or False removes it)."""
    return answer(profile, "constraints", key, value=value)


def os_answer(profile: Profile) -> list[str]:
    """The operating systems the team's code runs on."""
    return [str(o) for o in profile.environment.os]


def prefill_environment(profile: Profile, probe: ProbeReport | None) -> Profile:
    """A fresh profile with the OS of the probed machine (or of this one); any other is returned as it is.

    The Python version is only offered (`probed_python`), not assumed: the machine's interpreter need not be
    the team's, and a version the knowledge base's newest release lacks would rule out a framework that the
    probe just ran here.
    """
    if not is_fresh(profile):
        return profile
    name = ((probe.software.os if probe is not None else "") or platform.system()).lower()
    found = [o for o, marks in _OS_MARKS.items() if any(m in name for m in marks)]
    return answer(profile, "environment", "os", value=found[:1])


def probed_python(probe: ProbeReport | None) -> str:
    """MAJOR.MINOR of the probed interpreter (or of this one), offered on the Team step."""
    version = (probe.software.python if probe is not None else "") or platform.python_version()
    return ".".join(version.split(".")[:2])


#: Words in the probe's (or `platform.system()`'s) OS name that name the profile's OS ids.
_OS_MARKS: dict[str, tuple[str, ...]] = {"linux": ("linux",), "macos": ("darwin", "macos"), "windows": ("windows",)}


# --- evidence -------------------------------------------------------------------------------------


def was_cancelled(bench: BenchReport | None) -> bool:
    """Whether a benchmark run was cut short by a cancel (the core records a `cancelled` failure)."""
    return bench is not None and any(f.outcome == "cancelled" for f in bench.failures)


def kept_bench(previous: BenchReport | None, new: BenchReport | None, *, cancelled: bool) -> BenchReport | None:
    """The run the walk keeps: a cancelled run never replaces a complete one; it is kept only when nothing was."""
    if new is None:
        return previous
    if (cancelled or was_cancelled(new)) and previous is not None and not was_cancelled(previous):
        return previous
    return new
