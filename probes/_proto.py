"""The JSON-lines protocol every child script speaks (standard library only).

One JSON object per line on stdout; the last one is {"event": "done"}. Anything a framework
prints to stdout itself is moved to stderr while the framework is imported, so it cannot
corrupt the stream.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Any

_OUT = sys.stdout


def emit(event: str, **fields: Any) -> None:
    """Write one event line and flush it, so the parent sees progress live."""
    _OUT.write(json.dumps({"event": event, **fields}, default=str) + "\n")
    _OUT.flush()


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Send anything printed inside the block to stderr (framework banners, warnings)."""
    saved = sys.stdout
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = saved


def timed_import(name: str) -> tuple[Any, float] | None:
    """Import a framework, emit an `import` event with the time it took; None (event ok=false) on failure."""
    start = time.perf_counter()
    try:
        with quiet_stdout():
            module = __import__(name)
    except BaseException as exc:  # noqa: BLE001 - any failure to import is a result, not a crash
        emit(
            "import",
            ok=False,
            module=name,
            error=f"{type(exc).__name__}: {exc}"[:1000],
            traceback=traceback.format_exc(limit=3)[-2000:],
        )
        return None
    seconds = time.perf_counter() - start
    emit("import", ok=True, module=name, seconds=round(seconds, 4))
    return module, seconds


def done(**fields: Any) -> None:
    """The closing event: without it the parent reports `bad_output`."""
    emit("done", **fields)


def exit_now(code: int = 0) -> None:
    """Flush and leave at once, skipping interpreter teardown (about 1 s after importing torch or TensorFlow).

    Call it only after `done()`: everything the parent needs has been written by then, and a
    framework's atexit handlers and destructors have nothing left to report.
    """
    import os

    for stream in (_OUT, sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
