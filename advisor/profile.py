"""The user's profile: scenario, team, codebase, weights (direct or pairwise/AHP) and hard constraints.

A profile is YAML read through `advisor.yamlio` (line numbers kept) and validated in two steps:
`load_profile` checks its shape (unknown keys, types, negative weights) and `resolve_profile`
checks it against the knowledge base (criteria, frameworks, targets, scenario) and merges the
scenario preset's defaults. Every problem is a `ProfileError` naming file, line and field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from advisor.errors import ProfileError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Constraints, Hardware, Id
from advisor.limits import FiniteJudgement, FiniteSize, FiniteWeight
from advisor.yamlio import line_of, load_yaml_file, load_yaml_text

#: The scenario used when a profile names none and gives no weights of its own.
DEFAULT_SCENARIO = "generic"

#: Saaty's random consistency index RI(n) for n = 1..15 (Saaty 1980, table 1.7).
RANDOM_INDEX = (0.0, 0.0, 0.0, 0.58, 0.90, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49, 1.51, 1.48, 1.56, 1.57, 1.59)
#: Saaty's threshold: a consistency ratio above 0.1 means the judgements should be revisited.
CR_THRESHOLD = 0.10


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


class Team(_Model):
    """What the team uses and knows today."""

    current: list[Id] = Field(default_factory=list)
    experience: dict[Id, Experience] = Field(default_factory=dict)


class Codebase(_Model):
    """The code to migrate: a size class, or thousands of lines (which sets the class)."""

    size: CodebaseSize | None = None
    kloc: FiniteSize | None = None

    def effective_size(self) -> CodebaseSize:
        """The size class: from `kloc` when given, else `size`, else medium."""
        if self.kloc is not None:
            if self.kloc == 0:
                return CodebaseSize.NONE
            if self.kloc < 10:
                return CodebaseSize.SMALL
            return CodebaseSize.MEDIUM if self.kloc <= 100 else CodebaseSize.LARGE
        return self.size or CodebaseSize.MEDIUM


Judgement = tuple[Id, Id, FiniteJudgement]


class Profile(_Model):
    """A profile as written by the user (or the TUI); see `profile init` for a commented template."""

    scenario: Id | None = None
    team: Team = Team()
    codebase: Codebase = Codebase()
    frameworks: list[Id] = Field(default_factory=list)  # consider only these (empty: all in the knowledge base)
    weights: dict[Id, FiniteWeight] | None = None  # finite, 0..MAX_WEIGHT (advisor.limits)
    pairwise: list[Judgement] | None = None  # [a, b, x]: criterion a is x times as important as b (Saaty 1-9)
    constraints: Constraints | None = None

    _file: str = PrivateAttr(default="<profile>")
    _raw: Any = PrivateAttr(default=None)

    def where(self, loc: Sequence[str | int]) -> tuple[str, int | None]:
        """(file, line) of a field of this profile, for error messages."""
        return self._file, line_of(self._raw, loc) if self._raw is not None else None

    def fail(self, loc: Sequence[str | int], message: str) -> ProfileError:
        """A `ProfileError` at `loc` in this profile's file."""
        file, line = self.where(loc)
        return ProfileError(message, file=file, line=line, field=_field_path(loc) or None)


