"""A bench child that stays alive and takes turns: `python -m <bench script> --serve`, one command per benchmark.

The child imports its framework once, says `ready`, then runs each `{"cmd": "run", ...}` line it reads
on stdin and answers with JSON-lines events ending in `bench_end`. Like `child.run_child`, it runs in
its own session (process group) with the allow-listed environment, and whatever happens to it
becomes an explicit outcome: a crash (with its signal), a hang (the caller's timeout kills the
group), garbage, a cancel.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.evidence.child import child_env
from advisor.evidence.children import CHILDREN, ChildrenClosed

#: What a turn ended with.
OK, DIED, TIMED_OUT, CANCELLED = "ok", "died", "timed_out", "cancelled"


@dataclass
class Turn:
    """The events of one command (or of the start-up), and how it ended."""

    status: str
    events: list[dict[str, Any]] = field(default_factory=list)


class ChildSession:
    """One long-lived bench child; `start`, then `turn` per benchmark, then `close`."""

    def __init__(self, module: str, args: Sequence[str], *, root: Path, env: Mapping[str, str] | None = None) -> None:
        self.module, self.args, self.root, self.env = module, list(args), root, dict(env or {})
        self.proc: subprocess.Popen[str] | None = None
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.all_events: list[dict[str, Any]] = []
        self.stderr: list[str] = []
        self.noise = 0
        self._eof = False
        self._threads: list[threading.Thread] = []

    # -- life cycle

    def start(self, timeout: float, cancel: threading.Event | None, until: str = "ready") -> Turn:
        """Launch the child and wait for `ready` (or its end); the turn's events include `import` and `env`.

        A shared probe-and-bench child (`probes.probe_bench`) is first waited for `until="sections_end"`, under
        the probe's timeout, and then for `ready` (`wait`).
        """
        cmd = [sys.executable, "-m", self.module, *self.args, "--serve"]
        try:
            # Through the registry of children: its own session and the run's marker, so that SIGINT, SIGTERM,
            # cancel and quit end it and its helpers (children.py).
            self.proc = CHILDREN.popen(
                cmd, label=self.module, cwd=self.root, env=child_env(self.env), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
            )
        except ChildrenClosed:
            return Turn(DIED, [{"event": "start_error", "error": "cancelled: the tool is stopping"}])
        except OSError as exc:
            return Turn(DIED, [{"event": "start_error", "error": f"could not start {cmd[0]}: {exc}"}])
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for t in self._threads:
            t.start()
        return self._collect(until, timeout, cancel)

    def wait(self, until: str, timeout: float, cancel: threading.Event | None) -> Turn:
        """Collect the events up to `until` without sending a command (the next stage of a shared child's start)."""
        return self._collect(until, timeout, cancel)

    def turn(self, command: Mapping[str, Any], timeout: float, cancel: threading.Event | None) -> Turn:
        """Send one command and collect its events up to `bench_end` (or the child's death, a timeout, a cancel)."""
        if self.proc is None or self.proc.poll() is not None or self.proc.stdin is None:
            return Turn(DIED)
        try:
            self.proc.stdin.write(json.dumps(dict(command)) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return Turn(DIED)
        return self._collect("bench_end", timeout, cancel)

    def close(self, grace_s: float = 5.0) -> None:
        """Ask the child to finish (`quit`), give it `grace_s`, then kill its process group; reap the readers."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None and proc.stdin is not None:
            try:
                proc.stdin.write('{"cmd": "quit"}\n')
                proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass
            try:
                proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        for t in self._threads:
            t.join(timeout=2)

    def kill(self) -> None:
        """Kill the child's whole process group now and wait for it."""
        if self.proc is None:
            return
        CHILDREN.end(self.proc)  # its group, its descendants and whatever carries its marker

    # -- what became of it

    @property
    def alive(self) -> bool:
        """Whether the child is still running."""
        return self.proc is not None and self.proc.poll() is None

    def ending(self) -> str:
        """How the child ended, in words: the signal, the exit status with stderr's last line, or 'exited'."""
        rc = None if self.proc is None else self.proc.poll()
        tail = "".join(self.stderr).strip().splitlines()[-1:]
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = str(-rc)
            if name == "SIGKILL":
                return "killed by SIGKILL (often the kernel's out-of-memory killer)"
            return f"killed by {name}" + (f" ({tail[0][:300]})" if tail else "")
        if rc:
            return f"exited with status {rc}: {tail[0][:300] if tail else 'no message'}"
        if self.noise:
            return f"exited without reporting its results ({self.noise} stray stdout lines)"
        return "exited without reporting its results"

    def saw(self, kind: str) -> list[dict[str, Any]]:
        """Every event of one kind this child sent so far."""
        return [e for e in self.all_events if e.get("event") == kind]

    # -- plumbing

    def _collect(self, until: str, timeout: float, cancel: threading.Event | None) -> Turn:
        turn = Turn(OK)
        deadline = time.monotonic() + timeout
        while not self._eof:
            if cancel is not None and cancel.is_set():
                self.kill()
                turn.status = CANCELLED
                return turn
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                turn.status = TIMED_OUT
                return turn
            try:
                ev = self.events.get(timeout=min(left, 0.05))
            except queue.Empty:
                continue
            if ev is None:  # stdout closed: the child is gone
                self._eof = True
                if self.proc is not None:
                    try:
                        self.proc.wait(timeout=5)
                    except subprocess.TimeoutExpired:
                        self.kill()
                turn.status = DIED
                return turn
            turn.events.append(ev)
            if ev.get("event") == until or (until == "ready" and ev.get("event") == "done"):
                return turn
        turn.status = DIED
        return turn

    def _read_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            text = line.strip()
            if not text:
                continue
            try:
                ev = json.loads(text)
            except ValueError:
                ev = None
            if not isinstance(ev, dict) or "event" not in ev:
                self.noise += 1
                continue
            self.all_events.append(ev)
            self.events.put(ev)
        self.events.put(None)

    def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        total = 0
        for line in self.proc.stderr:
            self.stderr.append(line)
            total += len(line)
            while total > 20000 and len(self.stderr) > 1:
                total -= len(self.stderr.pop(0))
