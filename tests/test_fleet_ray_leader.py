"""Under `fleet run --ray` the node holding bundle 0 leads the cross-node all-reduce: each node is told so."""

from __future__ import annotations

from advisor.fleet.node import NodeOptions, node_option_args
from advisor.fleet.ray_run import with_leader


def test_every_node_is_given_bundle_zero_s_node_as_leader_at_the_default_port() -> None:
    argv = tuple(node_option_args(NodeOptions()))
    assert with_leader(argv, "10.0.0.7", 3)[-2:] == ("--leader", "10.0.0.7:29500")


def test_the_rendezvous_port_given_for_the_fleet_is_the_leader_s_port() -> None:
    argv = ("--preset", "fleet", "--allreduce-port", "31000")
    assert with_leader(argv, "10.0.0.7", 2)[-2:] == ("--leader", "10.0.0.7:31000")


def test_an_ipv6_leader_is_bracketed() -> None:
    assert with_leader((), "fd00::7", 2)[-2:] == ("--leader", "[fd00::7]:29500")


def test_no_leader_is_added_for_one_node_without_the_all_reduce_or_with_one_given_by_hand() -> None:
    assert with_leader(("--preset", "fleet"), "10.0.0.7", 1) == ("--preset", "fleet")
    assert with_leader(("--no-allreduce",), "10.0.0.7", 3) == ("--no-allreduce",)
    assert with_leader(("--leader", "h:1"), "10.0.0.7", 3) == ("--leader", "h:1")
    assert with_leader(("--preset", "fleet"), None, 3) == ("--preset", "fleet")
