"""The one owner of the advisor's child processes: starts them marked, ends them and theirs, removes their temp folders.

Every framework child is started here, in its own session (process group), with
`FWADVISOR_RUN_ID=<run id>.<n>` in its environment. Children inherit the environment, so the
marker also reaches processes that leave the group: torchrun starts each worker in a session of
its own, and a worker whose launcher was killed is re-parented to PID 1. Ending a child
therefore means: collect its process tree (psutil) and every process carrying its marker,
SIGTERM them and their groups, wait briefly, SIGKILL what is left, and scan once more for
stragglers started meanwhile. The CLI's signal handlers, the atexit hook, a run's cancel event
(through `run_child`) and the TUI's quit all come here; `close()` also refuses new children, so
a worker thread that is still running cannot start one after the tool decided to stop.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psutil

#: The environment variable every child (and every process it starts) carries.
MARKER = "FWADVISOR_RUN_ID"
#: Seconds between SIGTERM and SIGKILL; framework children die at once on SIGTERM, torchrun needs a moment.
GRACE_S = 0.5
#: Seconds to wait for SIGKILLed processes to disappear before giving up on them (they are reported).
KILL_WAIT_S = 0.8


class ChildrenClosed(RuntimeError):
    """The tool is stopping: no new child process is started."""


@dataclass
class _Child:
    proc: subprocess.Popen[Any]
    label: str
    marker: str


@dataclass
class Stopped:
    """What one stop ended: labels of the children, how many processes in all, survivors (should be none)."""

    labels: list[str] = field(default_factory=list)
    pids: set[int] = field(default_factory=set)  # a set: two stops racing for one process count it once
    survivors: list[int] = field(default_factory=list)
    temp_dirs: int = 0
    seconds: float = 0.0

    def merge(self, other: Stopped) -> None:
        """Add another stop's figures to this one."""
        self.labels += other.labels
        self.pids |= other.pids
        self.survivors += other.survivors
        self.temp_dirs += other.temp_dirs
        self.seconds = max(self.seconds, other.seconds)  # stops run concurrently: the longest one

    @property
    def processes(self) -> int:
        """How many processes were ended."""
        return len(self.pids)

    def describe(self) -> str:
        """One phrase: "stopped torch.distributed.run and 2 processes it started in 0.6 s"."""
        names = list(dict.fromkeys(self.labels))
        if not self.processes:
            text = "no child process was running"
        else:
            own = len(names) or 1
            text = f"stopped {', '.join(names) or 'a child process'}"
            if self.processes > own:
                extra = self.processes - own
                text += f" and {extra} process{'es' if extra != 1 else ''} {'it' if own == 1 else 'they'} started"
            text += f" in {self.seconds:.1f} s"
        if self.temp_dirs:
            text += f"; removed {self.temp_dirs} temporary folder{'s' if self.temp_dirs != 1 else ''}"
        if self.survivors:
            text += f"; still running: PID {', '.join(map(str, sorted(set(self.survivors))))}"
        return text


def _alive(p: psutil.Process) -> bool:
    import psutil

    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _remove_tree(path: Path, patience_s: float = GRACE_S + KILL_WAIT_S + 0.5) -> None:
    """Remove a folder, again while a dying process still writes into it (one pass then fails on 'not empty')."""
    deadline = time.monotonic() + patience_s
    while True:
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists() or time.monotonic() > deadline:
            return
        time.sleep(0.05)


