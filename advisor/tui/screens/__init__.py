"""The walk's screens, one module each, registered by step name and imported only when first shown."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from textual.screen import Screen

#: step -> (module, class); modules are imported on first use, so the welcome screen paints sooner.
SCREEN_CLASSES: dict[str, tuple[str, str]] = {
    "welcome": ("advisor.tui.screens.welcome", "WelcomeScreen"),
    "scenario": ("advisor.tui.screens.scenario", "ScenarioScreen"),
    "priorities": ("advisor.tui.screens.priorities", "PrioritiesScreen"),
    "evidence": ("advisor.tui.screens.evidence", "EvidenceScreen"),
    "results": ("advisor.tui.screens.results", "ResultsScreen"),
    "onboarding": ("advisor.tui.screens.onboarding", "OnboardingScreen"),
    "export": ("advisor.tui.screens.export", "ExportScreen"),
}


def screen_factory(step: str) -> Callable[[], Screen[None]]:
    """A callable that imports the step's module and builds its screen (what `App.SCREENS` expects)."""
    module, cls = SCREEN_CLASSES[step]

    def build() -> Screen[None]:
        return getattr(importlib.import_module(module), cls)()  # type: ignore[no-any-return]

    return build
