"""Shown over the walk while the terminal is smaller than its screens need: says how large to make it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Static

#: The smallest terminal every step lays out in: the Priorities step's weight rows beside the ranking preview
#: need 72 columns (below, names break into 4-character fragments); the Results step's verdict, ranking and
#: first breakdown rows need 22 lines.
MIN_SIZE = Size(72, 22)


def too_small(size: Size) -> bool:
    """Whether a terminal of `size` is below `MIN_SIZE` in either direction."""
    return size.width < MIN_SIZE.width or size.height < MIN_SIZE.height


class TooSmallScreen(ModalScreen[None]):
    """Covers the walk until the terminal is large enough (the app removes it then); `q` and ctrl+q still quit."""

    DEFAULT_CSS = """
    TooSmallScreen { background: $background; align: center middle; }
    TooSmallScreen #too-small { width: auto; max-width: 100%; height: auto; padding: 1 2; border: round $warning; }
    """

    def compose(self) -> ComposeResult:
        """The one sentence."""
        with Middle(), Center():
            yield Static("", id="too-small")

    def on_mount(self) -> None:
        """Say it for the size now."""
        self.show(self.app.size)

    def show(self, size: Size) -> None:
        """The sentence for a terminal of `size`."""
        self.query_one("#too-small", Static).update(
            f"Make the terminal at least {MIN_SIZE.width}x{MIN_SIZE.height}\n"
            f"(it is {size.width}x{size.height} now).\n\nq quits."
        )
