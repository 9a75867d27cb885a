"""SIGINT and SIGTERM for the whole tool: end every child at once, then exit 130/143 with one line on stderr.

The handler starts ending the children at once (through the one registry,
`advisor.evidence.children`), in a thread of its own, so the time to clean up does not depend on
what the main thread is doing: waiting on a worker thread, inside a child's wait loop, half-way
through an import, or running the TUI's event loop. Then SIGINT raises KeyboardInterrupt and
SIGTERM raises `Terminated` (a SystemExit), so the `finally` blocks on the way out (temporary
files) run; `main` turns either into its exit code and one line. A program that shows its own
screen (the TUI) takes the signal instead of the exception with `deliver_to`, and exits itself.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

from advisor.evidence.children import CHILDREN, Stopped

T = TypeVar("T")

#: The conventional exit codes: 128 + the signal number.
EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Terminated(SystemExit):
    """SIGTERM arrived: leave through the `finally` blocks, exit 143."""

    def __init__(self) -> None:
        super().__init__(EXIT_CODES[signal.SIGTERM])


class _State:
    signum: int | None = None
    stopped = Stopped()
    deliver: Callable[[int], None] | None = None
    stopper: threading.Thread | None = None


def _stop() -> None:
    _State.stopped.merge(CHILDREN.close())


def _handle(signum: int, _frame: FrameType | None) -> None:
    # Python runs handlers in the main thread only, so no lock: a lock taken here would deadlock on a nested signal.
    if _State.signum is not None:
        return  # already stopping: a second Ctrl-C must not abort the clean-up
    _State.signum = signum
    # The children are ended in a thread of their own: the handler may interrupt the main thread anywhere (even
    # half-way through importing a module that ending them needs), and this way ending them does not wait for
    # the main thread to get through the `finally` blocks below.
    _State.stopper = threading.Thread(target=_stop, name="fwadvisor-stop", daemon=True)
    _State.stopper.start()
    if _State.deliver is not None:
        _State.deliver(signum)
        return
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated


@contextlib.contextmanager
def owning_children() -> Iterator[None]:
    """Install the handlers for one command; end every child afterwards (the registry's atexit hook is the net)."""
    _State.signum, _State.stopped, _State.deliver, _State.stopper = None, Stopped(), None, None
    previous = {s: signal.signal(s, _handle) for s in EXIT_CODES}
    try:
        yield
    finally:
        # After a signal the registry stays closed; after a normal return (tests call `main` in-process) it
        # only ends what is left, so the process can start children again.
        _State.stopped.merge(CHILDREN.close() if _State.signum is not None else CHILDREN.stop_all())
        for s, h in previous.items():
            signal.signal(s, h)


def deliver_to(callback: Callable[[int], None] | None) -> None:
    """Call `callback(signum)` instead of raising (after the children are ended); None restores raising."""
    _State.deliver = callback


def interrupted(signum: int | None = None) -> int:
    """The exit code for the signal that stopped the tool, after one line on stderr saying what was stopped."""
    signum = signum or _State.signum or signal.SIGINT
    if _State.stopper is not None:
        _State.stopper.join(10)  # ending takes about a second at most; the bound is against a stuck kernel call
    _stop()  # what started meanwhile, and a Ctrl-C that Python raised itself before a handler was installed
    name = signal.Signals(signum).name
    print(f"fwadvisor: interrupted by {name}: {_State.stopped.describe()}", file=sys.stderr, flush=True)
    return EXIT_CODES.get(signal.Signals(signum), 128 + signum)


def outcome(code: int) -> int:
    """The command's exit code, or the signal's when one came but its exception never reached `main`.

    The handler raises in whatever the main thread is running, and an exception raised inside a finalizer or a
    callback Python calls for itself is printed and dropped, not propagated: the command then runs to its end
    with every child already stopped, and must still exit as stopped, with its one line.
    """
    signum = _State.signum
    if signum is None or code == EXIT_CODES.get(signal.Signals(signum)):
        return code  # no signal, or the command (the TUI) has already said it was stopped
    return interrupted(signum)


def quiet_once_stopping(callback: Callable[[Any], None] | None) -> Callable[[Any], None] | None:
    """A progress callback that falls silent once a signal came, so the last line says what was stopped."""
    if callback is None:
        return None

    def relay(event: Any) -> None:
        if _State.signum is None:
            callback(event)

    return relay


def received() -> int | None:
    """The signal that stopped the tool, if one did."""
    return _State.signum


def run_cancellable(work: Callable[[threading.Event], T], *, name: str) -> T:
    """`work(cancel)` in a worker thread, the main thread waiting where the signal handlers can reach it.

    Ctrl-C and SIGTERM are delivered to the main thread only: its handler (above) has begun ending every
    child when the exception arrives here, and the cancel event then stops the worker from starting more
    (the frameworks, nodes or benchmarks that remain). The worker's own exception is raised here.
    """
    cancel = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work(cancel)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread below
            box["error"] = exc

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except BaseException:
        cancel.set()
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
