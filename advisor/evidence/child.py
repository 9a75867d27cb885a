"""Run one framework script in its own child process and stream its JSON-lines events back.

The advisor never imports a framework. Each script under `probes/` runs as
`python -m probes.<name>` in a child process (its own process group), prints one JSON object per
line on stdout, and ends with `{"event": "done"}`. This module turns whatever happens into an
explicit outcome: a framework that is missing, fails to import, crashes (with the signal), hangs
(timed out), prints garbage, or is cancelled is reported as such, and the caller goes on.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from advisor.evidence.children import CHILDREN, ChildrenClosed

#: Environment variables a child may inherit beyond the basics: what changes how frameworks behave.
ENV_ALLOW = (
    "PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX",
    "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
    "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "XLA_FLAGS",
    "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "JAX_PLATFORMS", "JAX_ENABLE_X64",
    "TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "TF_FORCE_GPU_ALLOW_GROWTH", "OMP_NUM_THREADS",
    "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TPU_NAME",
    "TPU_ACCELERATOR_TYPE", "PJRT_DEVICE", "ASCEND_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", "KERAS_BACKEND",
    "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "PYTORCH_ENABLE_MPS_FALLBACK",
)


class Outcome(StrEnum):
    """How a child process ended."""

    OK = "ok"
    MISSING = "missing"  # the framework is not installed (decided from package metadata, no child run)
    IMPORT_ERROR = "import_error"  # importing the framework raised
    CRASHED = "crashed"  # killed by a signal or exited non-zero without reporting why
    TIMED_OUT = "timed_out"
    BAD_OUTPUT = "bad_output"  # exited without the closing "done" event
    CANCELLED = "cancelled"


@dataclass
class ChildResult:
    """Everything a child produced, and how it ended."""

    outcome: Outcome
    events: list[dict[str, Any]] = field(default_factory=list)
    returncode: int | None = None
    signal: str | None = None
    wall_s: float = 0.0
    stderr_tail: str = ""
    noise: list[str] = field(default_factory=list)  # stdout lines that were not JSON events
    error: str | None = None

    def of(self, kind: str) -> list[dict[str, Any]]:
        """Events of one kind (e.g. "result")."""
        return [e for e in self.events if e.get("event") == kind]


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A minimal environment for the child: the allow-list above, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k in ENV_ALLOW}
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if extra:
        env.update(extra)
    return env


def run_child(
    module: str,
    args: Sequence[str] = (),
    *,
    root: Path,
    timeout: float,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
    nice: int = 0,
) -> ChildResult:
    """Run `python -m module args...` with cwd `root`; stream events to `on_event`; never raises for child faults.

    `root` is the folder holding the `probes` package: running there keeps a user's own
    `torch.py` in the current folder from shadowing the real framework. `timeout` bounds the
    whole run; `cancel` stops it early (the child, its process tree and its marked processes are ended).
    `nice` lowers the child's CPU priority (its own children inherit it): a scheduling hint, ignored where refused.
    """
    cmd = [python or sys.executable, "-m", module, *args]
    start = time.perf_counter()
    if cancel is not None and cancel.is_set():
        return ChildResult(Outcome.CANCELLED, error="cancelled")
    try:
        # Its own session and the run's marker (see children.py), so that stopping it reaches its helpers too.
        proc = CHILDREN.popen(
            cmd,
            label=module,
            cwd=root,
            env=child_env(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
    except ChildrenClosed:
        return ChildResult(Outcome.CANCELLED, error="cancelled: the tool is stopping")
    except OSError as exc:
        return ChildResult(Outcome.CRASHED, error=f"could not start {cmd[0]}: {exc}")
    if nice > 0:
        # Set from here rather than in a preexec_fn, which is unsafe in a process with threads.
        # Relative to the child's inherited priority, as nice(1) does: an absolute value would *raise* the
        # priority of a child of an already-niced tool (root may do so).
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, proc.pid, min(19, os.getpriority(os.PRIO_PROCESS, proc.pid) + nice))
    result = ChildResult(Outcome.OK)
    stderr_chunks: list[str] = []

    def read_stdout() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            text = line.strip()
            if not text:
                continue
            try:
                event = json.loads(text)
            except ValueError:
                event = None
            if not isinstance(event, dict) or "event" not in event:
                if len(result.noise) < 200:
                    result.noise.append(text[:500])
                continue
            result.events.append(event)
            if on_event is not None:
                try:
                    on_event(event)
                except Exception:  # noqa: BLE001, S110 - a display callback must not kill the measurement
                    pass

    def read_stderr() -> None:
        assert proc.stderr is not None
        total = 0
        for line in proc.stderr:
            stderr_chunks.append(line)
            total += len(line)
            while total > 20000 and len(stderr_chunks) > 1:
                total -= len(stderr_chunks.pop(0))

    readers = [threading.Thread(target=read_stdout, daemon=True), threading.Thread(target=read_stderr, daemon=True)]
    for t in readers:
        t.start()
    deadline = start + timeout
    ended_by: Outcome | None = None
    try:
        while True:
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            if cancel is not None and cancel.is_set():
                ended_by = Outcome.CANCELLED
            elif time.perf_counter() > deadline:
                ended_by = Outcome.TIMED_OUT
            if ended_by is not None:
                CHILDREN.end(proc)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)  # it survived SIGKILL only if stuck in the kernel: report, do not hang
                break
    except BaseException:
        CHILDREN.end(proc, interrupted=True)  # Ctrl-C or SIGTERM in the thread that waits: end it here
        raise
    CHILDREN.end(proc)  # anything the child left behind: its group, its descendants, its marker
    stopped_by_us = CHILDREN.closed or (cancel is not None and cancel.is_set())
    if ended_by is None and (proc.returncode or 0) < 0 and stopped_by_us:
        ended_by = Outcome.CANCELLED  # ended by the tool's own stop (a signal or quit), not a crash of its own
    for t in readers:
        t.join(timeout=2)
    result.wall_s = time.perf_counter() - start
    result.returncode = proc.returncode
    result.stderr_tail = "".join(stderr_chunks)[-4000:]
    done = any(e.get("event") == "done" for e in result.events)
    import_failed = next((e for e in result.events if e.get("event") == "import" and not e.get("ok")), None)
    if ended_by is not None:
        result.outcome = ended_by
        result.error = "cancelled" if ended_by == Outcome.CANCELLED else f"no answer within {timeout:g} s; killed"
    elif import_failed is not None:
        result.outcome = Outcome.IMPORT_ERROR
        result.error = str(import_failed.get("error") or "import failed")
    elif proc.returncode is not None and proc.returncode < 0:
        result.outcome = Outcome.CRASHED
        try:
            result.signal = signal.Signals(-proc.returncode).name
        except ValueError:
            result.signal = str(-proc.returncode)
        result.error = f"killed by {result.signal}"
    elif proc.returncode != 0:
        result.outcome = Outcome.CRASHED
        last = result.stderr_tail.strip().splitlines()[-1:] or ["no message"]
        result.error = f"exited with status {proc.returncode}: {last[0][:300]}"
    elif not done:
        result.outcome = Outcome.BAD_OUTPUT
        result.error = "exited without reporting its results" + (
            f" ({len(result.noise)} stray stdout lines)" if result.noise else ""
        )
    return result


def split_sections(result: ChildResult, modules: Sequence[str]) -> list[ChildResult | None]:
    """Split a `probes.together` child's result into one result per module, in order; None for a module never begun.

    A section that reached its `done` is OK (or an import error); the section that was running when
    the child ended takes the child's ending (crash, timeout, cancel); later ones never began. The
    first section's wall time includes the interpreter's start, the others' only their own part.
    """
    marks = [i for i, e in enumerate(result.events) if e.get("event") == "section"]
    stamps = [float(t) for e in result.events
              if e.get("event") in ("section", "sections_end") and isinstance(t := e.get("t"), int | float)]
    out: list[ChildResult | None] = []
    for k, module in enumerate(modules):
        if k >= len(marks) or result.events[marks[k]].get("module") != module:
            out.append(None)
            continue
        end = marks[k + 1] if k + 1 < len(marks) else len(result.events)
        events = [e for e in result.events[marks[k] + 1:end] if e.get("event") != "sections_end"]
        part = ChildResult(Outcome.OK, events=events, returncode=result.returncode,
                           noise=result.noise if k == 0 else [])
        failed = next((e for e in events if e.get("event") == "section_failed"), None)
        import_failed = next((e for e in events if e.get("event") == "import" and not e.get("ok")), None)
        if import_failed is not None:
            part.outcome, part.error = Outcome.IMPORT_ERROR, str(import_failed.get("error") or "import failed")
        elif failed is not None:
            part.outcome, part.error = Outcome.CRASHED, f"the probe script raised {failed.get('error')}"
            part.stderr_tail = str(failed.get("traceback") or "")
        elif not any(e.get("event") == "done" for e in events):
            ok_end = result.outcome == Outcome.OK
            part.outcome = Outcome.BAD_OUTPUT if ok_end else result.outcome
            part.error = "exited without reporting its results" if ok_end else result.error
            part.signal, part.stderr_tail = result.signal, result.stderr_tail
        if len(stamps) > k + 1:
            part.wall_s = stamps[k + 1] - stamps[k]
        else:
            part.wall_s = max(0.0, result.wall_s - sum(p.wall_s for p in out if p is not None))
        out.append(part)
    if out and out[0] is not None:
        out[0].wall_s = max(0.0, result.wall_s - sum(p.wall_s for p in out[1:] if p is not None))
    return out
