"""Which launcher started this process, and where it sits in the job: `LauncherEnv`, read from an explicit mapping.

Every variable name here is the one the launcher's own documentation gives (see docs/fleet.md, which
quotes each). The innermost launcher wins: torchrun started by srun, or mpirun inside a Slurm
allocation, sets its own variables on top of Slurm's, and those describe this process.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from advisor import limits
from advisor.errors import UsageError
from advisor.sanitize import one_line


class LauncherError(UsageError):
    """A launcher variable that cannot be read (not a number, out of range): names the variable."""


class Launcher(StrEnum):
    """The launcher that started this process (`none`: run by hand, a fleet of one)."""

    SLURM = "slurm"
    OPEN_MPI = "openmpi"
    PMIX = "pmix"
    TORCHRUN = "torchrun"
    SKYPILOT = "skypilot"
    JOBSET = "jobset"
    K8S_INDEXED_JOB = "k8s-indexed-job"
    RAY = "ray"
    EXPLICIT = "explicit"
    NONE = "none"


#: JobSet documents the job index as a pod label only; the manifest hands it to the container under this name.
JOBSET_JOB_INDEX = "FWADVISOR_JOBSET_JOB_INDEX"
#: Pods per Job of a JobSet (the Job's `completions`), set by the manifest; 1 when absent.
JOBSET_PODS_PER_JOB = "FWADVISOR_JOBSET_PODS_PER_JOB"
#: The leader's address where the launcher gives none (JobSet's coordinator label, a Job's headless service).
LEADER_ADDR = "FWADVISOR_LEADER_ADDR"
#: The number of nodes where the launcher gives none (a Kubernetes Indexed Job's `completions`).
WORLD_SIZE = "FWADVISOR_WORLD_SIZE"

_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?|\[?[0-9A-Fa-f:.]{2,45}\]?")
_NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")


@dataclass(frozen=True)
class LauncherEnv:
    """Where this process sits in a multi-node job, as its launcher described it.

    `rank` and `world_size` count processes; `node_index` and `node_count` count nodes (they are equal
    when one process runs per node). Only the process with `local_rank == 0` on a node writes its report.
    `node_name` and the leader's address name hosts: they never reach a report unless `--identify`.
    """

    launcher: Launcher
    rank: int = 0
    world_size: int | None = 1
    local_rank: int = 0
    node_index: int = 0
    node_count: int | None = 1
    node_name: str | None = None
    leader_addr: str | None = None
    leader_port: int | None = None
    variables: tuple[str, ...] = ()  # the variables read, by name (never their values)

    @property
    def writes_report(self) -> bool:
        """One report per node: the node's first process writes it, the others leave it to that one."""
        return self.local_rank == 0


def node_file_name(node_index: int) -> str:
    """The report file of one node: named by its index, never by its host (`node-0003.json`)."""
    return f"node-{node_index:04d}.json"


