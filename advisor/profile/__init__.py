"""The user's profile: scenario, team, codebase, domains, fleet, environment, weights and hard constraints.

A profile is YAML read through `advisor.yamlio` (line numbers kept) and validated in two steps:
`load_profile` checks its shape (`model`) and `resolve_profile` checks it against the knowledge base and
merges the scenario preset's defaults on the one weight scale (`resolve`). Pairwise judgements become
weights in `ahp`; `template` writes the commented `profile init` file. Every problem is a `ProfileError`
naming file, line and field.
"""

from advisor.profile.ahp import CR_THRESHOLD, RANDOM_INDEX, AhpResult, ahp_weights
from advisor.profile.model import (
    SIZE_KLOC,
    Codebase,
    CodebaseSize,
    Environment,
    Experience,
    FleetEntry,
    Profile,
    Team,
    experience_of,
    load_profile,
    load_profile_text,
    parse_profile,
    profile_to_json,
    profile_to_yaml,
    save_profile,
)
from advisor.profile.resolve import (
    DEFAULT_SCENARIO,
    SWAMPED_SHARE,
    WEIGHT_SCALE_MAX,
    EffectiveWeight,
    ResolvedProfile,
    resolve_profile,
    scaled_preset,
    weights_table,
)
from advisor.profile.template import template

__all__ = [
    "CR_THRESHOLD",
    "DEFAULT_SCENARIO",
    "RANDOM_INDEX",
    "SIZE_KLOC",
    "SWAMPED_SHARE",
    "WEIGHT_SCALE_MAX",
    "AhpResult",
    "Codebase",
    "CodebaseSize",
    "EffectiveWeight",
    "Environment",
    "Experience",
    "FleetEntry",
    "Profile",
    "ResolvedProfile",
    "Team",
    "ahp_weights",
    "experience_of",
    "load_profile",
    "load_profile_text",
    "parse_profile",
    "profile_to_json",
    "profile_to_yaml",
    "resolve_profile",
    "save_profile",
    "scaled_preset",
    "template",
    "weights_table",
]
