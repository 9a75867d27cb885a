"""Typed schema of the knowledge base (pydantic models); the JSON Schema in docs/ is generated from it.

Every scored fact is a `Score`: a 0-5 value with a rationale, at least one source and an as-of date.
Other facts carry `sources` at the level of the section they belong to. A source is a `Source`: its URL
(or Package URL), the verbatim excerpt that supports the fact, and the source's own date; a bare string
is read as a source without a quote yet. A fact that no source states outright says `basis: judgement`
and carries its reasoning in its rationale or notes. "unknown" is a first-class answer wherever a fact
could not be verified.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field, StringConstraints

# The shared building blocks live in `sourcing`; they are re-exported here, where the models always were.
from advisor.knowledge.sourcing import MAX_QUOTE_CHARS as MAX_QUOTE_CHARS
from advisor.knowledge.sourcing import Basis as Basis
from advisor.knowledge.sourcing import Id as Id
from advisor.knowledge.sourcing import Model as Model
from advisor.knowledge.sourcing import Purl as Purl
from advisor.knowledge.sourcing import Quote as Quote
from advisor.knowledge.sourcing import Source as Source
from advisor.knowledge.sourcing import Sources as Sources
from advisor.knowledge.sourcing import Text as Text
from advisor.knowledge.sourcing import Url as Url
from advisor.knowledge.tiers import TierFact
from advisor.limits import FiniteWeight


class Support(StrEnum):
    """How well a framework supports a hardware backend or deployment route."""

    SUPPORTED = "supported"  # first-party, documented, released
    PREVIEW = "preview"  # first-party but experimental / beta / nightly only
    COMMUNITY = "community"  # works through a third-party or vendor plugin
    DEPRECATED = "deprecated"  # exists but is in maintenance or being removed
    NONE = "none"  # no route
    UNKNOWN = "unknown"  # could not be verified

    @property
    def usable(self) -> bool:
        """Whether a hard constraint can be met through this route."""
        return self in (Support.SUPPORTED, Support.PREVIEW, Support.COMMUNITY)


class Hardware(StrEnum):
    """Hardware backends the advisor knows about (ids used in constraints and probes)."""

    CPU = "cpu"
    NVIDIA_CUDA = "nvidia_cuda"
    AMD_ROCM = "amd_rocm"
    GOOGLE_TPU = "google_tpu"
    APPLE_METAL = "apple_metal"
    HUAWEI_ASCEND = "huawei_ascend"
    INTEL_GPU = "intel_gpu"
    AWS_NEURON = "aws_neuron"  # AWS Trainium and Inferentia through the Neuron SDK
    #: NVIDIA Jetson modules (aarch64, JetPack, integrated GPU): an edge device, not a CUDA server; the
    #: wheels that run there are NVIDIA's JetPack builds, not PyPI's CUDA wheels.
    NVIDIA_JETSON = "nvidia_jetson"


class OperatingSystem(StrEnum):
    """Operating systems a framework's own packages are described for (`Framework.platforms`)."""

    LINUX = "linux"
    WINDOWS = "windows"
    MACOS = "macos"


class GenerationSupport(Model):
    """Support for one chip generation of a backend (e.g. TPU v5e or TPU7x, Trainium2), where it differs."""

    status: Support
    notes: Text | None = None
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date


class PlatformNote(Model):
    """How a framework runs on one operating system: native CPU, GPU acceleration there, WSL2."""

    native: Support  # the framework's own packages install and run natively on this OS (CPU at least)
    gpu: Text  # which GPU acceleration works natively on this OS, or "none"
    wsl2: Support | None = None  # Windows only: the Linux packages (and CUDA) under WSL2
    notes: Text | None = None
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date


class HardwareSupport(Model):
    """Support for one hardware backend, with how it is installed and where that is documented."""

    status: Support
    notes: Text | None = None
    install: str | None = None  # e.g. "pip install torch --index-url https://download.pytorch.org/whl/cu128"
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date | None = None  # absent: the framework file's as_of
    #: Criterion scores on THIS backend, by criterion id, where they differ from the framework's general
    #: score (e.g. PyTorch's performance through MPS on Apple silicon, or MLX's fit there); scoring uses
    #: them in place of the general score when the team's hardware is this backend.
    scores: dict[Id, Score] = Field(default_factory=dict)
    #: Support per chip generation, by generation id (`v4`, `v5e`, `v5p`, `v6e`, `tpu7x`; `inf2`, `trn1`,
    #: `trn2`, `trn3`): a generation can lack a framework the backend as a whole supports (TensorFlow on TPU7x).
    generations: dict[Id, GenerationSupport] = Field(default_factory=dict)
    #: Who ships the route (native, plugin, community), quoted; absent: unknown. Hardware fit on the team's
    #: hardware caps the route by its tier (`advisor.knowledge.tiers.TIER_CAP`).
    tier: TierFact | None = None


