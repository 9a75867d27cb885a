"""The merged, validated knowledge base and the queries the rest of the advisor asks of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field, TypeAdapter
from pydantic.dataclasses import dataclass as pydantic_dataclass

from advisor.knowledge.schema import (
    Concept,
    Criterion,
    DeploymentTarget,
    Domain,
    Engine,
    Framework,
    Hardware,
    Migration,
    Onboarding,
    Policy,
    Route,
    Scenario,
    ServingStack,
    Stewardship,
    Support,
)


@dataclass(frozen=True)
class Origin:
    """Where an entry came from: file, line, and the raw mapping (for field lines)."""

    file: str
    line: int | None
    raw: Any = field(default=None, repr=False, compare=False)

    def where(self) -> str:
        """`file:line` for messages."""
        return f"{self.file}:{self.line}" if self.line else self.file


@pydantic_dataclass(frozen=True)
class PackInfo:
    """A knowledge pack that was loaded (reports and checklists list them; its path is never serialized)."""

    name: str
    version: str
    # A folder of the user's: shown only where asked (`kb list`), scrubbed there.
    path: Annotated[str, Field(exclude=True)]
    builtin: bool
    digest: str


_PACK = TypeAdapter(PackInfo)


def pack_json(pack: PackInfo) -> dict[str, Any]:
    """The pack as JSON (name, version, builtin, digest; never its path)."""
    data: dict[str, Any] = _PACK.dump_python(pack, mode="json")
    return data


@dataclass(frozen=True)
class KnowledgeBase:
    """Everything the advisor knows, merged from all packs and cross-checked."""

    packs: tuple[PackInfo, ...]
    frameworks: dict[str, Framework]
    criteria: dict[str, Criterion]
    concepts: dict[str, Concept]
    concept_sources: tuple[str, ...]
    migrations: dict[tuple[str, str], Migration]
    onboarding: dict[str, Onboarding]
    targets: dict[str, DeploymentTarget]
    routes: dict[tuple[str, str], Route]
    engines: dict[str, Engine]
    scenarios: dict[str, Scenario]
    policies: dict[str, Policy]
    origins: dict[tuple[str, str], str] = field(default_factory=dict)
    domains: dict[str, Domain] = field(default_factory=dict)
    stewardship: dict[str, Stewardship] = field(default_factory=dict)  # by framework id
    serving: dict[str, ServingStack] = field(default_factory=dict)

    @property
    def version(self) -> str:
        """The shipped base's version (packs are listed separately)."""
        return self.packs[0].version if self.packs else "unknown"

    def hardware_support(self, framework: str, hw: Hardware) -> Support:
        """How `framework` supports `hw`; UNKNOWN where the base says nothing."""
        entry = self.frameworks[framework].hardware.get(hw)
        return entry.status if entry else Support.UNKNOWN

    def route(self, framework: str, target: str) -> Route | None:
        """The deployment route of `framework` to `target`, if the base knows one."""
        return self.routes.get((target, framework))

    def concept_mapping(self, src: str, dst: str) -> list[tuple[Concept, str, str]]:
        """(concept, term in src, term in dst) for every concept both frameworks name."""
        rows = []
        for concept in self.concepts.values():
            if src in concept.terms and dst in concept.terms:
                rows.append((concept, concept.terms[src], concept.terms[dst]))
        return rows


    def domain_score(self, domain: str, framework: str) -> float | None:
        """The ecosystem score of `framework` in `domain`; None where the base has no fact."""
        entry = self.domains.get(domain)
        fact = entry.ecosystem.get(framework) if entry else None
        return fact.score if fact else None
