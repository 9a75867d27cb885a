"""cgroup v1/v2 parsing: CPU quota and memory limits from temp files that hold the kernel's formats."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.evidence.hardware import cgroup
from advisor.evidence.hardware.cpu import usable_cores


def _write(d: Path, **files: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (d / name.replace("__", ".")).write_text(text)
    return d


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("200000 100000\n", 2.0), ("150000 100000", 1.5), ("max 100000\n", None), ("50000", 0.5), ("", None)],
)
def test_cpu_max_v2(tmp_path: Path, text: str, cpus: float | None) -> None:
    d = _write(tmp_path / "g", cpu__max=text)
    assert cgroup.cpu_quota_in(d) == cpus


@pytest.mark.parametrize(
    ("quota", "period", "cpus"), [("-1\n", "100000\n", None), ("200000", "100000", 2.0), ("25000", "50000", 0.5)]
)
def test_cfs_quota_v1(tmp_path: Path, quota: str, period: str, cpus: float | None) -> None:
    d = _write(tmp_path / "g", cpu__cfs_quota_us=quota, cpu__cfs_period_us=period)
    assert cgroup.cpu_quota_in(d) == cpus


def test_tightest_quota_over_hierarchy(tmp_path: Path) -> None:
    parent = _write(tmp_path / "p", cpu__max="400000 100000")
    child = _write(tmp_path / "p" / "c", cpu__max="max 100000")
    assert cgroup.cpu_quota([child, parent]) == 4.0
    assert cgroup.cpu_quota([tmp_path / "nothing"]) is None


@pytest.mark.parametrize(
    ("name", "text", "limit"),
    [
        ("memory.max", "max\n", None),
        ("memory.max", "2147483648\n", 2147483648),
        ("memory.limit_in_bytes", "9223372036854771712\n", None),  # v1 "unlimited"
        ("memory.limit_in_bytes", "1073741824", 1073741824),
    ],
)
def test_memory_limits(tmp_path: Path, name: str, text: str, limit: int | None) -> None:
    d = tmp_path / "g"
    d.mkdir()
    (d / name).write_text(text)
    assert cgroup.memory_limit_in(d) == limit


def test_dirs_from_proc_files_v1_and_v2(tmp_path: Path) -> None:
    v1 = _write(tmp_path / "cpu" / "docker" / "abc", cpu__cfs_quota_us="300000", cpu__cfs_period_us="100000")
    unified = _write(tmp_path / "unified" / "user.slice", cpu__max="max 100000")
    proc_cgroup = "4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n0::/user.slice\n"
    mountinfo = (
        f"32 31 0:29 / {tmp_path}/cpu rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
        f"41 31 0:38 / {tmp_path}/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "22 1 0:21 / /proc rw - proc proc rw\n"
    )
    dirs = cgroup.cgroup_dirs("cpu", proc_cgroup, mountinfo)
    assert dirs[0] == v1
    assert unified in dirs
    assert cgroup.cpu_quota(dirs) == 3.0


def test_dirs_when_mount_root_is_the_container_cgroup(tmp_path: Path) -> None:
    # Inside a container the mount shows only the container's own subtree (mountinfo root = its path).
    root = _write(tmp_path / "cg", cpu__max="200000 100000")
    mountinfo = f"41 31 0:38 /kubepods/pod1/c1 {root} rw - cgroup2 x rw\n"
    dirs = cgroup.cgroup_dirs("cpu", "0::/kubepods/pod1/c1\n", mountinfo)
    assert dirs == [root]
    assert cgroup.cpu_quota(dirs) == 2.0


def test_usable_cores_rounds_quota_up_and_takes_the_smallest() -> None:
    assert usable_cores(64, 64, 2.0) == 2
    assert usable_cores(64, 8, None) == 8
    assert usable_cores(64, 8, 1.5) == 2
    assert usable_cores(4, None, 0.1) == 1


@given(st.integers(1, 10**9), st.integers(1, 10**7))
def test_cpu_max_any_quota_is_quota_over_period(quota: int, period: int) -> None:
    assert cgroup.parse_cpu_max(f"{quota} {period}") == quota / period
    assert cgroup.parse_cfs(str(quota), str(period)) == quota / period


@given(st.text(max_size=40))
def test_cgroup_parsers_never_raise(text: str) -> None:
    cgroup.parse_cpu_max(text)
    cgroup.parse_memory_limit(text)
    cgroup.parse_proc_cgroup(text)
    cgroup.parse_mountinfo(text)
