"""`fwadvisor bench --allreduce` refuses bad flags with one line and exit 2, before any child starts."""

from __future__ import annotations

import pytest

from advisor.cli import main
from advisor.evidence.children import CHILDREN


@pytest.mark.parametrize(("flags", "field"), [
    (["--allreduce", "--loopback", "2", "--sizes", "4Q"], "--sizes"),
    (["--allreduce", "--nnodes", "2"], "--leader"),
    (["--allreduce", "--nnodes", "2", "--leader", "node0"], "--leader"),
    (["--allreduce", "--nnodes", "1:4", "--leader", "node0:29500"], "--nnodes"),
    (["--allreduce", "--loopback", "0"], "--loopback"),
    (["--allreduce", "--loopback", "2", "--framework", "tensorflow"], "--framework"),
    (["--allreduce", "--loopback", "2", "--iters", "0"], "--iters"),
    (["--leader", "node0:29500"], "--leader"),
])
def test_bad_all_reduce_flags_are_one_line_and_exit_2(flags: list[str], field: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", *flags]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"fwadvisor: error: {field}:"), err
    assert out == "" and CHILDREN.alive() == []
