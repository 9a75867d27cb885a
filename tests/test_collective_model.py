"""The all-reduce result model: nccl-tests' figures from the times, intra beside inter, nodes merged, JSON."""

from __future__ import annotations

import pytest

from advisor.errors import ReportError, UsageError
from advisor.evidence.bench.collective import Leader, Plan
from advisor.evidence.bench.collective_model import (
    SCHEMA,
    AllReduceReport,
    CollectiveRun,
    RankReport,
    RankState,
    RunOutcome,
    Scope,
    SizeRow,
    bus_factor,
    merge_nodes,
)
from advisor.jsonio import model_json


def _row(nbytes: int, ranks: int, times: tuple[float, ...]) -> SizeRow:
    return SizeRow(nbytes, nbytes // 4, "float32", ranks, 10, times)


def _run(scope: Scope, rows: tuple[SizeRow, ...], ranks: tuple[RankReport, ...], *, nnodes: int = 2,
         outcome: RunOutcome = RunOutcome.OK, node_rank: int | None = 0, error: str = "") -> CollectiveRun:
    return CollectiveRun("pytorch", scope, outcome, nnodes, 1, backend="gloo", rows=rows, ranks=ranks,
                         node_rank=node_rank, error=error)


def test_algbw_is_size_over_median_time_and_busbw_applies_the_all_reduce_factor() -> None:
    row = _row(1 << 20, 4, (0.002, 0.001, 0.004))
    assert row.time_s == 0.002
    assert row.algbw_GBps == pytest.approx((1 << 20) / 0.002 / 1e9)
    assert row.busbw_GBps == pytest.approx(row.algbw_GBps * 2 * 3 / 4)
    assert bus_factor(2) == 1.0 and bus_factor(8) == pytest.approx(1.75) and bus_factor(1) == 0.0
    assert row.spread == pytest.approx((0.004 - 0.001) / 0.002)


def test_side_by_side_pairs_sizes_and_compares_bus_bandwidth() -> None:
    intra = _run(Scope.INTRA_NODE, (_row(4096, 2, (1e-4,)), _row(65536, 2, (2e-4,))),
                 (RankReport(0, 0, RankState.FINISHED),), nnodes=1)
    inter = _run(Scope.INTER_NODE, (_row(4096, 2, (4e-4,)),), (RankReport(0, 0, RankState.FINISHED),))
    rows = AllReduceReport("pytorch", intra, inter).side_by_side
    assert [r.bytes for r in rows] == [4096, 65536]
    assert rows[0].inter_over_intra_busbw == pytest.approx(0.25)
    assert rows[1].inter_time_us is None and rows[1].intra_time_us == pytest.approx(200.0)


def test_merge_names_the_rank_that_never_finished_and_keeps_the_leaders_rows() -> None:
    leader = _run(Scope.INTER_NODE, (_row(4096, 3, (1e-4,)),), (RankReport(0, 0, RankState.ERROR, "peer lost"),),
                  nnodes=3, outcome=RunOutcome.FAILED, error="exited with status 1")
    other = _run(Scope.INTER_NODE, (), (RankReport(1, 1, RankState.LOST),), nnodes=3, outcome=RunOutcome.TIMED_OUT,
                 node_rank=1)
    merged = merge_nodes([leader, other])
    assert merged.outcome == RunOutcome.TIMED_OUT and merged.node_rank is None
    assert merged.rows == leader.rows
    states = {r.rank: r.state for r in merged.ranks}
    assert states == {0: RankState.ERROR, 1: RankState.LOST, 2: RankState.NOT_STARTED}
    assert "node 0" in merged.error


def test_report_json_round_trips_and_recomputes_its_figures() -> None:
    inter = _run(Scope.INTER_NODE, (_row(4096, 2, (1e-4, 2e-4)),), (RankReport(0, 0, RankState.FINISHED),))
    data = model_json(AllReduceReport("pytorch", None, inter))
    assert data["schema"] == SCHEMA and data["units"]["time_us"] == "us"
    assert data["inter"]["rows"][0]["busbw_GBps"] == pytest.approx(4096 / 1.5e-4 / 1e9, rel=1e-4)
    back = AllReduceReport.from_json(data)
    assert back.inter == inter and back.intra is None
    with pytest.raises(ReportError):
        AllReduceReport.from_json({"schema": "other"})
    with pytest.raises(ReportError):
        CollectiveRun.from_json({"framework": "x", "scope": "nowhere"})


@pytest.mark.parametrize("text", ["host", "host:0", "host:70000", ":29500", "a b:1"])
def test_a_bad_leader_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError) as err:
        Leader.parse(text)
    assert err.value.field == "--leader"


def test_leader_parses_ipv6_and_plan_rejects_bad_values() -> None:
    assert Leader.parse("[::1]:29500") == Leader("[::1]", 29500)
    with pytest.raises(UsageError):
        Plan(framework="tensorflow")
    with pytest.raises(UsageError):
        Plan(sizes=(2,))


def test_merge_reports_takes_the_leaders_intra_run_and_every_nodes_ranks() -> None:
    from advisor.evidence.bench.collective_model import merge_reports

    intra = _run(Scope.INTRA_NODE, (_row(4096, 2, (1e-4,)),), (RankReport(0, 0, RankState.FINISHED),), nnodes=1)
    leader = AllReduceReport("jax", intra, _run(Scope.INTER_NODE, (_row(4096, 2, (2e-4,)),),
                                                (RankReport(0, 0, RankState.FINISHED),)))
    other = AllReduceReport("jax", None, _run(Scope.INTER_NODE, (), (RankReport(1, 1, RankState.FINISHED),),
                                              node_rank=1))
    merged = merge_reports([other, leader])
    assert merged.intra is intra and merged.inter is not None
    assert merged.inter.outcome == RunOutcome.OK and [r.rank for r in merged.inter.ranks] == [0, 1]
    assert merged.side_by_side[0].inter_over_intra_busbw == pytest.approx(0.5)


def test_a_row_says_when_it_cannot_be_trusted_by_code() -> None:
    steady = _row(4096, 2, (1.0e-4, 1.01e-4, 0.99e-4))
    assert steady.warnings == ()
    noisy = SizeRow(4096, 1024, "float32", 2, 10, (1e-4, 3e-4), wrong=5)
    codes = [w.code.value for w in noisy.warnings]
    assert codes == ["unstable", "few_samples", "disagrees"]
    assert model_json(noisy)["warning_codes"][2] == {"code": "disagrees", "params": {"wrong": 5}}


@pytest.mark.parametrize("times", [(), (float("nan"),), (-1.0,), (float("inf"), 1.0)])
def test_a_row_without_usable_times_is_refused_where_it_is_read(times: tuple[float, ...]) -> None:
    inter = model_json(_run(Scope.INTER_NODE, (_row(4096, 2, (1e-4,)),), (RankReport(0, 0, RankState.FINISHED),)))
    inter["rows"][0]["times_s"] = list(times)
    with pytest.raises(ReportError):
        CollectiveRun.from_json(inter)
