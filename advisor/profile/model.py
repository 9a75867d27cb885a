"""The profile as the user writes it (pydantic models) and its reading, writing and one-line errors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StringConstraints, ValidationError, model_validator

from advisor.errors import ProfileError, validation_words
from advisor.knowledge.schema import CC, Constraints, Hardware, Id, Os
from advisor.limits import MAX_GPU_NAME, FiniteJudgement, FiniteWeight
from advisor.yamlio import line_of, load_yaml_file, load_yaml_text

_UNION_TAG = re.compile(r"[A-Za-z_][\w.]*\[.*\]")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")  # knowledge.schema.Id's pattern: a framework, criterion, scenario id


def _not_an_id(value: Any) -> str:
    """The sentence for a name written where an id belongs (`PyTorch` for `pytorch`)."""
    text = str(value)
    guess = text.casefold()
    hint = f"; did you mean {guess!r}?" if _ID.fullmatch(guess) else ""
    return f"{text[:48]!r} is not an id: ids are lower-case letters, digits and _{hint}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Experience(StrEnum):
    """How well the team knows a framework."""

    NONE = "none"
    BEGINNER = "beginner"
    INTERMEDIATE = "intermediate"
    EXPERT = "expert"


class CodebaseSize(StrEnum):
    """The size of the code that would have to move (none = greenfield)."""

    NONE = "none"
    SMALL = "small"  # under ~10 kLOC of model/training code
    MEDIUM = "medium"  # ~10-100 kLOC
    LARGE = "large"  # over ~100 kLOC


#: kLOC range a size class stands for, where the profile gives no number (the effort range spans it).
SIZE_KLOC: dict[CodebaseSize, tuple[float, float]] = {
    CodebaseSize.NONE: (0.0, 0.0),
    CodebaseSize.SMALL: (1.0, 10.0),
    CodebaseSize.MEDIUM: (10.0, 100.0),
    CodebaseSize.LARGE: (100.0, 300.0),
}

KLoc = Annotated[float, Field(ge=0, le=100_000, allow_inf_nan=False)]


class Team(_Model):
    """What the team uses and knows today, and how many engineers it has."""

    current: list[Id] = Field(default_factory=list)
    experience: dict[Id, Experience] = Field(default_factory=dict)
    # strict: YAML's `true` is not one engineer
    size: Annotated[int, Field(strict=True, ge=1, le=100_000)] | None = None  # engineers who would do the work
    #: Months over which the team weighs a move (the migration's share of its capacity is taken over this);
    #: at least one: 1e-300 months made every move's cost share astronomically large.
    horizon_months: Annotated[float, Field(ge=1, le=240, allow_inf_nan=False)] = 24.0


class Codebase(_Model):
    """The code that would move: a size class, thousands of lines, or kLOC per incumbent framework."""

    size: CodebaseSize | None = None
    kloc: KLoc | None = None
    by_framework: dict[Id, KLoc] = Field(default_factory=dict)  # kLOC per current framework
    #: Share (0-1) of the TensorFlow code written against tf.keras only (Keras layers, model.fit; no tf.* ops,
    #: custom train_step or GradientTape loop): Keras 3 runs it on another backend (the keras3_backend route).
    keras_share: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] | None = None

    def effective_size(self) -> CodebaseSize:
        """The size class: from the kLOC when given, else `size`, else medium."""
        kloc = self.total_kloc()
        if kloc is not None:
            if kloc == 0:
                return CodebaseSize.NONE
            if kloc < 10:
                return CodebaseSize.SMALL
            return CodebaseSize.MEDIUM if kloc <= 100 else CodebaseSize.LARGE
        return self.size or CodebaseSize.MEDIUM

    def total_kloc(self) -> float | None:
        """All the code in kLOC, where the profile gives numbers (None: a size class only)."""
        if self.by_framework:
            return float(sum(self.by_framework.values()))
        return self.kloc

    def kloc_range(self, framework: str, current: Sequence[str]) -> tuple[float, float]:
        """(low, high) kLOC of `framework`'s code: its own number, an even share of `kloc`, or the size class."""
        if framework in self.by_framework:
            k = self.by_framework[framework]
            return k, k
        if self.kloc is not None:
            share = self.kloc / max(1, len(current))
            return share, share
        lo, hi = SIZE_KLOC[self.size or CodebaseSize.MEDIUM]
        return lo, hi


class FleetEntry(_Model):
    """Hardware the team runs on (the probe adds the GPUs it finds)."""

    hardware: Hardware
    model: Annotated[str, StringConstraints(min_length=1, max_length=MAX_GPU_NAME)] | None = None  # e.g. "V100"
    compute_capability: CC | None = None  # NVIDIA only, e.g. "7.0"
    count: Annotated[int, Field(ge=1, le=1_000_000)] | None = None

    @model_validator(mode="after")
    def _real_compute_capability(self) -> FleetEntry:
        # "0.0" silently excluded every framework with a GPU floor; on a CPU entry it means nothing.
        if self.compute_capability is None:
            return self
        if self.hardware is not Hardware.NVIDIA_CUDA:
            raise ValueError(f"compute_capability is for nvidia_cuda entries, not {self.hardware.value}")
        if int(self.compute_capability.split(".")[0]) < 1:
            raise ValueError(f"compute_capability {self.compute_capability} is no NVIDIA GPU's (the oldest is 1.0)")
        return self


