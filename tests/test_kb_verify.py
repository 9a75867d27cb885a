"""`kb verify` against a local PEP 503 index of tiny real wheels, with real pip configured as a user would."""

from __future__ import annotations

import copy
import html
import http.server
import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.knowledge import load_knowledge
from advisor.knowledge.schema import WheelPlatform
from advisor.knowledge.verify import Pip, verify_knowledge
from advisor.knowledge.verify.targets import host_platform

ROOT = Path(__file__).resolve().parent.parent
CORE_TAGS = {  # fwcore 1.1.0: no Linux aarch64 wheel (1.0.0 had one)
    "1.1.0": ["cp312-cp312-manylinux_2_28_x86_64", "cp313-cp313-manylinux_2_28_x86_64",
              "cp313-cp313t-manylinux_2_28_x86_64", "cp313-cp313-macosx_14_0_arm64", "cp313-cp313-win_amd64"],
    "1.0.0": ["cp313-cp313-manylinux_2_28_x86_64", "cp313-cp313-manylinux_2_28_aarch64"],
}
INSTALL_LINE = 'pip install -U "fwpure[plugin]"'
#: pip resolves dependencies (markers) only for the machine it runs on: the install claim is for this one.
HOST = (host_platform() or WheelPlatform.LINUX_X86_64).value
OTHER = next(p.value for p in WheelPlatform if p.value not in (HOST, "any"))


REQUIRES: dict[str, str] = {}  # wheel file name -> Requires-Python, for the index pages' data-requires-python


def _wheel(folder: Path, name: str, version: str, tag: str, requires_python: str, deps: tuple[str, ...] = (),
           extras: tuple[str, ...] = ()) -> None:
    """A minimal valid wheel: METADATA (with Requires-Python), WHEEL (with its tag) and RECORD."""
    dist = f"{name}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", f"Requires-Python: {requires_python}"]
    meta += [f"Provides-Extra: {e}" for e in extras] + [f"Requires-Dist: {d}" for d in deps]
    pure = tag.endswith("-none-any")
    files = {
        f"{name}/__init__.py": "",
        f"{dist}/METADATA": "\n".join(meta) + "\n",
        f"{dist}/WHEEL": f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: {str(pure).lower()}\nTag: {tag}\n",
    }
    record = "".join(f"{path},,\n" for path in files) + f"{dist}/RECORD,,\n"
    project = folder / name
    project.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path, text in {**files, f"{dist}/RECORD": record}.items():
            zf.writestr(path, text)
    (project / f"{name}-{version}-{tag}.whl").write_bytes(buf.getvalue())
    REQUIRES[f"{name}-{version}-{tag}.whl"] = requires_python