class _Reader:
    """Reads variables from one mapping, remembering which were read, and refusing bad values by name."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.read: list[str] = []

    def has(self, *names: str) -> bool:
        return all(n in self.env for n in names)

    def text(self, name: str) -> str | None:
        value = self.env.get(name)
        if value is None or not value.strip():
            return None
        self.read.append(name)
        return value.strip()

    def number(self, name: str, *, low: int = 0, high: int = limits.MAX_NODES * 1024) -> int | None:
        value = self.text(name)
        if value is None:
            return None
        if not re.fullmatch(r"\d{1,9}", value):
            raise LauncherError(f"must be a whole number, got {one_line(value)[:40]!r}", field=name)
        number = int(value)
        if not low <= number <= high:
            raise LauncherError(f"must be between {low} and {high}, got {number}", field=name)
        return number

    def host(self, name: str, value: str | None = None) -> str | None:
        value = value if value is not None else self.text(name)
        if value is None:
            return None
        if not _HOST.fullmatch(value):
            raise LauncherError(f"must be a host name or address, got {one_line(value)[:60]!r}", field=name)
        return value

    def node_name(self, name: str) -> str | None:
        value = self.text(name)
        if value is None:
            return None
        if not _NODE_NAME.fullmatch(value):
            raise LauncherError(f"must be a node name, got {one_line(value)[:60]!r}", field=name)
        return value


def first_host(nodelist: str) -> str:
    """The first host of a Slurm node list: `gpu[003-010,012],cpu01` -> `gpu003`."""
    head = re.match(r"([^,\[]*)(?:\[([^\]]*)\])?", nodelist)
    if head is None or not head.group(1) and not head.group(2):
        return nodelist
    prefix, ranges = head.group(1), head.group(2)
    if not ranges:
        return prefix
    return prefix + ranges.split(",", 1)[0].split("-", 1)[0]


def _check_rank(r: _Reader, rank: int, size: int | None, rank_var: str) -> None:
    if size is not None and rank >= size:
        raise LauncherError(f"rank {rank} is not below the world size {size}", field=rank_var)


def _slurm(r: _Reader) -> LauncherEnv:
    rank = r.number("SLURM_PROCID") or 0
    size = r.number("SLURM_NTASKS", low=1) or r.number("SLURM_NPROCS", low=1)
    _check_rank(r, rank, size, "SLURM_PROCID")
    nodes = r.number("SLURM_STEP_NUM_NODES", low=1) or r.number("SLURM_JOB_NUM_NODES", low=1) \
        or r.number("SLURM_NNODES", low=1)
    node = r.number("SLURM_NODEID")
    # The leader serves the all-reduce's rendezvous, so it is node 0: the first host of the step's node list.
    # The launch host comes second: srun run from a login node makes that host, outside the job, the launch node.
    listed = next((n for n in ("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST") if r.text(n)), None)
    leader = r.host(listed, first_host(r.text(listed) or "")) if listed else r.host("SLURM_LAUNCH_NODE_IPADDR")
    return LauncherEnv(Launcher.SLURM, rank, size, r.number("SLURM_LOCALID") or 0,
                       node if node is not None else rank, nodes, r.node_name("SLURMD_NODENAME"), leader)


def _open_mpi(r: _Reader) -> LauncherEnv:
    rank = r.number("OMPI_COMM_WORLD_RANK") or 0
    size = r.number("OMPI_COMM_WORLD_SIZE", low=1)
    _check_rank(r, rank, size, "OMPI_COMM_WORLD_RANK")
    # Open MPI gives no node index: one process per node (`--map-by ppr:1:node`) makes the rank the node's.
    return LauncherEnv(Launcher.OPEN_MPI, rank, size, r.number("OMPI_COMM_WORLD_LOCAL_RANK") or 0, rank, size)


def _pmix(r: _Reader) -> LauncherEnv:
    rank = r.number("PMIX_RANK") or 0
    # PMIx puts only the namespace and rank in the environment; the job size is a PMIx_Get away (not ours).
    size = r.number(WORLD_SIZE, low=1)
    _check_rank(r, rank, size, "PMIX_RANK")
    return LauncherEnv(Launcher.PMIX, rank, size, 0, rank, size)


def _torchrun(r: _Reader) -> LauncherEnv:
    rank = r.number("RANK") or 0
    size = r.number("WORLD_SIZE", low=1)
    _check_rank(r, rank, size, "RANK")
    local = r.number("LOCAL_RANK") or 0
    group = r.number("GROUP_RANK")
    local_size = r.number("LOCAL_WORLD_SIZE", low=1)
    nodes = size // local_size if size and local_size else size
    port = r.number("MASTER_PORT", low=1, high=65535)
    return LauncherEnv(Launcher.TORCHRUN, rank, size, local, group if group is not None else rank, nodes,
                       None, r.host("MASTER_ADDR"), port)


def _skypilot(r: _Reader) -> LauncherEnv:
    rank = r.number("SKYPILOT_NODE_RANK") or 0
    ips = [line.strip() for line in (r.text("SKYPILOT_NODE_IPS") or "").splitlines() if line.strip()]
    size = r.number("SKYPILOT_NUM_NODES", low=1) or (len(ips) or None)
    _check_rank(r, rank, size, "SKYPILOT_NODE_RANK")
    leader = r.host("SKYPILOT_NODE_IPS", ips[0]) if ips else None
    return LauncherEnv(Launcher.SKYPILOT, rank, size, 0, rank, size, None, leader)


def _jobset(r: _Reader) -> LauncherEnv:
    job = r.number(JOBSET_JOB_INDEX) or 0
    pod = r.number("JOB_COMPLETION_INDEX") or 0
    per_job = r.number(JOBSET_PODS_PER_JOB, low=1) or 1
    if pod >= per_job:
        raise LauncherError(f"pod index {pod} is not below the pods per Job ({per_job})", field=JOBSET_PODS_PER_JOB)
    index = job * per_job + pod
    size = r.number(WORLD_SIZE, low=1)
    _check_rank(r, index, size, JOBSET_JOB_INDEX)
    return LauncherEnv(Launcher.JOBSET, index, size, 0, index, size, None, r.host(LEADER_ADDR))


def _indexed_job(r: _Reader) -> LauncherEnv:
    index = r.number("JOB_COMPLETION_INDEX") or 0
    size = r.number(WORLD_SIZE, low=1)
    _check_rank(r, index, size, "JOB_COMPLETION_INDEX")
    return LauncherEnv(Launcher.K8S_INDEXED_JOB, index, size, 0, index, size, None, r.host(LEADER_ADDR))


#: (launcher, the variables that say it started us, reader), innermost launcher first.
DETECTORS: tuple[tuple[Launcher, tuple[str, ...], Callable[[_Reader], LauncherEnv]], ...] = (
    (Launcher.TORCHRUN, ("RANK", "WORLD_SIZE", "LOCAL_RANK"), _torchrun),
    (Launcher.OPEN_MPI, ("OMPI_COMM_WORLD_RANK",), _open_mpi),
    (Launcher.PMIX, ("PMIX_RANK",), _pmix),
    (Launcher.SLURM, ("SLURM_PROCID",), _slurm),
    (Launcher.SKYPILOT, ("SKYPILOT_NODE_RANK",), _skypilot),
    (Launcher.JOBSET, ("JOB_COMPLETION_INDEX", JOBSET_JOB_INDEX), _jobset),
    (Launcher.K8S_INDEXED_JOB, ("JOB_COMPLETION_INDEX",), _indexed_job),
)


def detect_launcher(env: Mapping[str, str]) -> LauncherEnv:
    """The launcher that started this process, read from `env` (`LauncherError` names a bad variable)."""
    for _launcher, marks, read in DETECTORS:
        reader = _Reader(env)
        if reader.has(*marks):
            found = read(reader)
            return LauncherEnv(**{**found.__dict__, "variables": tuple(dict.fromkeys(reader.read))})
    return LauncherEnv(Launcher.NONE)


def explicit_launcher(rank: int, world_size: int, *, via: Launcher = Launcher.EXPLICIT) -> LauncherEnv:
    """A place given on the command line (`--rank`, `--world-size`), as `fleet run --ray` does for each node."""
    if not 0 <= rank < world_size:
        raise LauncherError(f"rank {rank} is not below the world size {world_size}", field="--rank")
    return LauncherEnv(via, rank, world_size, 0, rank, world_size)
