"""The fleet summary as typed models: nodes, node types with their spread, failed nodes, and coded findings."""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from advisor.evidence.bench.collective_model import SideBySideRow

SCHEMA: Final = "fwadvisor.fleet/1"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FindingCode(StrEnum):
    """What a finding says; the shell renders the sentence from the code and its fields."""

    NODE_FAILED = "node_failed"  # a node gave no report (crashed, killed, timed out)
    FILE_SKIPPED = "file_skipped"  # a report file that could not be used
    FRAMEWORK_MISSING = "framework_missing"  # installed on some nodes only
    FRAMEWORK_FAILING = "framework_failing"  # installed, but its probe failed on some nodes
    GPU_BELOW_FLOOR = "gpu_below_floor"  # a GPU older than a framework's current CUDA wheels support
    VERSIONS_DIFFER = "versions_differ"  # the same hardware with different framework versions
    SLOW_NODE = "slow_node"  # a figure well below its node type's
    MISCONFIGURED_NODE = "misconfigured_node"  # a setting unlike the rest of its node type
    ALLREDUCE_FAILED = "allreduce_failed"  # a node's share of the cross-node all-reduce did not finish


class FailureKind(StrEnum):
    """How a node failed to report."""

    FAILED = "failed"  # the node command exited non-zero or its task raised
    KILLED = "killed"  # ended by a signal (its node went away, out of memory, an operator)
    TIMED_OUT = "timed_out"  # no answer within the run's timeout; cancelled
    BAD_REPORT = "bad_report"  # it answered with something that is not a report


class FrameworkState(_M):
    """A framework as one node's probe saw it."""

    installed: bool | None = None
    version: str | None = None
    outcome: str | None = None


class FleetNode(_M):
    """One node that reported."""

    label: str
    rank: int | None = None
    source: str | None = Field(None, description="the report file, when read from one")
    type_id: str
    cpu: str
    gpu: str | None = None
    gpu_count: int = 0
    usable_cores: int | None = None
    memory_total_bytes: int | None = None
    settings: dict[str, str] = Field(default_factory=dict, description="what should match within a node type")
    frameworks: dict[str, FrameworkState] = Field(default_factory=dict)
    figures: dict[str, float] = Field(default_factory=dict, description="benchmark key -> value")
    untrusted: list[str] = Field(default_factory=list, description="figures too noisy (or the node too busy) to "
                                 "call the node slow by; shown in the spread all the same")
    recommendation: str | None = None


class Spread(_M):
    """One benchmark figure across the nodes of one type."""

    benchmark: str
    unit: str
    higher_is_better: bool
    nodes: int
    median: float
    low: float
    high: float
    spread_pct: float = Field(description="(high - low) / median, in percent")
    worst_node: str


class NodeType(_M):
    """Nodes with the same CPU, GPU model and count, and framework versions."""

    id: str
    cpu: str
    gpu: str | None
    gpu_count: int
    framework_versions: dict[str, str | None]
    nodes: list[str]
    spread: list[Spread] = Field(default_factory=list)


class FailedNode(_M):
    """A node that gave no report, and why."""

    label: str
    rank: int | None = None
    kind: FailureKind
    detail: str = ""


class Finding(_M):
    """One thing the fleet means for the recommendation, as a code with its parameters."""

    code: FindingCode
    nodes: list[str] = Field(default_factory=list)
    framework: str | None = None
    node_type: str | None = None
    benchmark: str | None = None
    setting: str | None = None
    values: dict[str, str] = Field(default_factory=dict, description="node -> its value of `setting`")
    support: Literal["deprecated", "none"] | None = None
    shortfall_pct: float | None = None
    reason: str | None = None


class AllReduceRow(SideBySideRow):
    """One message size: the intra-node run beside the inter-node one, nccl-tests' figures (GB/s of 1e9 bytes)."""

    flagged: bool = Field(False, description="a row whose samples spread widely, were few, or reduced wrongly")


class FleetAllReduce(_M):
    """The fleet's cross-node all-reduce: the leader's intra-node run beside the inter-node run of every node."""

    framework: str
    outcome: str = Field(description="the inter-node run's outcome over every node (ok, failed, timed_out, ...)")
    nnodes: int
    world_size: int
    intra_node: str | None = Field(None, description="the node whose intra-node run is shown (the leader's)")
    intra_backend: str = ""
    inter_backend: str = ""
    rows: list[AllReduceRow] = Field(default_factory=list)
    nodes: dict[str, str] = Field(default_factory=dict, description="node -> its share's outcome code")
    definitions: dict[str, str] = Field(default_factory=lambda: {"algbw": "S/t", "busbw": "algbw * 2(n-1)/n",
                                                                 "source": "nccl-tests doc/PERFORMANCE.md"})


class FleetSummary(_M):
    """The merged view of a fleet's node reports (`fwadvisor.fleet/1`)."""

    knowledge_version: str
    nodes_expected: int | None = None
    nodes: list[FleetNode]
    types: list[NodeType]
    failed: list[FailedNode] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    slow_threshold_pct: float
    allreduce: FleetAllReduce | None = None

    @computed_field(alias="schema")  # type: ignore[prop-decorator]
    @property
    def schema_id(self) -> Literal["fwadvisor.fleet/1"]:
        """The document's schema id (`schema` in the JSON; BaseModel keeps the name `schema` for itself)."""
        return SCHEMA

    @classmethod
    def from_json(cls, data: dict[str, object]) -> FleetSummary:
        """Read the JSON form back (`ValueError` for another schema, pydantic's for a bad field)."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} document")
        return cls.model_validate({k: v for k, v in data.items() if k != "schema"})