def _simple_index(root: Path) -> Path:
    """A PEP 503 layout on disk (an index.html per project, as a static mirror serves it)."""
    simple = root / "simple"
    for version, tags in CORE_TAGS.items():
        for tag in tags:
            _wheel(simple, "fwcore", version, tag, ">=3.12")
    extra = 'extra == "plugin"'
    _wheel(simple, "fwpure", "2.0", "py3-none-any", ">=3.11", (f"fwplugin==2.0; {extra}",), ("plugin",))
    _wheel(simple, "fwpure", "1.9", "py3-none-any", ">=3.11", (f"fwplugin==1.9; {extra}",), ("plugin",))
    _wheel(simple, "fwplugin", "1.9", "py3-none-any", ">=3.11")  # the 2.0 plugin the extra pins never shipped
    # fwmove went from one pure-Python wheel to wheels per CPython and platform: its newer releases drop `py3`.
    _wheel(simple, "fwmove", "1.0", "py3-none-any", ">=3.10")
    for version in ("2.0", "2.1"):
        for tag in ("cp312-cp312-manylinux_2_28_x86_64", "cp313-cp313-manylinux_2_28_x86_64",
                    "cp313-cp313-macosx_14_0_arm64"):
            _wheel(simple, "fwmove", version, tag, ">=3.12")
    for project in simple.iterdir():
        links = "".join(f'<a href="{w.name}" data-requires-python="{html.escape(REQUIRES[w.name])}">{w.name}</a>\n'
                        for w in sorted(project.glob("*.whl")))
        (project / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")
    return simple


CLAIMS: dict[str, Any] = {
    "distributions": [
        {"name": "fwcore", "latest": "1.1.0", "requires_python": ">=3.12",
         "wheels": {"linux_x86_64": ["cp313", "cp313t"], "macos_arm64": ["cp313"], "macos_x86_64": []},
         "sources": ["pkg:pypi/fwcore"], "as_of": "2026-12-03"},
        {"name": "fwpure", "latest": "2.0", "requires_python": ">=3.11", "wheels": {"any": ["py3"]},
         "sources": ["pkg:pypi/fwpure"], "as_of": "2026-12-03"},
    ],
    "installs": [
        {"line": INSTALL_LINE, "platform": HOST, "python": "cp313",
         "resolves": {"fwpure": "1.9", "fwplugin": "1.9"}, "sources": ["pkg:pypi/fwpure"], "as_of": "2026-12-03"},
    ],
}


def _pack(folder: Path, claims: dict[str, Any], extra_line: str | None = None) -> Path:
    """An overlay pack whose jax entry is the shipped one with these package claims (real YAML on disk)."""
    raw = yaml.safe_load((ROOT / "knowledge/frameworks/jax.yaml").read_text())
    raw["packages"] = claims
    raw["distributions"] = [d["name"] for d in claims["distributions"]]
    raw["hardware"]["cpu"]["install"] = INSTALL_LINE
    if extra_line:
        raw["hardware"]["nvidia_cuda"]["install"] = extra_line
    (folder / "frameworks").mkdir(parents=True)
    (folder / "frameworks/jax.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    (folder / "pack.yaml").write_text("name: verify-test\nversion: '1'\n")
    return folder


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local index, built once for the module."""
    return _simple_index(tmp_path_factory.mktemp("index"))


@pytest.fixture
def pip_env(index: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """pip pointed at the local index the way a user would: environment variables, no other config file."""
    for key in list(os.environ):
        if key.startswith("PIP_"):
            monkeypatch.delenv(key)
    settings = {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": index.as_uri(), "PIP_RETRIES": "0",
                "PIP_TIMEOUT": "5", "PIP_NO_CACHE_DIR": "1", "FWADVISOR_CACHE_DIR": str(tmp_path / "cache")}
    for key, value in settings.items():
        monkeypatch.setenv(key, value)
    return dict(os.environ) | {"PYTHONPATH": str(ROOT)}


def _verify(tmp_path: Path, claims: dict[str, Any]):  # type: ignore[no-untyped-def]
    kb = load_knowledge([_pack(tmp_path / "pack", claims)], include_user=False)
    return verify_knowledge(kb, frameworks=["jax"], pip=Pip(timeout=60, fresh=True), workers=4)


def test_matching_claims_show_no_drift_through_the_cli(tmp_path: Path, pip_env: dict[str, str]) -> None:
    pack = _pack(tmp_path / "pack", CLAIMS)
    out = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax", "--json"],
                         capture_output=True, text=True, env=pip_env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["schema"] == "fwadvisor.kb_verify/2" and report["status"] == "ok" and report["drift"] == 0
    jax = report["frameworks"]["jax"]
    assert jax["drift"] == [] and jax["stale"] == [] and jax["checks"] > 0
    assert {"reason": "no_claim", "subject": INSTALL_LINE, "detail": ""} not in jax["not_checked"]
    # Each check's time; the second run takes every answer from the cache, --fresh asks pip again.
    assert jax["times"] and all(t["seconds"] >= 0 and not t["cached"] for t in jax["times"])
    again = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax", "--json"],
                           capture_output=True, text=True, env=pip_env, timeout=120)
    assert all(t["cached"] for t in json.loads(again.stdout)["frameworks"]["jax"]["times"])
    fresh = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax", "--json",
                            "--fresh"], capture_output=True, text=True, env=pip_env, timeout=120)
    assert not any(t["cached"] for t in json.loads(fresh.stdout)["frameworks"]["jax"]["times"])


def test_stale_claims_are_drift(tmp_path: Path, pip_env: dict[str, str]) -> None:
    claims = copy.deepcopy(CLAIMS)
    core, pure = claims["distributions"]
    core["latest"] = "1.0.0"  # stale: 1.1.0 is out
    core["wheels"]["linux_aarch64"] = ["cp313"]  # 1.1.0 has no aarch64 wheel
    core["wheels"]["macos_arm64"] = ["cp313t"]  # only a cp313 wheel there: pip's abi3 fallback is not enough
    core["wheels"]["windows_amd64"] = []  # there is one
    pure["requires_python"] = ">=3.10"  # the wheel says >=3.11
    claims["installs"][0]["resolves"] = {"fwpure": "2.0"}  # the pinned plugin does not exist: pip backtracks
    # On another platform too: its wheel's markers are evaluated for that platform, not for this machine.
    claims["installs"].append(copy.deepcopy(claims["installs"][0]) | {"platform": OTHER, "resolves": {"fwpure": "2.0",
                                                                                       "fwplugin": "2.0"}})
    result = _verify(tmp_path, claims)
    drift = {(d.kind, d.subject, d.target): d for d in result.frameworks["jax"].drift}
    assert set(drift) == {("latest", "fwcore", None), ("wheel", "fwcore", "linux_aarch64/cp313"),
                          ("requires_python", "fwpure", None), ("install", INSTALL_LINE, f"{HOST}/cp313"),
                          ("install", INSTALL_LINE, f"{OTHER}/cp313"),
                          ("wheel", "fwcore", "macos_arm64/cp313t"), ("wheel", "fwcore", "windows_amd64/cp313")}
    latest = drift["latest", "fwcore", None]
    assert (latest.claimed, latest.found) == ("1.0.0", "1.1.0")
    assert latest.command == "python -m pip index versions fwcore"
    wheel = drift["wheel", "fwcore", "linux_aarch64/cp313"].command
    assert "--platform manylinux_2_28_aarch64" in wheel and "--abi cp313" in wheel
    assert str(ROOT) not in wheel and "file:" not in wheel  # no index location in the output
    assert "1.0.0" in drift["wheel", "fwcore", "linux_aarch64/cp313"].found
    assert drift["requires_python", "fwpure", None].found == ">=3.11"
    assert drift["install", INSTALL_LINE, f"{HOST}/cp313"].found == "fwpure 1.9"
    assert drift["install", INSTALL_LINE, f"{OTHER}/cp313"].found in ("fwpure 1.9", "fwplugin 1.9")
    assert result.to_json()["status"] == "drift"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    for bad in ("conda install jax", "pip install --user jax", "pip install", "pip install jax; rm -rf x",
                "pip install jax && echo", "pip install $(cat reqs)"):
        with pytest.raises(ValueError):
            parse_install_line(bad)


def test_a_release_that_drops_the_py3_tag_is_the_latest(tmp_path: Path, pip_env: dict[str, str]) -> None:
    """fwmove 2.x ships only cp312/cp313 wheels: its latest is 2.1, not the last `py3` wheel (1.0)."""
    claims = {"distributions": [{"name": "fwmove", "latest": "1.0", "requires_python": ">=3.10",
                                 "wheels": {"any": ["py3"]}, "sources": ["pkg:pypi/fwmove"], "as_of": "2026-12-03"}]}
    drift = {(d.kind, d.target): d for d in _verify(tmp_path, claims).frameworks["jax"].drift}
    assert (drift["latest", None].claimed, drift["latest", None].found) == ("1.0", "2.1")
    assert drift["wheel", "any/py3"].found.startswith("newest there 1.0")
    assert drift["requires_python", None].found == ">=3.12"  # the latest release's, not the py3 wheel's
    # Claimed as it is now, per platform and Python, there is no drift at all.
    claims["distributions"][0] |= {"latest": "2.1", "requires_python": ">=3.12",
                                   "wheels": {"linux_x86_64": ["cp312", "cp313"], "macos_arm64": ["cp313"],
                                              "windows_amd64": [], "any": []}}
    assert _verify(tmp_path / "again", claims).frameworks["jax"].drift == []


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


class _JsonIndex(http.server.BaseHTTPRequestHandler):
    """A PEP 691 JSON index (as PyPI serves it, with PEP 700 upload times) of one project, `fwdate`."""

    FILES = [("fwdate-1.0-py3-none-any.whl", "2026-11-01T10:00:00Z"), ("fwdate-2.0-py3-none-any.whl",
                                                                        "2026-12-10T09:30:00Z")]

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        if self.path.rstrip("/") != "/simple/fwdate":
            self.send_error(404)
            return
        files = [{"filename": f, "url": f"/files/{f}", "hashes": {}, "requires-python": ">=3.10", "upload-time": t}
                 for f, t in self.FILES]
        body = json.dumps({"meta": {"api-version": "1.1"}, "name": "fwdate", "files": files}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_facts_older_than_a_release_are_stale_and_a_vendor_index_is_not_checkable(
        tmp_path: Path, pip_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _JsonIndex)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{server.server_address[1]}/simple")
        claims = {"distributions": [{"name": "fwdate", "latest": "2.0", "requires_python": ">=3.10",
                                     "wheels": {"any": ["py3"]}, "sources": ["pkg:pypi/fwdate"],
                                     "as_of": "2026-12-11"}]}
        vendor = f"pip install fwvendor --index-url http://127.0.0.1:{_free_port()}/vendor/"
        pack = _pack(tmp_path / "pack", claims, extra_line=vendor)
        kb = load_knowledge([pack], include_user=False)
        verdict = verify_knowledge(kb, frameworks=["jax"], pip=Pip(timeout=60), workers=4).frameworks["jax"]
    finally:
        server.shutdown()
    assert verdict.drift == []
    (stale,) = verdict.stale  # 2.0 came out on 2026-12-10: the framework's facts dated before it are flagged
    assert (stale.distribution, stale.version, stale.released.isoformat()) == ("fwdate", "2.0", "2026-12-10")
    assert "packages.distributions.fwdate" not in stale.facts and "as_of" in stale.facts
    reasons = {(n.reason.value, n.subject) for n in verdict.not_checked}
    assert ("vendor_index", "fwvendor") in reasons  # never a pass: said to be not checkable here
    assert all("127.0.0.1" not in n.to_json()["detail"] for n in verdict.not_checked)


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