def _field_path(loc: Sequence[str | int]) -> str:
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
        loc = [p for p in err["loc"] if not (isinstance(p, str) and (p.startswith("function-") or p.startswith("[")))]
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "greater_than_equal" and "weights" in loc:
            msg = "a weight must be zero or positive"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ProfileError(
            msg + more, file=str(source), line=line_of(raw, loc), field=_field_path(loc) or None
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


@dataclass(frozen=True)
class AhpResult:
    """Weights derived from pairwise judgements, with Saaty's consistency figures."""

    weights: dict[str, float]
    lambda_max: float
    consistency_index: float
    consistency_ratio: float | None  # None where n < 3 (always consistent)
    missing_pairs: int  # judgements not given (Harker's method fills them in)


def ahp_weights(judgements: Sequence[tuple[str, str, float]]) -> AhpResult:
    """Principal-eigenvector weights of a (possibly incomplete) pairwise comparison matrix.

    Saaty (1980) for the complete case; Harker (1987) for missing judgements: an absent a_ij is
    set to 0 and a_ii to 1 + the number of absent entries in row i, which keeps the eigenvector
    the least-distorted completion. Raises ValueError on contradictions (a pair given twice) or
    when the judgements do not connect all criteria.
    """
    names: list[str] = []
    for a, b, _ in judgements:
        for c in (a, b):
            if c not in names:
                names.append(c)
    n = len(names)
    idx = {c: i for i, c in enumerate(names)}
    matrix = np.zeros((n, n))
    given = np.eye(n, dtype=bool)
    for a, b, x in judgements:
        i, j = idx[a], idx[b]
        if i == j:
            raise ValueError(f"criterion {a!r} compared with itself")
        if given[i, j]:
            raise ValueError(f"the pair {a!r}/{b!r} is judged more than once")
        matrix[i, j], matrix[j, i] = x, 1.0 / x
        given[i, j] = given[j, i] = True
    missing = (~given).sum(axis=1)
    np.fill_diagonal(matrix, 1.0 + missing)
    # Connectivity: every criterion must be reachable through judgements, else weights are undefined.
    seen, stack = {0}, [0]
    while stack:
        row = stack.pop()
        for col in (int(c) for c in np.nonzero(given[row])[0]):
            if col not in seen:
                seen.add(col)
                stack.append(col)
    if len(seen) != n:
        apart = sorted(names[i] for i in range(n) if i not in seen)
        raise ValueError(f"the judgements do not link {', '.join(apart)} to the other criteria")
    values, vectors = np.linalg.eig(matrix)
    k = int(np.argmax(values.real))
    vec = np.abs(vectors[:, k].real)
    vec = vec / vec.sum()
    lam = float(values[k].real)
    ci = (lam - n) / (n - 1) if n > 1 else 0.0
    ri = RANDOM_INDEX[n] if n < len(RANDOM_INDEX) else RANDOM_INDEX[-1]
    cr = ci / ri if ri > 0 else None
    return AhpResult(
        weights={c: float(vec[idx[c]]) for c in names},
        lambda_max=lam,
        consistency_index=ci,
        consistency_ratio=cr,
        missing_pairs=int(missing.sum() // 2),
    )


@dataclass(frozen=True)
class ResolvedProfile:
    """A profile checked against the knowledge base, with the scenario's defaults merged in."""

    profile: Profile
    scenario: str | None
    weights: dict[str, float]  # raw weights, every criterion present (0 where not weighted)
    weight_source: str  # "profile", "scenario", "scenario+profile", "pairwise" or "equal"
    constraints: Constraints
    policies: tuple[str, ...]  # ids of overlay-pack policies whose constraints were added
    frameworks: tuple[str, ...]  # the frameworks to consider
    ahp: AhpResult | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def normalized_weights(self) -> dict[str, float]:
        """Weights that sum to 1."""
        total = math.fsum(self.weights.values())
        return {k: v / total for k, v in self.weights.items()}


def _merge_constraints(base: Constraints, override: Constraints | None) -> Constraints:
    # A list the profile sets replaces the scenario's; a list it leaves out keeps the scenario's.
    if override is None:
        return base
    data = base.model_dump()
    for key in override.model_fields_set:
        data[key] = getattr(override, key)
    return Constraints.model_validate(data)


def resolve_profile(profile: Profile, kb: KnowledgeBase, *, scenario: str | None = None) -> ResolvedProfile:
    """Check `profile` against `kb` and merge defaults; `scenario` (e.g. `--scenario`) overrides the file's."""
    criteria = list(kb.criteria)
    warnings: list[str] = []

    def check_fw(loc: Sequence[str | int], fid: str) -> None:
        if fid not in kb.frameworks:
            raise profile.fail(loc, f"unknown framework {fid!r}; known: {', '.join(kb.frameworks)}")

    scenario_id = scenario or profile.scenario
    if scenario_id is not None and scenario_id not in kb.scenarios:
        known = ", ".join(kb.scenarios) or "none"
        if scenario is not None:
            raise ProfileError(f"unknown scenario {scenario_id!r}; known: {known}", field="--scenario")
        raise profile.fail(("scenario",), f"unknown scenario {scenario_id!r}; known: {known}")
    if scenario_id is None and profile.weights is None and profile.pairwise is None:
        if DEFAULT_SCENARIO in kb.scenarios:
            scenario_id = DEFAULT_SCENARIO
    preset = kb.scenarios.get(scenario_id) if scenario_id else None

    for i, fid in enumerate(profile.team.current):
        check_fw(("team", "current", i), fid)
    for fid in profile.team.experience:
        check_fw(("team", "experience", fid), fid)
    for i, fid in enumerate(profile.frameworks):
        check_fw(("frameworks", i), fid)
    if profile.weights is not None:
        for cid in profile.weights:
            if cid not in kb.criteria:
                raise profile.fail(("weights", cid), f"unknown criterion {cid!r}; known: {', '.join(criteria)}")
    if profile.weights is not None and profile.pairwise is not None:
        raise profile.fail(("pairwise",), "give either weights or pairwise judgements, not both")

    ahp: AhpResult | None = None
    if profile.pairwise is not None:
        if not profile.pairwise:
            raise profile.fail(("pairwise",), "pairwise needs at least one judgement [a, b, x]")
        for i, (a, b, _x) in enumerate(profile.pairwise):
            for j, cid in enumerate((a, b)):
                if cid not in kb.criteria:
                    raise profile.fail(("pairwise", i, j), f"unknown criterion {cid!r}; known: {', '.join(criteria)}")
        try:
            ahp = ahp_weights(profile.pairwise)
        except ValueError as exc:
            raise profile.fail(("pairwise",), str(exc)) from None
        if ahp.consistency_ratio is not None and ahp.consistency_ratio > CR_THRESHOLD:
            warnings.append(
                f"pairwise judgements are inconsistent (consistency ratio {ahp.consistency_ratio:.2f} > "
                f"{CR_THRESHOLD}); the derived weights may not reflect your intent"
            )
        weights = {c: ahp.weights.get(c, 0.0) for c in criteria}
        source = "pairwise"
    elif profile.weights is not None:
        base = dict(preset.weights) if preset else {}
        weights = {c: float(profile.weights.get(c, base.get(c, 0.0))) for c in criteria}
        source = "scenario+profile" if preset else "profile"
    elif preset is not None:
        weights = {c: float(preset.weights.get(c, 0.0)) for c in criteria}
        source = "scenario"
    else:
        weights = {c: 1.0 for c in criteria}
        source = "equal"
        warnings.append(f"no scenario {DEFAULT_SCENARIO!r} in the knowledge base and no weights: equal weights used")
    if not any(w > 0 for w in weights.values()):
        loc = ("weights",) if profile.weights is not None else ("scenario",)
        raise profile.fail(loc, "at least one weight must be positive")

    constraints = _merge_constraints(preset.constraints if preset else Constraints(), profile.constraints)
    if profile.constraints is not None:
        for i, tid in enumerate(profile.constraints.must_deploy_to):
            if tid not in kb.targets:
                known = ", ".join(kb.targets) or "none"
                raise profile.fail(
                    ("constraints", "must_deploy_to", i), f"unknown deployment target {tid!r}; known: {known}"
                )
        for i, fid in enumerate(profile.constraints.exclude):
            check_fw(("constraints", "exclude", i), fid)
    policies = tuple(kb.policies)
    frameworks = tuple(profile.frameworks) if profile.frameworks else tuple(kb.frameworks)
    return ResolvedProfile(
        profile=profile,
        scenario=scenario_id,
        weights=weights,
        weight_source=source,
        constraints=constraints,
        policies=policies,
        frameworks=frameworks,
        ahp=ahp,
        warnings=warnings,
    )


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


def template(kb: KnowledgeBase, scenario: str | None = None) -> str:
    """A commented profile template for `profile init`; it loads and resolves as it stands."""
    if scenario is not None and scenario not in kb.scenarios:
        raise ProfileError(
            f"unknown scenario {scenario!r}; known: {', '.join(kb.scenarios) or 'none'}", field="--scenario"
        )
    chosen = scenario or (DEFAULT_SCENARIO if DEFAULT_SCENARIO in kb.scenarios else None)
    preset = kb.scenarios.get(chosen) if chosen else None
    lines = [
        "# fwadvisor profile: your answers to the evaluation matrix.",
        "# Check it with `fwadvisor profile check FILE`; use it with `fwadvisor report --profile FILE`.",
        "",
        "# A scenario preset sets default weights and constraints; the keys below override it.",
        "# Presets: " + (", ".join(kb.scenarios) or "(none in this knowledge base)"),
        f"scenario: {chosen}" if chosen else "# scenario: <id>",
        "",
        "# The team's frameworks today (migration cost is measured from these) and what it knows.",
        "# Experience levels: none, beginner, intermediate, expert.",
        "team:",
        "  current: []        # e.g. [pytorch]",
        "  experience: {}     # e.g. {pytorch: expert, jax: beginner}",
        "",
        "# The code that would move: size none (greenfield), small (<10 kLOC), medium, large (>100 kLOC),",
        "# or `kloc: 40` instead.",
        "codebase:",
        "  size: medium",
        "",
        "# Consider only these frameworks (empty: every framework in the knowledge base):",
        "# " + ", ".join(kb.frameworks),
        "frameworks: []",
        "",
        "# Relative importance of each criterion (any non-negative numbers; they are normalised).",
        "# Criteria you leave out keep the scenario's weight"
        + (" (shown here)." if preset else " (or 0 with no scenario)."),
        "# Instead of weights you may give pairwise judgements (AHP, Saaty's 1-9 scale):",
        "#   pairwise:",
        "#     - [performance, ecosystem, 3]   # performance is 3x as important as ecosystem",
        "weights:",
    ]
    for cid, crit in kb.criteria.items():
        w = preset.weights.get(cid, 0.0) if preset else 1.0
        lines.append(f"  {cid}: {w:g}    # {crit.name}")
    cons = preset.constraints if preset else Constraints()
    hw = ", ".join(h.value for h in Hardware)
    lines += [
        "",
        "# Hard constraints: a framework that cannot meet one is excluded, with the reason.",
        "constraints:",
        f"  must_run_on: {_flow(c.value for c in cons.must_run_on)}    # hardware: {hw}",
        f"  must_deploy_to: {_flow(cons.must_deploy_to)}    # targets: {', '.join(kb.targets) or 'none known'}",
        f"  licenses: {_flow(cons.licenses)}    # allowed licences (SPDX ids); empty: any",
        f"  exclude: {_flow(cons.exclude)}    # frameworks ruled out by policy",
        "",
    ]
    return "\n".join(lines)


def _flow(items: Any) -> str:
    return "[" + ", ".join(str(i) for i in items) + "]"


def experience_of(profile: Profile, framework: str) -> Experience:
    """The team's experience with `framework` (intermediate for a current framework unless stated)."""
    if framework in profile.team.experience:
        return profile.team.experience[framework]
    return Experience.INTERMEDIATE if framework in profile.team.current else Experience.NONE


def weights_table(weights: Mapping[str, float]) -> dict[str, float]:
    """Normalised copy of `weights` (sum 1), for display."""
    total = math.fsum(weights.values())
    return {k: v / total for k, v in weights.items()} if total > 0 else dict(weights)