class Children:
    """The registry of live children of this process (one instance, `CHILDREN`, per process)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.RLock()  # new after a fork too: another thread may have held the parent's
        self.run_id = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._live: dict[int, _Child] = {}
        self._temp_dirs: set[Path] = set()
        self._seq = itertools.count(1)
        self._closed = False
        self._at_exit = False
        self._ended_by_interrupt = Stopped()

    # --- starting ----------------------------------------------------------------------------------

    def popen(self, cmd: Sequence[str], *, env: dict[str, str], label: str, **kwargs: Any) -> subprocess.Popen[Any]:
        """Start `cmd` in a new session with this run's marker; raises `ChildrenClosed` once the tool is stopping."""
        import psutil  # noqa: F401 - imported before there is a child to end, never first while ending one

        if not self._at_exit:
            # Also for the library used without the CLI (tests, a notebook): what is left is ended at exit.
            atexit.register(self.close)
            self._at_exit = True
        with self._lock:  # held across the start, so a concurrent close() sees every child started before it
            if self._closed:
                raise ChildrenClosed("the tool is stopping; no new child process")
            marker = f"{self.run_id}.{next(self._seq)}"
            proc: subprocess.Popen[Any] = subprocess.Popen(  # noqa: S603 - an argument list, never a shell string
                list(cmd), env={**env, MARKER: marker}, start_new_session=True, **kwargs
            )
            self._live[proc.pid] = _Child(proc, label, marker)
        return proc

    @contextlib.contextmanager
    def temp_dir(self, label: str) -> Iterator[Path]:
        """A private folder for one child's temporary files (its TMPDIR), removed afterwards or on stop."""
        path = Path(tempfile.mkdtemp(prefix=f"fwadvisor-{label}-"))
        with self._lock:
            self._temp_dirs.add(path)
        try:
            yield path
        finally:
            with self._lock:
                ours = path in self._temp_dirs  # else a stop took it and removes it once its processes are gone
            if ours:
                # It stays listed until it is gone: a stop (or the exit) removes it again after killing the processes
                # that may still be writing into it (torchrun's workers, as their launcher dies).
                _remove_tree(path)
                with self._lock:
                    if path in self._temp_dirs and not path.exists():
                        self._temp_dirs.discard(path)
                        if self._closed:
                            self._ended_by_interrupt.temp_dirs += 1  # removed here first: the stop's summary says so

    # --- ending ------------------------------------------------------------------------------------

    def end(self, proc: subprocess.Popen[Any], *, interrupted: bool = False) -> Stopped:
        """End one child, its descendants and everything carrying its marker (also after it exited: leftovers)."""
        with self._lock:
            child = self._live.get(proc.pid)
        marker = child.marker if child else None
        stopped = self._stop([proc] if proc.returncode is None else [], [marker] if marker else [])
        if proc.returncode is None:
            proc.poll()  # reap it unless the thread that waits on it does
        with self._lock:
            self._live.pop(proc.pid, None)
        if child is not None and stopped.processes:
            stopped.labels.append(child.label)
        if interrupted or self._closed:
            # Part of the tool's stop (a thread that saw the cancel first): the stop's summary names it too.
            with self._lock:
                self._ended_by_interrupt.merge(stopped)
        return stopped

    def close(self) -> Stopped:
        """Refuse new children, end every live one (and theirs), remove the temp folders; safe to call twice."""
        with self._lock:
            self._closed = True
        return self.stop_all()

    def stop_all(self) -> Stopped:
        """End every live child and every process carrying this run's marker; remove the temp folders."""
        start = time.monotonic()
        with self._lock:
            live = list(self._live.values())
        stopped = self._stop([c.proc for c in live if c.proc.returncode is None], [f"{self.run_id}."], prefix=True)
        for c in live:
            c.proc.poll()
        with self._lock:
            for c in live:
                self._live.pop(c.proc.pid, None)
            dirs, self._temp_dirs = list(self._temp_dirs), set()
        for d in dirs:
            _remove_tree(d)
        stopped.temp_dirs = len(dirs)
        with self._lock:  # taken last: what another thread ended or removed meanwhile belongs to this stop too
            earlier, self._ended_by_interrupt = self._ended_by_interrupt, Stopped()
        ended = [c.label for c in live if c.proc.pid in stopped.pids]
        stopped.labels = (ended or [c.label for c in live]) if stopped.processes else []
        stopped.seconds = time.monotonic() - start
        earlier.merge(stopped)
        return earlier

    @property
    def closed(self) -> bool:
        """Whether the tool is stopping (no new child is started)."""
        return self._closed

    def alive(self) -> list[int]:
        """PIDs of processes of this run still running: registered children, their trees, marked processes."""
        procs = self._collect([c.proc for c in list(self._live.values()) if c.proc.returncode is None],
                              [f"{self.run_id}."], prefix=True)
        return sorted(p.pid for p in procs if _alive(p))

    # --- the mechanics -----------------------------------------------------------------------------

    def _collect(self, roots: Sequence[subprocess.Popen[Any]], markers: Sequence[str],
                 prefix: bool = False) -> list[psutil.Process]:
        import psutil

        found: dict[int, psutil.Process] = {}
        me = os.getpid()
        for proc in roots:
            try:
                p = psutil.Process(proc.pid)
                found[p.pid] = p
                for d in p.children(recursive=True):
                    found[d.pid] = d
            except psutil.Error:
                pass
        if markers:
            for p in psutil.process_iter():
                if p.pid == me or p.pid in found:
                    continue
                try:
                    value = p.environ().get(MARKER)
                except (psutil.Error, OSError):
                    continue
                if value and any(value.startswith(m) if prefix else value == m for m in markers):
                    found[p.pid] = p
        return list(found.values())

    def _signal(self, procs: Sequence[psutil.Process], roots: Sequence[subprocess.Popen[Any]], sig: int) -> None:
        import psutil

        own = os.getpgrp()
        groups = {r.pid for r in roots if r.returncode is None}
        for p in procs:
            with contextlib.suppress(psutil.Error, OSError):
                groups.add(os.getpgid(p.pid))
        for g in groups - {own, 0, 1}:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(g, sig)
        for p in procs:
            with contextlib.suppress(psutil.Error):
                p.send_signal(sig)  # psutil checks the PID was not reused since it was collected

    def _stop(self, roots: Sequence[subprocess.Popen[Any]], markers: Sequence[str], prefix: bool = False) -> Stopped:
        start = time.monotonic()
        procs = self._collect(roots, markers, prefix)
        targets = [p for p in procs if _alive(p)]
        stopped = Stopped(pids={p.pid for p in targets})
        for sig, wait in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, KILL_WAIT_S)):
            if not targets:
                break
            self._signal(targets, roots, sig)
            deadline = time.monotonic() + wait
            while targets and time.monotonic() < deadline:
                time.sleep(0.02)
                for r in roots:
                    r.poll()
                targets = [p for p in targets if _alive(p)]
        # A child may have started another process while it was being stopped (torchrun starting a worker).
        late = [p for p in self._collect([], markers, prefix) if _alive(p)]
        if late:
            stopped.pids |= {p.pid for p in late}
            self._signal(late, [], signal.SIGKILL)
            deadline = time.monotonic() + KILL_WAIT_S
            while late and time.monotonic() < deadline:
                time.sleep(0.02)
                late = [p for p in late if _alive(p)]
        stopped.survivors = [p.pid for p in [*targets, *late] if _alive(p)]
        stopped.seconds = time.monotonic() - start
        return stopped


#: The process's registry of children.
CHILDREN = Children()
os.register_at_fork(after_in_child=CHILDREN._reset)  # a forked copy owns none of its parent's children
