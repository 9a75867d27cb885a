"""Launcher detection from planted environments: one per launcher, the innermost launcher first, bad values named."""

from __future__ import annotations

import pytest

from advisor.fleet.launcher import (
    Launcher,
    LauncherError,
    detect_launcher,
    explicit_launcher,
    first_host,
    node_file_name,
)

#: launcher -> (planted env, expected (launcher, rank, world, local rank, node index, nodes, name, leader, port))
PLANTED = {
    "slurm": ({"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_LOCALID": "0", "SLURM_NODEID": "5",
               "SLURM_JOB_NUM_NODES": "8", "SLURMD_NODENAME": "gnode37", "SLURM_LAUNCH_NODE_IPADDR": "10.1.2.3"},
              (Launcher.SLURM, 5, 8, 0, 5, 8, "gnode37", "10.1.2.3", None)),
    "slurm-nodelist": ({"SLURM_PROCID": "1", "SLURM_NTASKS": "2", "SLURM_NODEID": "1",
                        "SLURM_JOB_NODELIST": "gpu[003-004],cpu01"},
                       (Launcher.SLURM, 1, 2, 0, 1, None, None, "gpu003", None)),
    "openmpi": ({"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "0"},
                (Launcher.OPEN_MPI, 3, 4, 0, 3, 4, None, None, None)),
    "pmix": ({"PMIX_RANK": "2", "PMIX_NAMESPACE": "prterun-host-1@1"},
             (Launcher.PMIX, 2, None, 0, 2, None, None, None, None)),
    "torchrun": ({"RANK": "6", "WORLD_SIZE": "8", "LOCAL_RANK": "0", "GROUP_RANK": "3", "LOCAL_WORLD_SIZE": "2",
                  "MASTER_ADDR": "node0.cluster", "MASTER_PORT": "29500", "TORCHELASTIC_RUN_ID": "x"},
                 (Launcher.TORCHRUN, 6, 8, 0, 3, 4, None, "node0.cluster", 29500)),
    "skypilot": ({"SKYPILOT_NODE_RANK": "1", "SKYPILOT_NUM_NODES": "2", "SKYPILOT_NODE_IPS": "10.0.0.7\n10.0.0.8\n",
                  "SKYPILOT_NUM_GPUS_PER_NODE": "8"},
                 (Launcher.SKYPILOT, 1, 2, 0, 1, 2, None, "10.0.0.7", None)),
    "k8s-indexed-job": ({"JOB_COMPLETION_INDEX": "4", "FWADVISOR_WORLD_SIZE": "5"},
                        (Launcher.K8S_INDEXED_JOB, 4, 5, 0, 4, 5, None, None, None)),
    "jobset": ({"JOB_COMPLETION_INDEX": "1", "FWADVISOR_JOBSET_JOB_INDEX": "2", "FWADVISOR_JOBSET_PODS_PER_JOB": "4",
                "FWADVISOR_LEADER_ADDR": "train-leader-0-0.train"},
               (Launcher.JOBSET, 9, None, 0, 9, None, None, "train-leader-0-0.train", None)),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_each_launcher_is_read_from_its_own_variables(name: str) -> None:
    env, expected = PLANTED[name]
    got = detect_launcher(env)
    assert (got.launcher, got.rank, got.world_size, got.local_rank, got.node_index, got.node_count, got.node_name,
            got.leader_addr, got.leader_port) == expected
    assert set(got.variables) <= set(env)  # only the launcher's own variables were read
    assert got.writes_report


def test_no_launcher_is_a_fleet_of_one() -> None:
    got = detect_launcher({"HOME": "/root", "PATH": "/bin"})
    assert (got.launcher, got.rank, got.world_size, got.node_index) == (Launcher.NONE, 0, 1, 0)


def test_the_innermost_launcher_wins() -> None:
    """torchrun under srun, mpirun inside a Slurm allocation: the inner launcher describes this process."""
    slurm = PLANTED["slurm"][0]
    assert detect_launcher({**slurm, **PLANTED["torchrun"][0]}).launcher is Launcher.TORCHRUN
    assert detect_launcher({**slurm, **PLANTED["openmpi"][0]}).launcher is Launcher.OPEN_MPI
    # RANK/WORLD_SIZE alone (a PyTorchJob's node rank) is not torchrun: it needs LOCAL_RANK too.
    assert detect_launcher({**slurm, "RANK": "0", "WORLD_SIZE": "2"}).launcher is Launcher.SLURM


def test_a_second_process_on_a_node_leaves_the_report_to_local_rank_0() -> None:
    env = {**PLANTED["torchrun"][0], "RANK": "7", "LOCAL_RANK": "1"}
    assert not detect_launcher(env).writes_report


@pytest.mark.parametrize(("env", "field"), [
    ({"SLURM_PROCID": "x1"}, "SLURM_PROCID"),
    ({"SLURM_PROCID": "4", "SLURM_NTASKS": "4"}, "SLURM_PROCID"),
    ({"OMPI_COMM_WORLD_RANK": "-1"}, "OMPI_COMM_WORLD_RANK"),
    ({"RANK": "0", "WORLD_SIZE": "0", "LOCAL_RANK": "0"}, "WORLD_SIZE"),
    ({"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_PORT": "70000"}, "MASTER_PORT"),
    ({"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "evil;rm -rf /"}, "MASTER_ADDR"),
    ({"SLURM_PROCID": "0", "SLURMD_NODENAME": "\x1b[31mred"}, "SLURMD_NODENAME"),
    ({"JOB_COMPLETION_INDEX": "99999999999"}, "JOB_COMPLETION_INDEX"),
])
def test_a_bad_variable_is_named(env: dict[str, str], field: str) -> None:
    with pytest.raises(LauncherError) as info:
        detect_launcher(env)
    assert info.value.field == field
    assert "\x1b" not in str(info.value)


def test_slurm_node_lists_and_file_names() -> None:
    assert first_host("gnode[10,20,25,37]") == "gnode10"
    assert first_host("node[001-004],other") == "node001"
    assert first_host("single") == "single"
    assert node_file_name(3) == "node-0003.json"
    assert explicit_launcher(2, 3).node_index == 2
    with pytest.raises(LauncherError):
        explicit_launcher(3, 3)


def test_the_all_reduce_leader_comes_from_the_launcher() -> None:
    from advisor.evidence.bench.collective import Leader
    from advisor.fleet.allreduce import AllReduceOptions, leader_for

    default = AllReduceOptions()
    # torchrun's MASTER_PORT is the outer job's own store: the all-reduce takes the port after it.
    assert leader_for(detect_launcher(PLANTED["torchrun"][0]), default) == Leader("node0.cluster", 29501)
    assert leader_for(detect_launcher(PLANTED["skypilot"][0]), default) == Leader("10.0.0.7", 29500)
    assert leader_for(detect_launcher(PLANTED["slurm"][0]), AllReduceOptions(port=4000)) == Leader("10.1.2.3", 4000)
    assert leader_for(detect_launcher(PLANTED["openmpi"][0]), default) is None  # Open MPI names no leader
    assert leader_for(detect_launcher({}), AllReduceOptions(leader="[::1]:7000")) == Leader("[::1]", 7000)


def test_slurm_s_leader_is_node_0_not_the_launch_host() -> None:
    """srun run from a login node: SLURM_LAUNCH_NODE_IPADDR is that host, not a node of the job; node 0 serves."""
    env = {**PLANTED["slurm-nodelist"][0], "SLURM_LAUNCH_NODE_IPADDR": "10.9.9.9"}
    assert detect_launcher(env).leader_addr == "gpu003"
