"""The one place where the app calls the core library; a piece that is missing is reported as unavailable.

The app holds no scoring, probing or benchmarking logic: every figure it shows comes from a
function below, which only forwards to `advisor.evidence`, `advisor.scoring`, `advisor.report`,
`advisor.profile`, `advisor.checklist` and `advisor.progress`. Imports are deferred to the call
so that the app's first screen paints before the heavier core modules are loaded, and so that a
core module that is absent or broken turns into an `Unavailable` the screen can show plainly.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any


class Unavailable(Exception):
    """A core capability is not available in this build (module missing) or failed to load."""


def _module(name: str) -> ModuleType:
    # Deferred import: keeps first paint fast and lets the app run while a core piece is absent.
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise Unavailable(f"{name} is not available ({exc})") from exc


def _attr(module: str, name: str) -> Any:
    mod = _module(module)
    try:
        return getattr(mod, name)
    except AttributeError as exc:
        raise Unavailable(f"{module}.{name} is not available") from exc


def _json(obj: Any) -> dict[str, Any]:
    """The JSON form of a core result (dataclass with to_json, or already a dict)."""
    if isinstance(obj, dict):
        return obj
    to_json = getattr(obj, "to_json", None)
    if callable(to_json):
        data = to_json()
        if isinstance(data, dict):
            return data
    raise Unavailable(f"unexpected result type {type(obj).__name__} from the core")


# --- knowledge -------------------------------------------------------------------------------------


def load_kb(packs: Sequence[str] = ()) -> Any:
    """The merged knowledge base (shipped base + user packs + `packs`)."""
    return _attr("advisor.knowledge", "load_knowledge")(list(packs))


# --- evidence --------------------------------------------------------------------------------------


def run_probe(
    *,
    fast: bool,
    on_event: Callable[[Any], None] | None = None,
    cancel: threading.Event | None = None,
    kb: Any = None,
) -> dict[str, Any]:
    """Probe this machine (fast: metadata only) and return the probe JSON."""
    fn = _attr("advisor.evidence.probe", "run_probe")
    return _json(fn(fast=fast, on_event=on_event, cancel=cancel, kb=kb))


def run_bench(
    *,
    preset: str,
    frameworks: Sequence[str] | None = None,
    on_event: Callable[[Any], None] | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, Any]:
    """Run the benchmark preset through the installed frameworks and return the bench JSON."""
    fn = _attr("advisor.evidence.bench", "run_bench")
    peak = None
    try:
        peak = _attr("advisor.evidence.hardware.cpu", "probe_cpu")().peak
    except Unavailable:
        peak = None  # bench still runs; % of peak is then absent, which the table shows as such
    return _json(fn(preset=preset, frameworks=frameworks, on_event=on_event, cancel=cancel, peak=peak))


def event_json(event: Any) -> dict[str, Any]:
    """A probe/bench progress event as a plain dict, whatever class the core uses for it."""
    if isinstance(event, dict):
        return event
    to_json = getattr(event, "to_json", None)
    if callable(to_json):
        data = to_json()
        if isinstance(data, dict):
            return data
    if hasattr(event, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(event)
    return {k: v for k, v in vars(event).items() if not k.startswith("_")} if hasattr(event, "__dict__") else {}


# --- profile, scoring, report ----------------------------------------------------------------------


def build_profile(answers: dict[str, Any]) -> Any:
    """Turn the walk's answers into the core's profile object (validated by the core)."""
    fn = _attr("advisor.profile", "profile_from_answers")
    return fn(answers)


def assess(
    kb: Any, answers: dict[str, Any], probe: dict[str, Any] | None, bench: dict[str, Any] | None
) -> dict[str, Any]:
    """Score the frameworks under the walk's answers with the evidence so far; returns the report JSON."""
    fn = _attr("advisor.report", "build_report_from_answers")
    return _json(fn(kb=kb, answers=answers, probe=probe, bench=bench))


def report_markdown(report: dict[str, Any]) -> str:
    """The Markdown form of a report JSON."""
    return str(_attr("advisor.report", "render_markdown")(report))


def profile_yaml(answers: dict[str, Any]) -> str:
    """The profile file (YAML) for the walk's answers."""
    return str(_attr("advisor.profile", "dump_profile")(build_profile(answers)))


def load_profile_answers(path: str) -> dict[str, Any]:
    """Read a profile file and return it as walk answers."""
    return dict(_attr("advisor.profile", "answers_from_file")(path))


def load_report(path: str) -> dict[str, Any]:
    """Read and validate a saved report JSON."""
    return _json(_attr("advisor.report", "load_report")(path))


# --- checklist and progress ------------------------------------------------------------------------


def checklist(kb: Any, framework: str, current: str | None, probe: dict[str, Any] | None) -> dict[str, Any]:
    """The onboarding checklist JSON for `framework` on the probed machine."""
    fn = _attr("advisor.checklist", "build_checklist")
    return _json(fn(kb=kb, framework=framework, from_framework=current, probe=probe))


def checklist_markdown(data: dict[str, Any], done: set[str]) -> str:
    """The checklist as Markdown with GitHub task boxes."""
    return str(_attr("advisor.checklist", "render_markdown")(data, done=done))


def progress_done(framework: str) -> set[str]:
    """Ids of the checklist items already ticked for `framework`."""
    return set(_attr("advisor.progress", "load_done")(framework))


def progress_set(framework: str, item_id: str, done: bool) -> None:
    """Tick or untick one checklist item (stored atomically by the core)."""
    _attr("advisor.progress", "set_done")(framework, item_id, done)
