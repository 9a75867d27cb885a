"""Warnings as sentences, written here once from their codes and parameters for every shell that shows them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from advisor.scoring.engine import AssessmentWarning, Param, WarningCode

if TYPE_CHECKING:  # a type only: the team package imports the report, not the other way round
    from advisor.team.warnings import TeamWarning

Params = Mapping[str, Param]


def _hardware(p: Params) -> str:
    form = p["form"]
    if form == "cpu_only_build":
        return f"installed, but its build does not use the accelerator here ({p['accelerators']}); a CPU-only wheel?"
    if form == "requirement":
        return f"{p['check']}: {p['detail']}"
    return str(p["detail"])  # gpu_floor: the fleet's finding on the team's oldest GPU


_WARNING_WORDS: dict[WarningCode, Callable[[Params], str]] = {
    WarningCode.PROFILE: lambda p: str(p["detail"]),
    WarningCode.HARDWARE: _hardware,
    WarningCode.PYTHON_VERSION: lambda p: str(p["detail"]),
    WarningCode.KNOWLEDGE: lambda p: str(p["detail"]),
    WarningCode.STALE_FACT: lambda p: f"{p['subject']} ({p['as_of']}) is past its {p['review_days']}-day review "
    f"interval [{p['fact']}]",
    WarningCode.BENCHMARK_OUTLIER: lambda p: str(p["detail"]),
    WarningCode.BENCHMARK_SPREAD: lambda p: str(p["detail"]),
    WarningCode.MACHINE_BUSY: lambda p: str(p["detail"]),
    WarningCode.BENCH_FAILURE: lambda p: f"{p.get('device')}/{p['benchmark']}: {p['outcome']}: {p['error']}",
    WarningCode.IMPORT_FAILURE: lambda p: f"probe {p['outcome']}: {p['error'] or 'no detail'}",
    WarningCode.METHOD: lambda p: f"TOPSIS ranks {p['topsis_first']} first where the weighted sum ranks "
    f"{p['weighted_first']} first: a sign that the choice depends on how criteria trade off",
}


def warning_words(warning: AssessmentWarning) -> str:
    """The warning's words from its code and parameters, without the framework it is about.

    A report written before warnings carried parameters (schema 1.2 and older) keeps the words it was saved with.
    """
    saved = getattr(warning, "message", None)
    if saved and not warning.params:
        return str(saved)
    # The fact and its date are fields of their own: the words take them from there.
    params = {**warning.params, "fact": warning.fact or "", "as_of": warning.as_of or ""}
    return _WARNING_WORDS[warning.code](params)


def warning_sentence(warning: AssessmentWarning) -> str:
    """The warning as one sentence: the framework it is about (its field, never read from the words), its words."""
    message = warning_words(warning) or warning.code
    return f"{warning.framework}: {message}" if warning.framework else message


def team_warning_sentence(warning: TeamWarning) -> str:
    """A team decision's warning as one sentence: the member it is about (its field), then its message."""
    return f"{warning.member}: {warning.message}" if warning.member else warning.message