class Score(Model):
    """A scored fact: 0 (worst) to 5 (best) on one criterion, with why, where from and when."""

    score: Annotated[float, Field(ge=0, le=5)]
    rationale: Text
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date
    review_days: Annotated[int, Field(ge=1)] | None = None  # overrides the default review interval


class Story(Model):
    """A prose fact (compiler story, distributed story) with its sources."""

    summary: Text
    apis: list[str] = Field(default_factory=list)
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes


class Link(Model):
    """A named link: a library, tool or learning resource."""

    name: Text
    url: Url
    purpose: str | None = None


class WheelPlatform(StrEnum):
    """Where a wheel installs, as `kb verify` asks pip for it (see advisor/knowledge/verify/targets.py)."""

    ANY = "any"  # a pure-Python wheel (py3-none-any)
    LINUX_X86_64 = "linux_x86_64"  # manylinux (glibc), x86-64
    LINUX_AARCH64 = "linux_aarch64"
    MACOS_ARM64 = "macos_arm64"
    MACOS_X86_64 = "macos_x86_64"
    WINDOWS_AMD64 = "windows_amd64"


#: A wheel's Python tag as a claim: `cp313` (CPython 3.13, its own ABI or abi3), `cp313t` (the
#: free-threaded build's ABI), `py3` (pure Python; checked at the lowest Python Requires-Python allows).
PythonTag = Annotated[str, StringConstraints(pattern=r"^(py3|cp3\d{1,2}t?)$")]
Version = Annotated[str, StringConstraints(pattern=r"^[0-9][A-Za-z0-9.+!_-]*$", max_length=64)]


class DistributionClaim(Model):
    """What the base claims about one pip distribution: its latest release and where its wheels install."""

    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=100)]
    latest: Version  # the newest final release on the index
    #: As in the wheel's metadata; null where the wheel declares none.
    requires_python: Annotated[str, StringConstraints(min_length=1, max_length=100)] | None
    #: Python tags with a wheel at `latest`, per platform; an empty list claims that no wheel exists there.
    wheels: dict[WheelPlatform, list[PythonTag]] = Field(min_length=1)
    sources: Sources  # the Package URL (`pkg:pypi/NAME`) at least
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date
    review_days: Annotated[int, Field(ge=1)] | None = None  # overrides the package review interval


class InstallClaim(Model):
    """An install line in the knowledge and the versions it resolves to on one platform and Python."""

    line: Text  # exactly as written in the knowledge (e.g. a `hardware.*.install` line)
    platform: WheelPlatform
    python: PythonTag
    resolves: dict[str, Version] = Field(min_length=1)  # distribution -> the version the line installs
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date


class PackageClaims(Model):
    """A framework's machine-checkable package facts (`fwadvisor kb verify` checks them through pip)."""

    distributions: list[DistributionClaim] = Field(min_length=1)
    installs: list[InstallClaim] = Field(default_factory=list)


class Framework(Model):
    """One framework and its verified facts."""

    id: Id
    name: Text
    kind: Annotated[str, StringConstraints(pattern=r"^(framework|multi_backend)$")] = "framework"
    maintainer: Text
    governance: Text
    license: Text  # an SPDX expression of the framework's own licence, e.g. "BSD-3-Clause"
    stable_version: Text  # the current stable release line, e.g. "2.9"
    python_versions: list[Annotated[str, StringConstraints(pattern=r"^3\.\d+$")]]
    distributions: list[str] = Field(default_factory=list)  # pip distribution names
    hardware: dict[Hardware, HardwareSupport]
    #: Native support per operating system (Windows native vs WSL2, GPU on Windows and macOS).
    platforms: dict[OperatingSystem, PlatformNote] = Field(default_factory=dict)
    compiler: Story
    distributed: Story
    export: list[Link] = Field(default_factory=list)
    libraries: list[Link] = Field(default_factory=list)
    learning: list[Link] = Field(default_factory=list)
    scores: dict[Id, Score]
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date
    packages: PackageClaims | None = None  # checked against the package index by `kb verify`


class Criterion(Model):
    """One dimension of the evaluation matrix."""

    id: Id
    name: Text
    description: Text
    scale: dict[Annotated[int, Field(ge=0, le=5)], Text]  # must at least explain 0 and 5
    # Measured evidence that may be blended into this criterion's knowledge score.
    evidence: Annotated[str, StringConstraints(pattern=r"^(none|benchmark|hardware|migration|serving)$")] = "none"


class CriteriaFile(Model):
    """`criteria.yaml`."""

    criteria: list[Criterion]


