"""A SelectionList whose long prompts wrap, with the tick box on each item's first line only."""

from __future__ import annotations

from typing import Any, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList

T = TypeVar("T")


class TickList(SelectionList[T]):
    """Textual's SelectionList cuts a prompt at the list's width ("…"); this one wraps it.

    SelectionList draws its box from the screen line's number as if every option were one line,
    so with wrapping it would put a box on every line and tick the wrong item. Here the box goes
    on an option's first line only, found from OptionList's own line map; continuation lines are
    indented by the box's width.
    """

    DEFAULT_CSS = """
    TickList {
        text-wrap: wrap;
        text-overflow: fold;
    }
    """

    def render_line(self, y: int) -> Strip:
        """The option's line, with the box on its first line and blank gutter on the others."""
        lines: Any = getattr(self, "_lines", None)
        try:
            _index, offset = lines[self.scroll_offset.y + y]
        except (TypeError, IndexError, ValueError):
            return super().render_line(y)
        if offset == 0:
            return self._first_line(y)
        line = super(SelectionList, self).render_line(y)  # OptionList's: the prompt's line, without a box
        style = next(iter(line)).style if line.cell_length else self.rich_style
        return Strip([Segment(" " * self._get_left_gutter_width(), style), *line])

    def _first_line(self, y: int) -> Strip:
        """SelectionList's own line, drawn for the option this screen line belongs to."""
        # SelectionList looks the option up by `scroll_y + y`; point it at the option's index instead.
        lines: Any = self._lines
        index, _ = lines[self.scroll_offset.y + y]
        line = super(SelectionList, self).render_line(y)
        selection = self.get_option_at_index(index)
        component = "selection-list--button"
        if selection.value in self._selected:
            component += "-selected"
        if self.highlighted == index:
            component += "-highlighted"
        under = (next(iter(line)).style if line.cell_length else None) or self.rich_style
        button = self.get_component_rich_style(component)
        side = Style.from_color(button.bgcolor, under.bgcolor) + Style(meta={"option": index})
        button += Style(meta={"option": index})
        return Strip([
            Segment(Checkbox.BUTTON_LEFT, style=side),
            Segment(Checkbox.BUTTON_INNER, style=button),
            Segment(Checkbox.BUTTON_RIGHT, style=side),
            Segment(" ", style=under),
            *line,
        ])
