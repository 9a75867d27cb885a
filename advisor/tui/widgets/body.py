"""A scrolling container that never takes focus itself, so Tab and arrows reach the controls inside it."""

from __future__ import annotations

from textual.containers import VerticalScroll


class Body(VerticalScroll, can_focus=False):
    """VerticalScroll for forms: the mouse wheel scrolls it; focus moves to its controls, which scroll into view."""
