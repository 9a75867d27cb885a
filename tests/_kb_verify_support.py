"""`kb verify` test support: a local PEP 503 index of tiny real wheels, a pack with package claims, pip's settings."""

from __future__ import annotations

import html
import io
import os
import socket
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


def pip_settings(index: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
