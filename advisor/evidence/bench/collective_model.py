"""All-reduce across processes and nodes as data: per-size rows, each rank's ending, one run, intra beside inter.

Time, algorithm bandwidth and bus bandwidth are nccl-tests' (doc/PERFORMANCE.md): `algbw = S/t` with S the
message size in bytes and t the time of one call, and for all-reduce `busbw = algbw * 2(n-1)/n` with n the
number of ranks, the figure to compare with the hardware's link bandwidth whatever the rank count.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import replace
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_serializer
from pydantic.dataclasses import dataclass

from advisor.errors import ReportError
from advisor.evidence.bench.results import BenchWarning, BenchWarningCode, WarningCode

SCHEMA: Final = "fwadvisor.collective/1"
#: A row whose samples spread wider than this share of their median is flagged `unstable` (gloo on a busy host).
UNSTABLE_SPREAD = 0.25
#: Fewer samples than this are flagged `few_samples`.
MIN_SAMPLES = 3
#: The units every figure of this module is given in (the JSON names carry them too).
UNITS: Final = {"bytes": "B", "time_us": "us", "algbw_GBps": "GB/s (1e9 bytes/s)", "busbw_GBps": "GB/s (1e9 bytes/s)"}


class Scope(StrEnum):
    """Where the ranks of a run were."""

    INTRA_NODE = "intra_node"  # every rank on one machine (torchrun --standalone, one JAX process)
    INTER_NODE = "inter_node"  # ranks on several machines (or several simulated ones on loopback)


class RankState(StrEnum):
    """How one rank ended, from what it said."""

    FINISHED = "finished"  # said rank_end
    ERROR = "error"  # a collective raised (a peer that died, a timeout), and it said so
    LOST = "lost"  # began and never said how it ended: killed, crashed or hung
    NOT_STARTED = "not_started"  # expected from the world size, never reported joining


class RunOutcome(StrEnum):
    """How a whole run ended."""

    OK = "ok"
    FAILED = "failed"  # a rank or a launcher failed: the rows, if any, are the ranks' that finished first
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"
    MISSING = "missing"  # the framework is not installed
    SKIPPED = "skipped"  # nothing to measure (one device where the intra-node figure needs two)

#: nccl-tests' definitions of the two bandwidths (doc/PERFORMANCE.md), written into every report.
DEFINITIONS: Final = {"algbw": "S/t", "busbw": "algbw * 2(n-1)/n",
                      "source": "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md"}


def bus_factor(ranks: int) -> float:
    """nccl-tests' all-reduce correction, 2(n-1)/n (0 for a single rank: nothing crosses a link)."""
    return 2 * (ranks - 1) / ranks if ranks > 0 else 0.0


@dataclass(frozen=True)
class SizeRow:
    """One message size: the per-call times of every sample (the slowest rank's) and what follows from them.

    Its JSON names carry the units (`time_us`, `algbw_GBps`); the figures there are rounded and written from
    the times, never read back.
    """

    nbytes: Annotated[int, Field(serialization_alias="bytes")]
    elements: int
    dtype: str
    ranks: int
    iters: int
    times_s: tuple[float, ...]
    wrong: int = 0  # elements whose reduced value was wrong (nccl-tests' "#wrong")

    def __post_init__(self) -> None:
        # A child's or a file's numbers: a row that cannot give a figure is refused here, not divided by later.
        if not self.times_s or not all(math.isfinite(t) and t >= 0 for t in self.times_s):
            raise ValueError(f"times must be finite and non-negative, got {self.times_s[:5]!r}")
        if self.nbytes < 1 or self.ranks < 1 or self.iters < 1 or self.wrong < 0:
            raise ValueError(f"bad row: {self.nbytes} bytes, {self.ranks} ranks, {self.iters} iterations")

    @property
    def time_s(self) -> float:
        """The median per-call time of the samples."""
        return statistics.median(self.times_s)

    @property
    def spread(self) -> float:
        """(max - min) / median of the samples: how far one figure can be trusted."""
        t = self.time_s
        return (max(self.times_s) - min(self.times_s)) / t if t > 0 else 0.0

    @property
    def algbw_GBps(self) -> float:  # noqa: N802 - the unit is part of the name
        """S / t, in 1e9 bytes per second."""
        return self.nbytes / self.time_s / 1e9 if self.time_s > 0 else 0.0

    @property
    def busbw_GBps(self) -> float:  # noqa: N802
        """algbw * 2(n-1)/n."""
        return self.algbw_GBps * bus_factor(self.ranks)

    @property
    def warnings(self) -> tuple[BenchWarning, ...]:
        """Why the row may not be trusted, as the bench's warning codes (the sentence written here, once)."""
        out = []
        if self.spread > UNSTABLE_SPREAD:
            out.append(BenchWarning(BenchWarningCode.UNSTABLE, f"unstable: the samples spread over {self.spread:.0%} "
                                    "of their median", {"spread": round(self.spread, 4)}))
        if len(self.times_s) < MIN_SAMPLES:
            out.append(BenchWarning(BenchWarningCode.FEW_SAMPLES, f"only {len(self.times_s)} sample(s)",
                                    {"samples": len(self.times_s)}))
        if self.wrong:
            out.append(BenchWarning(BenchWarningCode.DISAGREES, f"{self.wrong} element(s) reduced to a wrong value",
                                    {"wrong": self.wrong}))
        return tuple(out)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def time_us(self) -> float:
        """The median per-call time in microseconds."""
        return round(self.time_s * 1e6, 3)

    @computed_field(alias="algbw_GBps")  # type: ignore[prop-decorator]
    @property
    def algbw_rounded(self) -> float:
        """`algbw_GBps` as the file gives it."""
        return round(self.algbw_GBps, 6)

    @computed_field(alias="busbw_GBps")  # type: ignore[prop-decorator]
    @property
    def busbw_rounded(self) -> float:
        """`busbw_GBps` as the file gives it."""
        return round(self.busbw_GBps, 6)

    @computed_field(alias="spread")  # type: ignore[prop-decorator]
    @property
    def spread_rounded(self) -> float:
        """`spread` as the file gives it."""
        return round(self.spread, 4)

    @computed_field(alias="warnings")  # type: ignore[prop-decorator]
    @property
    def warning_sentences(self) -> list[str]:
        """The warnings' sentences, for every reader of the file."""
        return [w.message for w in self.warnings]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def warning_codes(self) -> list[WarningCode]:
        """Per warning, in the same order: its code and parameters (what programs read)."""
        return [WarningCode(code=w.code.value, params=dict(w.params)) for w in self.warnings]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SizeRow:
        """A saved row (the figures are recomputed from the times, never read back)."""
        return cls(int(data["bytes"]), int(data["elements"]), str(data["dtype"]), int(data["ranks"]),
                   int(data["iters"]), tuple(float(t) for t in data["times_s"]), int(data.get("wrong") or 0))