class Concept(Model):
    """One concept and its name in each framework (the source of every from->to concept mapping)."""

    id: Id
    name: Text
    terms: dict[Id, str]  # framework id -> idiom; "-" where the framework has no counterpart
    note: str | None = None


class ConceptsFile(Model):
    """`concepts.yaml`."""

    concepts: list[Concept]
    sources: Sources


class Cost(StrEnum):
    """How expensive a migration is."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    VERY_HIGH = "very_high"


class RouteCode(StrEnum):
    """A named migration route that is cheaper than the pair's rewrite for the code it covers."""

    #: tf.keras code run by Keras 3 on the target's backend (tf.keras is Keras 3 since TensorFlow 2.16).
    KERAS3_BACKEND = "keras3_backend"


class MigrationVia(Model):
    """A cheaper route for part of the code: its cost class for the code it covers (the rest is the pair's)."""

    route: RouteCode
    through: Id  # the framework the code runs through (keras: Keras 3 on the target's backend)
    cost: Cost  # difficulty class for the code the route covers
    covers: Text  # which code; the profile states its share (`codebase.keras_share`)
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: its cost class is inferred, with the reasoning in covers
    as_of: dt.date


class Migration(Model):
    """Moving a codebase and a team from one framework to another."""

    from_: Id = Field(alias="from")
    to: Id
    cost: Cost
    via: MigrationVia | None = None  # a cheaper route for part of the code (e.g. Keras 3 on the target)
    drivers: list[Text] = Field(min_length=1)
    tools: list[Link] = Field(default_factory=list)
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Pitfall(Model):
    """A trap that bites newcomers to a framework, and the idiomatic replacement."""

    id: Id
    title: Text
    detail: Text
    instead: Text
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes


class Onboarding(Model):
    """What a newcomer to one framework needs: pitfalls, tooling and first tasks."""

    framework: Id
    verify: Text  # a Python snippet that proves the framework computes on its device
    pitfalls: list[Pitfall]
    tooling: dict[Id, list[Link]]  # profiler, checkpointing, data, tracking, testing, ...


class MigrationFile(Model):
    """`migration.yaml`."""

    migrations: list[Migration]
    onboarding: list[Onboarding] = Field(default_factory=list)


class DeploymentTarget(Model):
    """A place a model has to run after training."""

    id: Id
    name: Text
    description: Text


class Route(Model):
    """How one framework reaches one deployment target."""

    target: Id
    framework: Id
    route: Text
    status: Support
    notes: str | None = None
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date
    #: Who ships the route's last step onto the target: native (the framework's own runtime), plugin (the
    #: target vendor's converter, runtime or delegate, e.g. Rockchip's RKNN-Toolkit2), community (neither);
    #: absent: unknown. Board targets carry it, since the same exported model meets a different vendor stack.
    tier: TierFact | None = None


class EngineFeed(Model):
    """How models from one framework reach an inference engine."""

    status: Support
    route: Text  # e.g. "Hugging Face checkpoint (safetensors) loaded by the engine's PyTorch model code"


class Engine(Model):
    """An LLM serving or local-inference engine teams choose between (vLLM, llama.cpp, ...)."""

    id: Id
    name: Text
    kind: Annotated[str, StringConstraints(pattern=r"^(server|local|on_device)$")]  # where it is used
    status: Support  # the engine's own state: supported (maintained), deprecated (maintenance mode), ...
    targets: list[Id] = Field(min_length=1)  # deployment target ids it serves
    hardware: list[Hardware] = Field(default_factory=list)  # backends it runs on
    model_format: Text  # what it loads (Hugging Face safetensors, GGUF, ONNX, .litertlm, ...)
    feeds: dict[Id, EngineFeed]  # framework id -> how that framework's models get there
    notes: Text | None = None
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date


class DeploymentFile(Model):
    """`deployment.yaml`."""

    targets: list[DeploymentTarget]
    routes: list[Route]
    engines: list[Engine] = Field(default_factory=list)


def _assigned_country(code: str) -> str:
    if code == "AA" or code == "ZZ" or "QM" <= code <= "QZ" or (code[0] == "X" and code != "XK"):
        raise ValueError(f"{code} is a user-assigned ISO 3166 code, not a country")
    return code


#: An ISO 3166-1 alpha-2 country code (the jurisdiction a maintainer is subject to), e.g. "US", "CN"; the
#: user-assigned codes (AA, QM-QZ, XA-XZ but Kosovo's XK, ZZ) name no country.
Country = Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$"), AfterValidator(lambda c: _assigned_country(c))]
#: An SPDX licence id (letters, digits, '.', '-', an optional '+'; LicenseRef-... too): "" or "(" matched nothing
#: and so excluded every framework.
SpdxId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9.-]*\+?$", max_length=64)]


