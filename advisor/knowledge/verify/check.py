"""`kb verify`: every package claim checked against the indexes through pip, one question per distribution.

Each distribution's files are listed once (one pip child, answers cached an hour); everything else,
the latest release, the newest wheel per platform and Python, Requires-Python, release dates and what
an install line installs, is read from those lists here. An index that does not answer the first
questions at all ends the run early with `IndexUnreachableError`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from advisor.errors import IndexUnreachableError, UsageError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Framework
from advisor.knowledge.verify.answers import FileList, IndexFile, PipFailed, WheelMetadata
from advisor.knowledge.verify.judge import judge_framework
from advisor.knowledge.verify.lines import install_lines, parse_install_line
from advisor.knowledge.verify.pip import MIN_PIP, Asked, Cancelled, Pip
from advisor.knowledge.verify.results import CheckTime, VerifyEvent, VerifyResult
from advisor.knowledge.verify.source_dates import judge_source_dates, pkg_sources

#: A question: (distribution, the index options of an install line that names its own index).
Question = tuple[str, tuple[str, ...]]
#: Answers that reached no index at all, in a row from the start, that end the run ("no index").
NO_INDEX_AFTER = 3


def _requirement_names(line: str) -> list[Question]:
    try:
        parsed = parse_install_line(line)
    except ValueError:
        return []
    out: list[Question] = []
    for req in parsed.requirements:
        try:
            out.append((canonicalize_name(Requirement(req).name), parsed.options))
        except InvalidRequirement:
            continue
    return out


def questions(fw: Framework) -> list[Question]:
    """Every distribution the framework's facts depend on, plugins and install lines' requirements included."""
    names = [canonicalize_name(n) for n in fw.distributions]
    if fw.packages is not None:
        names += [canonicalize_name(d.name) for d in fw.packages.distributions]
    out: list[Question] = [(n, ()) for n in names]
    for line in install_lines(fw):
        out += _requirement_names(line)
    return list(dict.fromkeys(out))


class Answers:
    """The file lists (asked in parallel up front) and anything asked later (dependencies, metadata), memoised.

    Every answer is reported to `on_event` as it arrives; a question found while judging (a dependency an
    extra adds, a wheel's METADATA) adds one to the total, so the progress bar stays honest.
    """

    def __init__(self, pip: Pip, on_event: Callable[[VerifyEvent], None] | None = None, workers: int = 8) -> None:
        self.pip = pip
        self.workers = workers
        self.on_event = on_event
        self.lists: dict[Question, FileList | PipFailed] = {}
        self.times: dict[Question, Asked] = {}
        self.planned: set[Question] = set()
        self.done = 0
        self.total = 0
        self._lock = threading.Lock()

    def plan(self, wanted: list[Question]) -> None:
        """The questions asked up front (the progress bar's first total)."""
        self.planned, self.total = set(wanted), len(wanted)

    def _report(self, label: str, asked: Asked, new: bool) -> None:
        with self._lock:
            self.done += 1
            self.total += new
            event = VerifyEvent(label, self.done, self.total, asked.seconds, asked.cached)
        if self.on_event is not None:
            self.on_event(event)

    def files(self, name: str, options: tuple[str, ...] = ()) -> FileList | PipFailed:
        """The file list of one distribution (asked now if it was not asked up front)."""
        key = (canonicalize_name(name), options)
        with self._lock:
            if key in self.lists:
                return self.lists[key]
        try:
            answer: FileList | PipFailed
            answer, asked = self.pip.files(key[0], options)
        except PipFailed as exc:
            answer, asked = exc, Asked(0.0, False)
        with self._lock:
            self.lists[key], self.times[key] = answer, asked
        self._report(f"files of {key[0]}" + (" (its install line's index)" if options else ""), asked,
                     key not in self.planned)
        return answer

    def prefetch(self, names: list[str], options: tuple[str, ...]) -> None:
        """Ask for several file lists at once (an extra's dependencies: a dozen CUDA libraries)."""
        with self._lock:
            missing = list(dict.fromkeys(n for n in names if (canonicalize_name(n), options) not in self.lists))
        if len(missing) > 1:
            _in_pool(lambda n: self.files(n, options), missing, self.workers, self.pip.cancel)

    def metadata(self, wheel: IndexFile, options: tuple[str, ...]) -> WheelMetadata:
        """A wheel's dependencies (PipFailed propagates: the install check says it could not read them)."""
        answer, asked = self.pip.metadata(wheel.url, wheel.metadata, options)
        self._report(f"metadata of {wheel.filename}", asked, True)
        return answer


def _in_pool(fn: Callable[[Any], Any], items: list[Any], workers: int, cancel: threading.Event,
             on_done: Callable[[Any], None] | None = None) -> list[Any]:
    """`fn` over `items`, `workers` threads at a time, results in order; a signal or an error cancels the rest."""
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="kb-verify")
    futures = [pool.submit(fn, item) for item in items]
    try:
        pending = set(futures)
        while pending:  # waits in slices, so the main thread takes a signal at once
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in finished:
                fut.result()  # re-raises Cancelled or a malformed answer (PipAnswerError: one line, exit 2)
                if on_done is not None:
                    on_done(items[futures.index(fut)])
    except BaseException:
        cancel.set()  # running children end at their next poll; queued work is not started
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [f.result() for f in futures]


def _ask_all(answers: Answers, wanted: list[Question], workers: int) -> None:
    """Ask every question; decide "no index" from the first answers (a vendor's own index says nothing)."""
    state = {"reached": False, "unreachable": 0}

    def judge_reach(question: Question) -> None:
        answer = answers.lists[question]
        if question[1] or state["reached"]:
            return
        if isinstance(answer, FileList) and not answer.unreachable:
            state["reached"] = True
            return
        state["unreachable"] += 1
        if state["unreachable"] >= min(NO_INDEX_AFTER, len(wanted)):
            why = answer.errors[0] if isinstance(answer, FileList) and answer.errors else str(answer)
            raise IndexUnreachableError(f"pip reached no package index: the first {state['unreachable']} questions "
                                        f"got no answer from any index (pip: {why[:200]})")

    answers.plan(wanted)
    _in_pool(lambda q: answers.files(*q), wanted, workers, answers.pip.cancel, judge_reach)


def verify_knowledge(
    kb: KnowledgeBase,
    *,
    frameworks: Iterable[str] | None = None,
    pip: Pip | None = None,
    workers: int = 8,
    on_event: Callable[[VerifyEvent], None] | None = None,
    source_dates: bool = False,
) -> VerifyResult:
    """Check every package claim; raises IndexUnreachableError when pip reaches no index at all.

    `source_dates` also compares each `pkg:pypi/NAME@VERSION` source's date with that release's upload
    (the chosen frameworks' sources, or the whole base's when no framework is named).
    """
    import time

    start = time.perf_counter()
    pip = pip or Pip()
    wanted_ids = list(frameworks) if frameworks else list(kb.frameworks)
    for fid in wanted_ids:
        if fid not in kb.frameworks:
            raise UsageError.unknown("framework", fid, kb.frameworks, field="framework")
    chosen = [kb.frameworks[f] for f in wanted_ids]
    version = pip.version()
    if version is None:
        raise IndexUnreachableError(f"`{pip.python} -m pip` does not run; kb verify asks the index through pip")
    if version < MIN_PIP:
        raise IndexUnreachableError(f"pip {version} is too old for kb verify (needs pip {MIN_PIP} or newer)")
    answers = Answers(pip, on_event, workers)
    wanted = list(dict.fromkeys(q for fw in chosen for q in questions(fw)))
    try:
        _ask_all(answers, wanted, workers)
        judged = _in_pool(lambda fw: judge_framework(fw, answers), chosen, workers, pip.cancel)
        verdicts = {fw.id: v for fw, v in zip(chosen, judged, strict=True)}
        dated = None
        if source_dates:
            sources = pkg_sources(kb, wanted_ids if frameworks else None)
            names: list[str] = list(dict.fromkeys(canonicalize_name(s.name) for s in sources))
            answers.prefetch(names, ())  # each new question adds one to the progress bar's total
            dated = judge_source_dates(sources, answers.files)
    except Cancelled:
        raise KeyboardInterrupt from None  # only a stop cancels outside _ask_all's own decision
    for fw in chosen:
        verdicts[fw.id].times = [CheckTime(f"files of {n}" + (" (own index)" if o else ""), a.seconds, a.cached)
                                 for (n, o), a in answers.times.items() if (n, o) in questions(fw)]
    return VerifyResult(str(version), verdicts, time.perf_counter() - start, dated)