@dataclass(frozen=True)
class RankReport:
    """One rank: where it ran and how it ended."""

    rank: int
    node: int | None
    state: RankState
    error: str = ""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RankReport:
        """A saved rank."""
        node = data.get("node")
        return cls(int(data["rank"]), None if node is None else int(node), RankState(str(data["state"])),
                   str(data.get("error") or ""))


@dataclass(frozen=True)
class CollectiveRun:
    """One all-reduce run: which framework and transport, how many nodes and ranks, the rows and every rank."""

    framework: str
    scope: Scope
    outcome: RunOutcome
    nnodes: int
    nproc_per_node: int
    backend: str = ""
    device: str = "cpu"
    version: str = ""
    launcher: str = ""
    rows: tuple[SizeRow, ...] = ()
    ranks: tuple[RankReport, ...] = ()
    error: str = ""
    wall_s: float = 0.0
    node_rank: int | None = None  # the node this run was seen from; None once several nodes are merged

    @computed_field  # type: ignore[prop-decorator]
    @property
    def world_size(self) -> int:
        """Ranks in all."""
        return self.nnodes * self.nproc_per_node

    @property
    def failed_ranks(self) -> tuple[RankReport, ...]:
        """Ranks that did not finish."""
        return tuple(r for r in self.ranks if r.state != RankState.FINISHED)

    def row(self, nbytes: int) -> SizeRow | None:
        """The row of one message size."""
        return next((r for r in self.rows if r.nbytes == nbytes), None)

    @field_serializer("wall_s")
    def _wall(self, value: float) -> float:
        return round(value, 3)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CollectiveRun:
        """A saved run; a wrong shape is a `ReportError` naming the field."""
        try:
            node_rank = data.get("node_rank")
            return cls(
                framework=str(data["framework"]), scope=Scope(str(data["scope"])),
                outcome=RunOutcome(str(data["outcome"])), nnodes=int(data["nnodes"]),
                nproc_per_node=int(data["nproc_per_node"]), backend=str(data.get("backend") or ""),
                device=str(data.get("device") or "cpu"), version=str(data.get("version") or ""),
                launcher=str(data.get("launcher") or ""),
                rows=tuple(SizeRow.from_json(r) for r in data.get("rows") or ()),
                ranks=tuple(RankReport.from_json(r) for r in data.get("ranks") or ()),
                error=str(data.get("error") or ""), wall_s=float(data.get("wall_s") or 0.0),
                node_rank=None if node_rank is None else int(node_rank),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(f"bad collective run: {exc!r}", field="collective.runs") from exc


def merge_nodes(runs: Sequence[CollectiveRun]) -> CollectiveRun:
    """One inter-node run from each node's view: the rows of the node that has them, every node's ranks.

    A rank no node reported joining is `not_started`; the outcome is the worst of the nodes' (a timed-out node
    makes the run timed out, any failure a failed run).
    """
    if not runs:
        raise ValueError("no node's run to merge")
    first = next((r for r in runs if r.rows), runs[0])
    ranks = {r.rank: r for run in runs for r in run.ranks}
    world = first.world_size
    for k in range(world):
        ranks.setdefault(k, RankReport(k, None, RankState.NOT_STARTED))
    order = (RunOutcome.CANCELLED, RunOutcome.TIMED_OUT, RunOutcome.FAILED, RunOutcome.MISSING, RunOutcome.OK)
    outcome = next((o for o in order if any(r.outcome == o for r in runs)), RunOutcome.OK)
    if outcome == RunOutcome.OK and any(r.state != RankState.FINISHED for r in ranks.values()):
        outcome = RunOutcome.FAILED
    errors = [f"node {r.node_rank}: {r.error}" for r in runs if r.error]
    return replace(first, outcome=outcome, ranks=tuple(ranks[k] for k in sorted(ranks)), node_rank=None,
                   error="; ".join(errors), wall_s=max(r.wall_s for r in runs),
                   backend=first.backend or next((r.backend for r in runs if r.backend), ""))


class SideBySideRow(BaseModel):
    """One message size of both runs: time (us), algorithm and bus bandwidth (GB/s), and the inter/intra ratio."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bytes: int
    intra_time_us: float | None = None
    intra_algbw_GBps: float | None = None  # noqa: N815 - the unit is part of the name
    intra_busbw_GBps: float | None = None  # noqa: N815
    inter_time_us: float | None = None
    inter_algbw_GBps: float | None = None  # noqa: N815
    inter_busbw_GBps: float | None = None  # noqa: N815
    inter_over_intra_busbw: float | None = None


@dataclass(frozen=True)
class AllReduceReport:
    """The intra-node and inter-node runs of one framework, side by side per message size."""

    framework: str
    intra: CollectiveRun | None
    inter: CollectiveRun | None
    environment: Mapping[str, Any] = Field(default_factory=dict)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def schema(self) -> Literal["fwadvisor.collective/1"]:
        """The document's schema id."""
        return SCHEMA

    @computed_field  # type: ignore[prop-decorator]
    @property
    def units(self) -> dict[str, str]:
        """The unit of each figure."""
        return dict(UNITS)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def definitions(self) -> dict[str, str]:
        """How the bandwidths follow from the time (nccl-tests' definitions)."""
        return dict(DEFINITIONS)

    @property
    def sizes(self) -> list[int]:
        """Every message size either run measured, in order."""
        return sorted({r.nbytes for run in (self.intra, self.inter) if run is not None for r in run.rows})

    @computed_field  # type: ignore[prop-decorator]
    @property
    def side_by_side(self) -> list[SideBySideRow]:
        """Per size: both runs' time and bandwidths, and inter-node bus bandwidth as a share of intra-node."""
        out: list[SideBySideRow] = []
        for nbytes in self.sizes:
            a = self.intra.row(nbytes) if self.intra else None
            b = self.inter.row(nbytes) if self.inter else None
            ratio = b.busbw_GBps / a.busbw_GBps if a and b and a.busbw_GBps > 0 else None
            out.append(SideBySideRow(
                bytes=nbytes,
                intra_time_us=None if a is None else round(a.time_s * 1e6, 3),
                intra_algbw_GBps=None if a is None else round(a.algbw_GBps, 6),
                intra_busbw_GBps=None if a is None else round(a.busbw_GBps, 6),
                inter_time_us=None if b is None else round(b.time_s * 1e6, 3),
                inter_algbw_GBps=None if b is None else round(b.algbw_GBps, 6),
                inter_busbw_GBps=None if b is None else round(b.busbw_GBps, 6),
                inter_over_intra_busbw=None if ratio is None else round(ratio, 4),
            ))
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AllReduceReport:
        """A saved report; a wrong schema is a `ReportError`."""
        if not isinstance(data, Mapping) or data.get("schema") != SCHEMA:
            raise ReportError(f"not a {SCHEMA} document", field="collective.schema")
        intra, inter = data.get("intra"), data.get("inter")
        return cls(str(data.get("framework") or ""), None if intra is None else CollectiveRun.from_json(intra),
                   None if inter is None else CollectiveRun.from_json(inter), dict(data.get("environment") or {}))


def merge_reports(reports: Sequence[AllReduceReport]) -> AllReduceReport:
    """Every node's report of one fleet run as one: the leader's intra-node run, the nodes' inter-node views merged.

    The leader is the report whose inter-node run has rows (node 0's); each node's own intra-node figure stays in
    its own report, for a comparison between nodes.
    """
    if not reports:
        raise ValueError("no node's report to merge")
    views = [r.inter for r in reports if r.inter is not None]
    leader = next((r for r in reports if r.inter is not None and r.inter.rows), reports[0])
    return AllReduceReport(leader.framework, leader.intra, merge_nodes(views) if views else None,
                           {**leader.environment, "nodes_reporting": len(reports)})
