"""Every fact of a knowledge model, found by walking it: its field path, its kind and the model that states it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum, StrEnum

from pydantic import BaseModel

from advisor.knowledge.schema import (
    DistributionClaim,
    Engine,
    Framework,
    GenerationSupport,
    GpuFloor,
    HardwareSupport,
    InstallClaim,
    Migration,
    MigrationVia,
    PlatformNote,
    Route,
    Score,
    ServingStack,
    Stewardship,
)
from advisor.knowledge.tiers import TierFact

Path = tuple[str | int, ...]


class FactKind(StrEnum):
    """What a fact is about; it decides the fact's review interval and whether it must quote its sources."""

    SCORE = "score"  # a 0-5 score (general, per backend, per domain, an overlay's override)
    HARDWARE = "hardware"  # a backend route or chip generation: vendor SDKs move monthly
    ENGINE = "engine"  # a serving engine's state and the frameworks it takes
    ROUTE = "route"  # how a framework reaches a deployment target
    PLATFORM = "platform"  # native support per operating system
    FLOOR = "floor"  # the oldest GPU generation current wheels support
    PACKAGE = "package"  # a distribution's latest release, wheels, an install line's resolution (`kb verify`)
    FRAMEWORK = "framework"  # a framework's licence, maintainer, stable line, Python versions
    GOVERNANCE = "governance"  # who maintains a framework and under which jurisdiction
    MIGRATION = "migration"  # the cost of moving from one framework to another
    SERVING = "serving"  # a serving stack and the frameworks it takes natively
    TIER = "tier"  # who ships a hardware route: the framework's team, a vendor's plugin, a third party


#: The kind of each fact model. Prose (compiler and distributed stories, pitfalls) is not listed: it is
#: explanation, not a fact a recommendation turns on.
KIND_OF: dict[type[BaseModel], FactKind] = {
    Score: FactKind.SCORE,
    HardwareSupport: FactKind.HARDWARE,
    GenerationSupport: FactKind.HARDWARE,
    Engine: FactKind.ENGINE,
    Route: FactKind.ROUTE,
    PlatformNote: FactKind.PLATFORM,
    GpuFloor: FactKind.FLOOR,
    DistributionClaim: FactKind.PACKAGE,
    InstallClaim: FactKind.PACKAGE,
    Framework: FactKind.FRAMEWORK,
    Stewardship: FactKind.GOVERNANCE,
    Migration: FactKind.MIGRATION,
    MigrationVia: FactKind.MIGRATION,  # a cheaper route's own cost class, read and scored apart
    ServingStack: FactKind.SERVING,
    TierFact: FactKind.TIER,
}


@dataclass(frozen=True)
class FactAt:
    """One fact inside a model: where (field path from the model's root), what kind, and the fact itself."""

    path: Path
    kind: FactKind
    fact: BaseModel


def field_path(path: Path) -> str:
    """`hardware.google_tpu.generations.v5e`, `routes[3]`: the form errors and listings use."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def iter_facts(model: BaseModel, path: Path = ()) -> Iterator[FactAt]:
    """Every fact in `model` (itself included), depth first, in file order."""
    kind = KIND_OF.get(type(model))
    if kind is not None:
        yield FactAt(path, kind, model)
    for name, info in type(model).model_fields.items():
        key = info.alias or name
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            yield from iter_facts(value, (*path, key))
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, BaseModel):
                    yield from iter_facts(v, (*path, key, k.value if isinstance(k, Enum) else str(k)))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                if isinstance(v, BaseModel):
                    yield from iter_facts(v, (*path, key, i))
