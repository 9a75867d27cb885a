"""A report's warnings as sentences, made here once for the CLI, the Markdown, the HTML page and the TUI."""

from __future__ import annotations

from advisor.scoring.engine import AssessmentWarning


def warning_sentence(warning: AssessmentWarning) -> str:
    """The warning as one sentence: the framework it is about (its field, never read from the words), its message."""
    message = warning.message or warning.code
    return f"{warning.framework}: {message}" if warning.framework else message

