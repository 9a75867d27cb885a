"""`kb verify` when things go wrong: no index, odd pip output, a signal, a planted cache entry (real pip, real CLI)."""

from __future__ import annotations

import copy
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _kb_verify_support import (
    CLAIMS,
    _free_port,
    _pack,
)


@pytest.mark.parametrize("where", ["missing_folder", "closed_port"])
def test_no_index_is_exit_2_with_one_line(tmp_path: Path, pip_env: dict[str, str], where: str) -> None:
    claims = copy.deepcopy(CLAIMS)
    claims["distributions"][0]["wheels"] = {"linux_x86_64": ["cp313"]}
    pack = _pack(tmp_path / "pack", claims)
    url = (tmp_path / "nowhere").as_uri() if where == "missing_folder" else f"http://127.0.0.1:{_free_port()}/simple"
    env = pip_env | {"PIP_INDEX_URL": url}
    out = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "reached no package index" in out.stderr
    assert "127.0.0.1" not in out.stderr and str(tmp_path) not in out.stderr


def test_install_lines_are_read_without_a_shell() -> None:
    from advisor.knowledge.verify.lines import parse_install_line

    line = parse_install_line("pip install mindspore (after installing the matching CANN toolkit)")
    assert line.requirements == ("mindspore",) and line.options == ()
    line = parse_install_line("python -m pip install -U paddlepaddle-gpu -i https://example.invalid/cu126/")
    assert line.requirements == ("paddlepaddle-gpu",) and line.options == ("-i", "https://example.invalid/cu126/")
    assert parse_install_line('pip install keras "jax[cuda13]"').requirements == ("keras", "jax[cuda13]")
    line = parse_install_line("pip3 install torch --index-url https://example.invalid/rocm7.14")  # PyTorch's spelling
    assert line.requirements == ("torch",) and line.options == ("--index-url", "https://example.invalid/rocm7.14")
    for bad in ("conda install jax", "pip3 uninstall jax", "pip install --user jax", "pip install",
                "pip install jax; rm -rf x", "pip install jax && echo", "pip install $(cat reqs)"):
        with pytest.raises(ValueError):
            parse_install_line(bad)


FAKE_PIP = """import sys
if sys.argv[1:3] == ["-m", "pip"]:
    print("pip 23.2.1 from /nowhere (python 3.11)")
else:
    sys.stdout.buffer.write({answer!r})
"""


@pytest.mark.parametrize("answer", [b"[]", b'{"files": 3, "pages": {}}', b"\xff\xfe not utf-8", b"not json",
                                    b'{"files": [{"filename": null}], "pages": {"reached": 1, "absent": 0, '
                                    b'"failed": 0}}', b""])
def test_odd_pip_output_is_one_line_exit_2_fake_pip_python(tmp_path: Path, pip_env: dict[str, str],
                                                            answer: bytes) -> None:
    """A `--python` that answers like no pip does (faked: real pip never prints these)."""
    fake = tmp_path / "fakepython"
    fake.write_text(f"#!{sys.executable}\n" + FAKE_PIP.format(answer=answer))
    fake.chmod(0o755)
    pack = _pack(tmp_path / "pack", CLAIMS)
    out = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax", "--python",
                          str(fake)], capture_output=True, text=True, env=pip_env, timeout=120)
    assert out.returncode == 2, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr and out.stdout == ""
    assert "files of " in out.stderr


def test_the_first_no_index_answers_end_the_run_early(tmp_path: Path, pip_env: dict[str, str]) -> None:
    claims = copy.deepcopy(CLAIMS)
    many = [copy.deepcopy(claims["distributions"][1]) | {"name": f"fwpkg{i}"} for i in range(12)]
    claims["distributions"] += many
    pack = _pack(tmp_path / "pack", claims)
    env = pip_env | {"PIP_INDEX_URL": (tmp_path / "nowhere").as_uri()}
    out = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax", "--jobs", "2",
                          "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2 and "the first 3 questions" in out.stderr


def _stalling_index() -> tuple[socket.socket, int]:
    """A real HTTP index on 127.0.0.1 that accepts connections and never answers (pip's requests hang)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    return server, int(server.getsockname()[1])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_kb_verify_and_every_pip_child(tmp_path: Path, pip_env: dict[str, str],
                                                     sig: signal.Signals) -> None:
    import psutil

    server, port = _stalling_index()
    pack = _pack(tmp_path / "pack", CLAIMS)
    env = pip_env | {"PIP_INDEX_URL": f"http://127.0.0.1:{port}/simple", "PIP_TIMEOUT": "600"}
    proc = subprocess.Popen([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        pips: list[psutil.Process] = []
        while len(pips) < 2 and time.monotonic() < deadline:  # pip children waiting on the stalled index
            time.sleep(0.2)
            pips = [p for p in psutil.Process(proc.pid).children(recursive=True) if "-c" in p.cmdline()]
        assert len(pips) >= 2, "no pip child started"
        sent = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        proc.kill()
        server.close()
    assert proc.returncode == {signal.SIGTERM: 143, signal.SIGINT: 130}[sig], err
    assert took < 10, f"{took:.1f} s to stop"
    assert "Traceback" not in err and f"interrupted by {sig.name}" in err and "no child process" not in err
    assert not [p for p in pips if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_a_planted_cache_entry_is_a_miss_and_a_link_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    from advisor.knowledge.verify import cache
    from advisor.knowledge.verify.answers import FileList, Pages

    monkeypatch.setenv("FWADVISOR_CACHE_DIR", str(tmp_path))
    answer = FileList(files=[], pages=Pages(reached=1, absent=0, failed=0))
    folder = tmp_path / "kb-verify"
    folder.mkdir()
    (folder / "bad.json").write_bytes(b'{"key": "bad", "stored": 1e300, "answer": []}')
    assert cache.load("bad", FileList) is None
    (folder / "shape.json").write_text(json.dumps({"key": "shape", "stored": time.time(), "answer": {"files": 1}}))
    assert cache.load("shape", FileList) is None
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (folder / "link.json").symlink_to(victim)
    cache.store("link", answer)
    assert victim.read_text() == "keep me"
    cache.store("good", answer)
    assert cache.load("good", FileList) == answer