class Environment(_Model):
    """Where the team's code runs: operating systems and the Python version."""

    os: list[Os] = Field(default_factory=list)
    python: Annotated[str, StringConstraints(pattern=r"^3\.\d+$")] | None = None


Judgement = tuple[Id, Id, FiniteJudgement]


class Profile(_Model):
    """A profile as written by the user (or the TUI); see `profile init` for a commented template."""

    scenario: Id | None = None
    team: Team = Team()
    codebase: Codebase = Codebase()
    #: Application domains: a list (equal weight) or {domain: weight}; they weight the per-domain ecosystem facts.
    domains: list[Id] | dict[Id, FiniteWeight] = Field(default_factory=list)
    serving: list[Id] = Field(default_factory=list)  # the serving/deployment stack the team runs today
    environment: Environment = Environment()
    fleet: list[FleetEntry] = Field(default_factory=list)
    frameworks: list[Id] = Field(default_factory=list)  # consider only these (empty: all in the knowledge base)
    weights: dict[Id, FiniteWeight] | None = None  # finite, 0..MAX_WEIGHT (advisor.limits)
    pairwise: list[Judgement] | None = None  # [a, b, x]: criterion a is x times as important as b (Saaty 1-9)
    constraints: Constraints | None = None
    member: Annotated[str, Field(min_length=1, max_length=80)] | None = None  # who this is in `team decide`

    _file: str = PrivateAttr(default="<profile>")
    _raw: Any = PrivateAttr(default=None)

    def where(self, loc: Sequence[str | int]) -> tuple[str, int | None]:
        """(file, line) of a field of this profile, for error messages."""
        return self._file, line_of(self._raw, loc) if self._raw is not None else None

    def fail(self, loc: Sequence[str | int], message: str) -> ProfileError:
        """A `ProfileError` at `loc` in this profile's file."""
        file, line = self.where(loc)
        return ProfileError(message, file=file, line=line, field=field_path(loc) or None)

    def domain_weights(self) -> dict[str, float]:
        """The domains with their weights (a list gives each weight 1)."""
        if isinstance(self.domains, dict):
            return {k: float(v) for k, v in self.domains.items()}
        return {d: 1.0 for d in self.domains}


def field_path(loc: Sequence[str | int]) -> str:
    """`team.experience.jax` / `pairwise[0]` from a location tuple."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_profile(raw: Any, source: str | Path = "<profile>") -> Profile:
    """Validate a parsed YAML/JSON mapping as a profile; errors name file, line and field."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ProfileError("a profile must be a mapping", file=str(source), line=getattr(raw, "line", 1))
    try:
        profile = Profile.model_validate(raw)
    except ValidationError as exc:
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        err = errors[0]
        loc = [
            p
            for p in err["loc"]
            # pydantic's tags for a union member ("list[str]", "function-after[...]") are not the user's keys
            if not (isinstance(p, str) and (p.startswith(("function-", "[")) or _UNION_TAG.fullmatch(p)))
        ]
        msg = validation_words(err)
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "greater_than_equal" and "weights" in loc:
            msg = "a weight must be zero or positive"
        elif err["type"] == "string_pattern_mismatch" and "compute_capability" in loc:
            msg = "a compute capability is MAJOR.MINOR, e.g. 7.0"
        elif err["type"] == "string_pattern_mismatch" and "maintainer_jurisdictions" in loc:
            msg = "a jurisdiction is a two-letter country code (ISO 3166-1), e.g. CN or US"
        elif err["type"] == "string_pattern_mismatch" and loc[-1:] == ["python"]:
            msg = "a Python version is 3 and a minor version, like 3.12"
        elif err["type"] == "string_pattern_mismatch" and err.get("ctx", {}).get("pattern") == _ID.pattern:
            msg = _not_an_id(err["input"])
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ProfileError(
            msg + more, file=str(source), line=line_of(raw, loc), field=field_path(loc) or None
        ) from None
    profile._file = str(source)
    profile._raw = raw
    return profile


def load_profile(path: str | Path) -> Profile:
    """Read a profile file (shape only; `resolve_profile` checks it against the knowledge base)."""
    return parse_profile(load_yaml_file(Path(path), ProfileError), Path(path))


def load_profile_text(text: str, source: str = "<profile>") -> Profile:
    """Parse a profile from YAML text (the TUI and tests)."""
    return parse_profile(load_yaml_text(text, source, ProfileError), source)


def profile_to_json(profile: Profile) -> dict[str, Any]:
    """The profile as written (defaults left out), for reports and `--from-json`."""
    return profile.model_dump(mode="json", exclude_unset=True)


def profile_to_yaml(profile: Profile) -> str:
    """The profile as YAML text (what the TUI saves for reuse); `load_profile` reads it back unchanged."""
    import yaml  # deferred: only saving needs the dumper

    return "# fwadvisor profile\n" + yaml.safe_dump(profile_to_json(profile), sort_keys=False, allow_unicode=True)


def save_profile(profile: Profile, path: str | Path) -> Path:
    """Write `profile` to `path` atomically."""
    from advisor.atomic import atomic_write_text

    return atomic_write_text(path, profile_to_yaml(profile))


def experience_of(profile: Profile, framework: str) -> Experience:
    """The team's experience with `framework` (intermediate for a current framework unless stated)."""
    if framework in profile.team.experience:
        return profile.team.experience[framework]
    return Experience.INTERMEDIATE if framework in profile.team.current else Experience.NONE
