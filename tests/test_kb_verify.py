"""`kb verify` finds drift: a local PEP 503 index of tiny real wheels, with real pip configured as a user would.

The failure modes (no index, odd pip output, signals, the answer cache) are in `test_kb_verify_failures.py`:
two files, so that the suite's workers (one file each) run them side by side.
"""

from __future__ import annotations

import copy
import http.server
import json
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema
import pytest
import yaml
from _kb_verify_support import (
    CLAIMS,
    HOST,
    INSTALL_LINE,
    OTHER,
    ROOT,
    _free_port,
    _pack,
    _verify,
)

from advisor.knowledge import load_knowledge
from advisor.knowledge.verify import Pip, verify_knowledge
from advisor.knowledge.verify.results import VerifyResult, document, schema_text


def test_matching_claims_show_no_drift_through_the_cli(tmp_path: Path, pip_env: dict[str, str]) -> None:
    pack = _pack(tmp_path / "pack", CLAIMS)
    out = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax", "--json"],
                         capture_output=True, text=True, env=pip_env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    jsonschema.validate(report, json.loads(schema_text()))
    assert report["schema"] == "fwadvisor.kb_verify/3" and report["status"] == "ok" and report["drift"] == 0
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
    assert document(result)["status"] == "drift"


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
    shown = document(VerifyResult("pip", {"jax": verdict}))["frameworks"]["jax"]["not_checked"]
    assert shown and all("127.0.0.1" not in n["detail"] for n in shown)


def test_a_package_source_dated_other_than_its_release_is_drift(
        tmp_path: Path, pip_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _JsonIndex)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{server.server_address[1]}/simple")
        claims = {"distributions": [{"name": "fwdate", "latest": "2.0", "requires_python": ">=3.10",
                                     "wheels": {"any": ["py3"]}, "sources": ["pkg:pypi/fwdate"],
                                     "as_of": "2026-12-11"}]}
        pack = _pack(tmp_path / "pack", claims)
        raw = yaml.safe_load((pack / "frameworks/jax.yaml").read_text())
        raw["hardware"]["cpu"]["sources"] += [
            # dated with the day of a check, dated right, and a release the index does not have
            {"url": "pkg:pypi/fwdate@2.0", "quote": "fwdate-2.0-py3-none-any.whl", "date": "2026-12-04"},
            {"url": "pkg:pypi/fwdate@1.0", "quote": "fwdate-1.0-py3-none-any.whl", "date": "2026-11-01"},
            {"url": "pkg:pypi/fwdate@9.9", "quote": "fwdate-9.9-py3-none-any.whl", "date": "2026-11-01"},
        ]
        # pip's "newest release" line cites that release, though the Package URL names no version.
        raw["platforms"]["linux"]["sources"] = [{"url": "pkg:pypi/fwdate", "quote": "fwdate (1.0)",
                                                 "date": "2026-12-04"},
                                                {"url": "pkg:pypi/fwdate", "date": "2026-12-03",
                                                 "quote": "fwdate (1.0)\nAvailable versions: 1.0, 0.9"}]
        (pack / "frameworks/jax.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
        kb = load_knowledge([pack], include_user=False)
        result = verify_knowledge(kb, frameworks=["jax"], pip=Pip(timeout=60, fresh=True), workers=4,
                                  source_dates=True)
    finally:
        server.shutdown()
    dated = result.source_dates
    assert dated is not None
    wrong = {(d.subject, d.target, d.claimed, d.found) for d in dated.drift}
    assert wrong == {
        ("pkg:pypi/fwdate@2.0", "frameworks.jax.hardware.cpu", "2026-12-04", "released 2026-12-10 (first upload)"),
        ("pkg:pypi/fwdate@9.9", "frameworks.jax.hardware.cpu", "release 9.9",
         "no such release on the configured indexes"),
        ("pkg:pypi/fwdate@1.0", "frameworks.jax.platforms.linux", "2026-12-04", "released 2026-11-01 (first upload)"),
        # pip's line with its list of versions after it cites that release too
        ("pkg:pypi/fwdate@1.0", "frameworks.jax.platforms.linux", "2026-12-03", "released 2026-11-01 (first upload)"),
    }
    # The shipped jax entry's other package sources are not on this one-project index: said, never passed.
    assert dated.not_checked and {n.reason.value for n in dated.not_checked} == {"not_on_index"}
    assert document(result)["drift"] == result.drift_count >= 2


def test_the_published_kb_verify_schema_is_generated_from_the_models() -> None:
    committed = (ROOT / "docs" / "kb-verify.schema.json").read_text(encoding="utf-8")
    regenerate = "python -c 'from advisor.knowledge.verify.results import schema_text as s; print(s(), end=\"\")'"
    assert committed == schema_text(), f"run: {regenerate} > docs/kb-verify.schema.json"


def test_the_text_output_shows_no_markup_tags(tmp_path: Path, pip_env: dict[str, str]) -> None:
    # The CLI's console never parses markup, so a style written as a tag would print as "[green]jax[/]".
    pack = _pack(tmp_path / "pack", CLAIMS)
    out = subprocess.run([sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "verify", "jax"],
                         capture_output=True, text=True, env=pip_env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "jax: no drift" in out.stdout and "[/" not in out.stdout, out.stdout
