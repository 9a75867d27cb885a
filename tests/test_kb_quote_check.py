"""The quote checker against a real wheel and sdist served by a local PEP 691 index: verbatim or not found."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent

METADATA = """Metadata-Version: 2.1
Name: demo
Version: 1.0
Requires-Dist: numpy>=1.26
Requires-Dist: scipy>=1.10
Description-Content-Type: text/markdown

Runs on **Apple silicon** through the `mps` device; see [the guide](https://example.org/guide).
"""


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kb_quote_check", ROOT / "benchmarks" / "kb_quote_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses (and the process pool) look their module up there
    spec.loader.exec_module(module)
    return module


def _wheel(path: Path) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("demo-1.0.dist-info/METADATA", METADATA)
        zf.writestr("demo/__init__.py", 'BACKENDS = ["cpu", "cuda", "rocm"]\n"""Supported: cpu, cuda,\n  rocm."""\n'
                    'raise ValueError(\n    "only the JAX "\n    "backend"\n)  # a comment\n# that goes on\n')
        zf.writestr("demo/_native.so", b"\x7fELF\x00\x01\x00libdemo needs CUDA 12.8\x00\x02\x00sm_90\x00")


def _sdist(path: Path) -> None:
    with tarfile.open(path, "w:gz") as tf:
        for name, text in [("demo-1.0/PKG-INFO", METADATA), ("demo-1.0/NOTES.txt", "Only the sdist says this.\n")]:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PEP 691 index on localhost: `demo` 1.0 (a wheel and an sdist), `bad` 1.0 whose wheel's sha256 is wrong."""
    files = tmp_path_factory.mktemp("files")
    _wheel(files / "demo-1.0-py3-none-any.whl")
    (files / "demo-1.0-py3-none-any.whl.metadata").write_text(METADATA)
    _sdist(files / "demo-1.0.tar.gz")
    _wheel(files / "bad-1.0-py3-none-any.whl")

    def entry(name: str, sha: str | None = None) -> dict[str, object]:
        data = (files / name).read_bytes()
        out: dict[str, object] = {"filename": name, "url": f"../../files/{name}", "size": len(data),
                                  "hashes": {"sha256": sha or hashlib.sha256(data).hexdigest()}}
        if (files / f"{name}.metadata").is_file():  # PEP 658/714: the core metadata on its own
            out["core-metadata"] = {"sha256": hashlib.sha256((files / f"{name}.metadata").read_bytes()).hexdigest()}
        return out

    pages = {
        "/simple/demo/": {"meta": {"api-version": "1.1"}, "name": "demo",
                          "files": [entry("demo-1.0-py3-none-any.whl"), entry("demo-1.0.tar.gz")]},
        "/simple/bad/": {"meta": {"api-version": "1.1"}, "name": "bad",
                         "files": [entry("bad-1.0-py3-none-any.whl", "0" * 64)]},
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path in pages:
                body, kind = json.dumps(pages[self.path]).encode(), "application/vnd.pypi.simple.v1+json"
            elif self.path.startswith("/files/") and (files / self.path[7:]).is_file():
                body, kind = (files / self.path[7:]).read_bytes(), "application/octet-stream"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    server.shutdown()
    thread.join()


def _check(index: str, cache: Path, *quotes: str, name: str = "demo", jobs: int = 1) -> dict[str, dict]:
    qc = _checker()
    cites = [qc.Cited("knowledge/x.yaml", n, "field", name, "1.0", q) for n, q in enumerate(quotes, 1)]
    result = qc.run(cites, index, cache, jobs, 10**9)
    return {r["quote"]: r for r in result["quotes"]} | {"": result}


def test_verbatim_quotes_are_found_where_they_are(index: str, tmp_path: Path) -> None:
    got = _check(index, tmp_path, "demo-1.0.tar.gz", "Requires-Dist: scipy>=1.10", "Supported: cpu, cuda, rocm.",
                 "libdemo needs CUDA 12.8", "Only the sdist says this.", "demo/__init__.py demo/_native.so",
                 "only the JAX backend")
    assert got["demo-1.0.tar.gz"]["kind"] == "file names"
    assert got["Requires-Dist: scipy>=1.10"]["kind"] == "metadata"
    assert got["Requires-Dist: scipy>=1.10"]["place"] == "demo-1.0-py3-none-any.whl.metadata"
    # A line break inside the quoted text is whitespace like any other.
    assert got["Supported: cpu, cuda, rocm."]["kind"] == "smallest wheel"
    assert got["Supported: cpu, cuda, rocm."]["place"] == "demo-1.0-py3-none-any.whl:demo/__init__.py"
    assert got["libdemo needs CUDA 12.8"]["place"].endswith("demo/_native.so")
    assert got["Only the sdist says this."]["kind"] == "sdist"
    # A message split over adjacent string literals is found as the string Python makes of it.
    assert got["only the JAX backend"]["place"] == "demo-1.0-py3-none-any.whl:demo/__init__.py (Python string value)"
    # Consecutive member names, as `zipinfo -1` lists them.
    assert got["demo/__init__.py demo/_native.so"]["place"] == "demo-1.0-py3-none-any.whl (member names)"
    assert got[""]["summary"]["not_found"] == 0 and not got[""]["problems"]


def test_joined_lines_and_skipped_entries_are_not_found(index: str, tmp_path: Path) -> None:
    joined = "numpy>=1.26, scipy>=1.10"  # two Requires-Dist lines, prefix dropped, joined with ", "
    skipped = 'BACKENDS = ["cpu", "rocm"]'  # an entry of the list left out
    members = "demo-1.0.dist-info/METADATA demo/_native.so"  # demo/__init__.py, between them, left out
    comments = "a comment that goes on"  # two comment lines joined, their "#" dropped
    got = _check(index, tmp_path, joined, skipped, members, comments)
    assert not any(got[q]["found"] for q in (joined, skipped, members, comments))
    # Having missed, it searched everything: names, metadata, the wheel and the sdist.
    assert any("demo-1.0.tar.gz" in s for s in got[joined]["searched"])
    text = _checker().render(got[""])
    assert 'NOT FOUND knowledge/x.yaml:1 field: demo@1.0: "numpy>=1.26, scipy>=1.10"' in text
    assert "not found 4" in text.splitlines()[-1]


def test_markup_removed_matches_and_says_so(index: str, tmp_path: Path) -> None:
    plain = "Runs on Apple silicon through the mps device; see the guide."
    marked = "Runs on *Apple silicon* through the `mps` device"
    got = _check(index, tmp_path, plain, marked, "Runs on **Apple silicon** through the `mps` device")
    assert got[plain]["found"] and got[plain]["markup_removed"]
    assert got[marked]["found"] and got[marked]["markup_removed"]
    verbatim = got["Runs on **Apple silicon** through the `mps` device"]
    assert verbatim["found"] and not verbatim["markup_removed"]
    assert got[""]["summary"]["found"] == {"metadata": 1, "metadata (markup removed)": 2}


def test_a_sha256_mismatch_is_reported(index: str, tmp_path: Path) -> None:
    got = _check(index, tmp_path, "libdemo needs CUDA 12.8", name="bad", jobs=2)
    assert not got["libdemo needs CUDA 12.8"]["found"]
    problems = got[""]["problems"]
    assert len(problems) == 1 and problems[0].startswith(
        f"bad@1.0: bad-1.0-py3-none-any.whl: sha256 mismatch (index {'0' * 64}, got ")
    assert not list((tmp_path / "bad").glob("*.whl")), "a file that failed its hash stays out of the cache"
    assert "PROBLEM bad@1.0: bad-1.0-py3-none-any.whl: sha256 mismatch" in _checker().render(got[""])


def test_an_unreachable_index_is_exit_2_in_one_line(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    qc = _checker()
    monkeypatch.setattr(sys.modules["kb_quote_index"], "RETRY_PAUSE", 0)
    assert qc.main(["easyocr", "--index-url", "http://127.0.0.1:9/simple", "--jobs", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kb_quote_check: http://127.0.0.1:9/simple/easyocr/: ")
    assert qc.main(["no-such-package"]) == 2
    assert "no quoted pkg:pypi@VERSION sources match no-such-package" in capsys.readouterr().err


def test_the_builtin_pack_names_each_quote_by_file_line_and_field() -> None:
    cites = _checker().cited(ROOT / "knowledge", ["easyocr@1.7.2"])
    assert cites and all(c.name == "easyocr" and c.version == "1.7.2" and c.line for c in cites)
    assert all(c.file.startswith("knowledge/") and c.field for c in cites)


def test_pips_own_line_is_checked_against_the_index(index: str, tmp_path: Path) -> None:
    got = _check(index, tmp_path, "demo (1.0)", "demo (1.0) Available versions: 1.0, 0.9")
    assert got["demo (1.0)"]["kind"] == "pip line, on the index"
    assert not got["demo (1.0) Available versions: 1.0, 0.9"]["found"]  # 0.9 is not on the index
