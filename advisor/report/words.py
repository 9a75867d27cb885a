"""Warnings as sentences, made here once for the CLI, the Markdown, the HTML pages and the TUI."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.scoring.engine import AssessmentWarning

if TYPE_CHECKING:  # a type only: the team package imports the report, not the other way round
    from advisor.team.warnings import TeamWarning


def warning_sentence(warning: AssessmentWarning) -> str:
    """The warning as one sentence: the framework it is about (its field, never read from the words), its message."""
    message = warning.message or warning.code
    return f"{warning.framework}: {message}" if warning.framework else message



def team_warning_sentence(warning: TeamWarning) -> str:
    """A team decision's warning as one sentence: the member it is about (its field), then its message."""
    return f"{warning.member}: {warning.message}" if warning.member else warning.message
