"""The walk: the user's profile and where they stopped, saved so that a half-done walk can be resumed.

The answers are the core's own `Profile` (what it scores, what an export writes); the rest is what only the
screens need. Saved as JSON in the user config directory, with the theme.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.atomic import atomic_write_text
from advisor.errors import AdvisorError
from advisor.jsonio import read_json
from advisor.paths import user_config_dir, user_data_dir

if TYPE_CHECKING:
    from advisor.profile import Profile

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
#: 3: the walk holds the profile itself (its file form). 2: answers field by field, weights on the 0-5 scale.
#: Files without a version held percentages.
STATE_VERSION = 3
WEIGHT_SCALE_MAX = 5.0  # advisor.profile.WEIGHT_SCALE_MAX (a test holds them equal)


def _fresh_profile() -> Profile:
    from advisor.tui.data.answers import fresh_profile  # deferred: the settings (theme) are read before the core

    return fresh_profile()


@dataclass(eq=False)
class Walk:
    """The user's answers, as the core's own `Profile`, and what only the screens need (where they stopped)."""

    step: str = "welcome"
    bench_preset: str = "quick"
    chosen: str | None = None  # the framework the user picked on the results screen
    profile: Profile = field(default_factory=_fresh_profile)

    def __eq__(self, other: object) -> bool:
        # Profiles compare by what they say: two readings of one file differ only in where they were read from.
        if not isinstance(other, Walk):
            return NotImplemented
        return self.to_json() == other.to_json()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (for the state file): the profile as its file would be written."""
        from advisor.tui import core  # deferred, as in `_fresh_profile`

        return {"step": self.step, "bench_preset": self.bench_preset, "chosen": self.chosen,
                "profile": core.profile_json(self.profile)}

    @classmethod
    def read(cls, data: Any, version: int = STATE_VERSION) -> tuple[Walk, list[str]]:
        """The walk from the state file, and one line per value dropped or converted (the rest is kept).

        The profile is read by the profile loader itself, so a value it would refuse (`codebase.size: huge`)
        never reaches a screen: that value is dropped and the rest kept. Files before version 3 held the
        answers field by field; they are read into a profile (`legacy`).
        """
        walk = cls()
        notes: list[str] = []
        if not isinstance(data, dict):
            return walk, notes
        step, preset, chosen = data.get("step", "welcome"), data.get("bench_preset", "quick"), data.get("chosen")
        if step not in STEPS:
            notes.append(f"walk.step: {step!r} is not a step of the walk")
        else:
            walk.step = step
        if preset not in BENCH_PRESETS:
            notes.append(f"walk.bench_preset: {preset!r} is not one of {', '.join(BENCH_PRESETS)}")
        else:
            walk.bench_preset = preset
        if chosen is None or isinstance(chosen, str):
            walk.chosen = chosen
        else:
            notes.append(f"walk.chosen: a {type(chosen).__name__} where a str belongs; dropped")
        if version < 3:
            from advisor.tui.data.legacy import read_answers

            raw, more = read_answers(data, version, WEIGHT_SCALE_MAX)
            notes += more
        else:
            raw = data.get("profile", {})
        walk.profile, more = _read_profile(raw)
        notes += more
        return walk, notes


#: A saved profile with more bad values than this is not read value by value (it is dropped whole).
_MAX_DROPS = 20


def _read_profile(raw: Any) -> tuple[Profile, list[str]]:
    """The saved profile, each value the profile loader refuses dropped with one line (the rest kept)."""
    from advisor.tui import core  # deferred, as in `_fresh_profile`

    notes: list[str] = []
    if not isinstance(raw, dict):
        return _fresh_profile(), [f"walk.profile: a {type(raw).__name__} where a mapping belongs; dropped"]
    raw = copy.deepcopy(raw)
    for _ in range(_MAX_DROPS):
        try:
            return core.parse_profile(raw, "saved walk"), notes
        except Exception as exc:  # noqa: BLE001 - the core's ProfileError, whose field names what to drop
            field_name = getattr(exc, "field", None)
            message = getattr(exc, "message", str(exc))
            notes.append(f"walk.profile.{field_name or '?'}: {message}; dropped")
            if not field_name or not _drop(raw, field_name):
                break
            if field_name == "codebase.size":
                raw["codebase"]["size"] = "none"  # a fresh walk's (a profile without a size reads as medium)
    return _fresh_profile(), [*notes, "walk.profile: could not be read; the answers start afresh"]


def _drop(raw: dict[str, Any], dotted: str) -> bool:
    """Remove the value at `team.size` / `pairwise[0]` from `raw`; whether there was one."""
    parts: list[str | int] = []
    for name in dotted.split("."):
        head, *indices = name.replace("]", "").split("[")
        parts += [head, *(int(i) for i in indices)] if head else [int(i) for i in indices]
    node: Any = raw
    for part in parts[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    try:
        del node[parts[-1]]
    except (KeyError, IndexError, TypeError):
        return False
    return True


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
