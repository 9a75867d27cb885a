"""Ask the package indexes through pip itself (a child process), so the user's pip configuration applies.

Each question is one `python -c <lister.py> ...` child, started and ended by the one owner of child
processes (`advisor.evidence.children`): a signal, a timeout or a cancel ends it and everything it
started. Answers are validated (`answers.py`) and kept an hour (`cache.py`) unless `fresh`.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from advisor.evidence.children import CHILDREN, ChildrenClosed
from advisor.knowledge.verify import cache
from advisor.knowledge.verify.answers import (
    FileList,
    PipAnswerError,
    PipFailed,
    PipVersion,
    WheelMetadata,
    parse_answer,
)

#: The oldest pip whose internals the lister uses as it does (22.2; tested with the project's pip).
MIN_PIP = Version("22.2")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_LISTER = (Path(__file__).parent / "lister.py").read_text(encoding="utf-8")


def redact(text: str) -> str:
    """Text with every URL replaced by `<url>`: no index host reaches the output."""
    return _URL.sub("<url>", text)


class Cancelled(Exception):
    """The run was cancelled (an early "no index" decision, or the tool is stopping)."""


@dataclass(frozen=True)
class Asked:
    """One answer and what it cost: seconds, and whether it came from the cache."""

    seconds: float
    cached: bool


@dataclass
class Pip:
    """Runs pip's Python with a timeout, no shell, the user's environment and pip config, as owned children."""

    python: str = sys.executable
    timeout: float = 300.0
    fresh: bool = False
    cancel: threading.Event = field(default_factory=threading.Event)
    #: A pip constraints file in the user's config caps what pip resolves (a project's pins, not the
    #: index's content), so it is neutralised; index-url, find-links, proxy and certificates stay.
    env_overrides: dict[str, str] = field(default_factory=lambda: {"PIP_CONSTRAINT": os.devnull})

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PYTHONIOENCODING": "utf-8"})
        env.update(self.env_overrides)
        return env

    def _run(self, args: Sequence[str], label: str, timeout: float) -> tuple[int, bytes, bytes]:
        """(exit status, stdout, stderr) of one child; raises Cancelled, or PipFailed on a timeout."""
        if self.cancel.is_set():
            raise Cancelled
        with CHILDREN.temp_dir("kb-verify") as tmp:  # its cwd: a user's pip.py in the current folder shadows nothing
            try:
                proc = CHILDREN.popen([self.python, *args], env=self._env(), label=label, cwd=tmp,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            except ChildrenClosed:
                raise Cancelled from None
            except OSError as exc:
                raise PipFailed(f"{self.python} does not start: {exc.strerror or exc}", field=label) from None
            deadline = time.monotonic() + timeout
            try:
                while True:
                    try:
                        out, err = proc.communicate(timeout=0.1)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    if self.cancel.is_set() or CHILDREN.closed:
                        CHILDREN.end(proc)
                        raise Cancelled
                    if time.monotonic() > deadline:
                        CHILDREN.end(proc)
                        raise PipFailed(f"pip gave no answer in {timeout:g} s", field=label)
            except BaseException:
                CHILDREN.end(proc, interrupted=not isinstance(sys.exc_info()[1], Cancelled | PipFailed))
                raise
            CHILDREN.end(proc)  # whatever it left behind
        return proc.returncode, out, err

    def version(self) -> Version | None:
        """pip's version, or None when `python -m pip` does not run (kept an hour, like the answers)."""
        key = cache.cache_key(self.python, ["--version"])
        if not self.fresh and (hit := cache.load(key, PipVersion)) is not None:
            with contextlib.suppress(InvalidVersion):
                return Version(hit.version)
        try:
            code, out, _ = self._run(["-m", "pip", "--version"], "pip --version", 60)
        except (PipFailed, Cancelled):
            return None
        m = re.match(rb"pip (\S+) ", out)
        try:
            version = Version(m.group(1).decode("ascii")) if code == 0 and m else None
        except (InvalidVersion, UnicodeDecodeError):
            return None
        if version is not None:
            cache.store(key, PipVersion(version=str(version)))
        return version

    def _ask(self, question: list[str], model: type[FileList] | type[WheelMetadata], label: str
             ) -> tuple[FileList | WheelMetadata, Asked]:
        start = time.perf_counter()
        key = cache.cache_key(self.python, question)
        if not self.fresh and (hit := cache.load(key, model)) is not None:
            return hit, Asked(time.perf_counter() - start, True)
        code, out, err = self._run(["-c", _LISTER, *question], label, self.timeout)
        if code != 0 and not out.strip():
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            raise PipFailed(f"pip's Python exited with status {code}: {redact(tail[0])[:300]}", field=label)
        answer = parse_answer(out, model, label)
        if not isinstance(answer, FileList) or answer.pages.reached or answer.pages.absent:
            cache.store(key, answer)  # when no index answered at all, the next run asks again
        return answer, Asked(time.perf_counter() - start, False)

    def files(self, name: str, options: Sequence[str] = ()) -> tuple[FileList, Asked]:
        """Every file of `name` on pip's indexes (and those `options` name: a line's own --index-url)."""
        answer, asked = self._ask(["list", name, *options], FileList, f"files of {name}")
        assert isinstance(answer, FileList)
        return answer, asked

    def metadata(self, url: str, has_metadata_file: bool, options: Sequence[str] = ()) -> tuple[WheelMetadata, Asked]:
        """One wheel's Requires-Dist (its METADATA file where the index has one, else read from the wheel)."""
        meta_url = url + ".metadata" if has_metadata_file else ""
        name = redact(url).rsplit("/", 1)[-1]
        answer, asked = self._ask(["meta", url, meta_url, *options], WheelMetadata, f"metadata of {name}")
        assert isinstance(answer, WheelMetadata)
        return answer, asked


__all__ = ["Asked", "Cancelled", "Pip", "PipAnswerError", "PipFailed", "redact"]