class Constraints(Model):
    """Hard constraints: a framework that cannot meet one is excluded."""

    must_run_on: list[Hardware] = Field(default_factory=list)
    must_deploy_to: list[Id] = Field(default_factory=list)
    licenses: list[SpdxId] = Field(default_factory=list)  # allowed licences (SPDX ids); empty = any
    exclude: list[Id] = Field(default_factory=list)  # frameworks ruled out by policy
    #: Sovereignty: the maintainer's jurisdiction must be one of these (empty = any), e.g. [CN] for "domestic stack".
    maintainer_jurisdictions: list[Country] = Field(default_factory=list)
    #: One model code base must run under several frameworks' backends (e.g. a library for JAX, PyTorch and TF users).
    multi_backend: bool = False


class Scenario(Model):
    """A preset that sets default weights and constraints."""

    id: Id
    name: Text
    description: Text
    weights: dict[Id, FiniteWeight]  # finite, 0..MAX_WEIGHT (advisor.limits)
    constraints: Constraints = Constraints()
    #: The application domains the description names (domains.yaml ids); a profile's own domains replace them.
    domains: list[Id] = Field(default_factory=list)


class ScenariosFile(Model):
    """`scenarios.yaml`."""

    scenarios: list[Scenario]


class Policy(Model):
    """An organisation's standing rule from an overlay pack, applied to every profile."""

    id: Id
    description: Text
    constraints: Constraints


class ScoreOverride(Model):
    """An overlay pack's replacement for one framework's score on one criterion."""

    framework: Id
    criterion: Id
    score: Score


class PackFile(Model):
    """`pack.yaml`: a pack's name and version, and (in overlay packs) policies and score overrides."""

    name: Text
    version: Text
    description: str | None = None
    policies: list[Policy] = Field(default_factory=list)
    score_overrides: list[ScoreOverride] = Field(default_factory=list)


class Domain(Model):
    """An application domain and each framework's ecosystem in it (libraries, checkpoints, serving engines)."""

    id: Id
    name: Text
    description: Text
    #: framework id -> ecosystem score in this domain (0-5, same scale as the `ecosystem` criterion).
    ecosystem: dict[Id, Score]


class DomainsFile(Model):
    """`domains.yaml`: per-domain ecosystem facts, weighted into the ecosystem criterion by the profile's domains."""

    domains: list[Domain]


class Os(StrEnum):
    """Operating systems a team develops or deploys on."""

    LINUX = "linux"
    WINDOWS = "windows"
    MACOS = "macos"


CC = Annotated[str, StringConstraints(pattern=r"^\d{1,2}\.\d$")]


class GpuFloor(Model):
    """The oldest NVIDIA GPU generation the framework's current CUDA wheels support (and where older ones stop)."""

    release: Text  # the release line the floor describes, e.g. "2.15"
    min_compute_capability: CC | None = None  # None: not verified
    cuda: Text | None = None  # CUDA lines of the current wheels, e.g. "13.0, 13.2"
    min_driver: Text | None = None  # minimum NVIDIA driver, where documented
    #: The last release whose wheels still support older GPUs, and its floor (a team can pin it).
    last_release_for_older: Text | None = None
    older_min_compute_capability: CC | None = None
    notes: Text | None = None
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date


class Stewardship(Model):
    """Who maintains a framework and under which jurisdiction; what one code base can run on; OS support."""

    framework: Id
    maintainer: Text
    jurisdiction: Country | None = None  # None: unknown
    #: One model code base runs under several frameworks' backends (Keras 3 on JAX, TensorFlow, PyTorch).
    #: Left out, the loader derives it from the framework's `kind`; stated, it must agree with it.
    multi_backend: bool = False
    portability: Text  # what one code base runs on, in words (hardware backends without code changes)
    #: Native support per OS (absent: unknown). Left out, the loader derives it from the framework's
    #: `platforms.<os>.native`, which states it once; stated, it must agree with it.
    os: dict[Os, Support] = Field(default_factory=dict)
    gpu_os: dict[Os, Support] = Field(default_factory=dict)  # native NVIDIA GPU support per OS (absent: unknown)
    gpu: GpuFloor | None = None
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date


class ServingStack(Model):
    """A serving or deployment stack a team may already run, and the frameworks whose models it takes natively."""

    id: Id
    name: Text
    frameworks: list[Id]
    notes: Text | None = None
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in rationale/notes
    as_of: dt.date


class StewardshipFile(Model):
    """`stewardship.yaml`: maintainers and jurisdictions, portability, OS support, GPU floors, serving stacks."""

    frameworks: list[Stewardship]
    serving: list[ServingStack] = Field(default_factory=list)
