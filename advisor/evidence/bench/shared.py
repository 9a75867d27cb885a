"""Probe and bench in one child per framework (`probes.probe_bench`): the framework is imported once for both."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from advisor.evidence.bench.interleave import Member
from advisor.evidence.bench.presets import IMPORT_TIMEOUT_S
from advisor.evidence.bench.runner import child_base_args, child_env_vars
from advisor.evidence.bench.session import CANCELLED, OK, TIMED_OUT, ChildSession, Turn
from advisor.evidence.child import ChildResult, Outcome, split_sections
from advisor.evidence.probe_frameworks import (
    FrameworkProbe,
    ProbeEvent,
    _groups,
    from_child,
    probe_frameworks,
)
from advisor.paths import probes_root

if TYPE_CHECKING:
    from advisor.frameworks.base import FrameworkAdapter

MODULE = "probes.probe_bench"


class SharedChildren:
    """`run_probe`'s prober for the frameworks a bench will measure: each one's child probes it, then stays up.

    The children it leaves (`members`, keyed by adapter id) go to `run_bench(started=...)`, which adopts them
    instead of starting a second child that imports the framework again; the run's command line must be the
    one given here (`child_base_args`). A framework whose probe fails has its child stopped; one the bench
    will not measure, or that has no bench script, is probed as usual (`probe_frameworks`). Every child goes
    through the registry of children, so SIGINT, SIGTERM and cancel end it; `close` ends the ones not adopted.
    """

    def __init__(self, *, preset: str, threads: int, bench_ids: Sequence[str],
                 envs: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.base = child_base_args(preset, threads, None, None)
        self.env = child_env_vars(threads)
        self.envs = dict(envs or {})  # extra variables for one adapter's child (tests: broken stand-ins first)
        self.bench_ids = set(bench_ids)
        self.members: dict[str, Member] = {}
        self._lock = threading.Lock()

    def probe(self, adapters: Sequence[FrameworkAdapter], *, timeout: float,
              on_event: Callable[[ProbeEvent], None] | None,
              cancel: threading.Event | None) -> dict[str, FrameworkProbe]:
        """Probe `adapters`: shared children for the measured ones, the usual children for the rest."""
        groups = _groups(adapters, self.envs)
        shared = [g for g in groups if self._shares(g[0])]
        rest = [a for g in groups if g not in shared for a in g]
        got: dict[str, FrameworkProbe] = {}
        with ThreadPoolExecutor(max_workers=len(shared) + 1, thread_name_prefix="fwprobe-shared") as pool:
            futures = [pool.submit(self._one, g, timeout, on_event, cancel) for g in shared]
            if rest:
                futures.append(pool.submit(probe_frameworks, rest, timeout=timeout, on_event=on_event, cancel=cancel))
            for f in futures:
                got.update(f.result())
        return {a.id: got[a.id] for a in adapters}

    def close(self) -> None:
        """Stop the children no bench adopted (a cancelled or failed run)."""
        with self._lock:
            left, self.members = list(self.members.values()), {}
        for m in left:
            if m.session is not None:
                m.session.close()

    def _shares(self, host: FrameworkAdapter) -> bool:
        try:
            # The wrapper lives in the built-in script folder: a plugin's scripts elsewhere get their usual children.
            return (bool(host.bench_module) and host.id in self.bench_ids and host.script_root() == probes_root()
                    and host.installed() is not None)
        except Exception:  # noqa: BLE001 - a faulty plugin adapter is probed (and reported) the usual way
            return False

    def _one(self, group: Sequence[FrameworkAdapter], timeout: float, on_event: Callable[[ProbeEvent], None] | None,
             cancel: threading.Event | None) -> dict[str, FrameworkProbe]:
        emit = on_event or (lambda _e: None)
        host = group[0]
        found = {a.id: a.installed() or ("", "") for a in group}
        for a in group:
            emit(ProbeEvent("framework_start", a.id, f"importing {a.display_name} {found[a.id][1]}"))
        modules = [a.probe_module for a in group]
        session = ChildSession(MODULE, ["--probe", ",".join(modules), "--bench", host.bench_module or "", *self.base],
                               root=host.script_root(), env={**self.env, **self.envs.get(host.id, {})})
        t0 = time.perf_counter()
        probed = session.start(timeout * len(group), cancel, until="sections_end")
        result = self._result(session, probed, time.perf_counter() - t0, timeout * len(group))
        out: dict[str, FrameworkProbe] = {}
        for k, (a, part) in enumerate(zip(group, split_sections(result, modules), strict=True)):
            dist, version = found[a.id]
            if part is None:
                out[a.id] = FrameworkProbe(a.id, True, dist, version, result.outcome.value,
                                           error=result.error or "the child ended before this probe began")
            else:
                out[a.id] = from_child(a, dist, version, part)
                out[a.id].probed_after = host.id if k else None
            emit(ProbeEvent("framework_done", a.id, f"{a.display_name}: {out[a.id].outcome}",
                            {"outcome": out[a.id].outcome}))
        if probed.status == OK and out[host.id].outcome == Outcome.OK.value:
            ready = session.wait("ready", IMPORT_TIMEOUT_S, cancel)
            member = Member(host.id, host.display_name, host.bench_module or "", host.script_root(), self.base,
                            dict(self.env), [], session=session, ready=ready)
            with self._lock:
                self.members[host.id] = member
        else:
            session.kill()
        return out

    @staticmethod
    def _result(session: ChildSession, turn: Turn, wall: float, timeout: float) -> ChildResult:
        """The probe part of the start-up as a `ChildResult` (what `split_sections` and `from_child` read)."""
        proc = session.proc
        rc = proc.poll() if proc is not None else None
        result = ChildResult(Outcome.OK, events=list(turn.events), returncode=rc, wall_s=wall,
                             stderr_tail="".join(session.stderr)[-4000:])
        if turn.status == CANCELLED:
            result.outcome, result.error = Outcome.CANCELLED, "cancelled"
        elif turn.status == TIMED_OUT:
            result.outcome, result.error = Outcome.TIMED_OUT, f"no answer within {timeout:g} s; killed"
        elif turn.status != OK:
            result.outcome, result.error = Outcome.CRASHED, session.ending()
            if rc is not None and rc < 0:
                try:
                    result.signal = signal.Signals(-rc).name
                except ValueError:
                    result.signal = str(-rc)
        return result
