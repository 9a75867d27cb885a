"""Typed text fields of the Team step: each carries the answer it gives, checked by the profile loader's own code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from advisor.tui import core
from advisor.tui.data.answers import answer, constraint_list, with_constraint, with_kloc
from advisor.tui.data.answers import kloc as kloc_of
from advisor.tui.widgets.field import TextField

if TYPE_CHECKING:
    from advisor.profile import Profile


def _scalar(text: str) -> Any:
    """The text as the loader reads a YAML scalar (`12` an int); None when the field is left empty."""
    return core.typed(text) if text else None


def _number(value: Any) -> float | None:
    """A checked number as the profile keeps it (`24` is kept as 24.0)."""
    return None if value is None else float(value)


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class TypedAnswer:
    """What one typed field answers: how its text reads, where the loader checks it, and where it goes.

    `read` gives the value the loader checks at `path` (an empty field is not checked, unless `check_empty`);
    `keep` gives the checked value as the profile holds it, compared with `now` and written by `put`.
    """

    path: tuple[str, ...]
    read: Callable[[str], Any]
    now: Callable[[Profile], Any]
    put: Callable[[Profile, Any], Profile]
    # What the field takes, in words, shown at the field when a value is refused: the loader's own line is a
    # validator's ("String should match pattern '^3\\.\\d+$'"). The ranges are the profile model's.
    expected: str
    error_line: str  # the name of the line under the field that shows `expected`
    keep: Callable[[Any], Any] = _same
    check_empty: bool = False

    def problem(self, text: str) -> str | None:
        """None when the loader takes `text`, else its one line (the value is then not answered)."""
        if not text and not self.check_empty:
            return None
        return core.check_answer(self.path, self.read(text))

    def answered(self, profile: Profile, text: str) -> Profile:
        """`profile` with the (checked) answer `text` in it; `profile` itself when that changes nothing."""
        value = self.keep(self.read(text))
        return profile if value == self.now(profile) else self.put(profile, value)


TEAM_SIZE = TypedAnswer(
    path=("team", "size"),
    read=_scalar,
    now=lambda profile: profile.team.size,
    put=lambda profile, value: answer(profile, "team", "size", value=value),
    expected="Team size: a whole number of engineers from 1 to 100000, like 6 (empty: not given)",
    error_line="team-size",
)
HORIZON = TypedAnswer(
    path=("team", "horizon_months"),
    read=_scalar,
    keep=_number,  # empty (None) differs from every horizon: it puts the default back
    now=lambda profile: profile.team.horizon_months,
    put=lambda profile, value: answer(profile, "team", "horizon_months", value=value),
    expected="Horizon: a number of months above 0 and at most 240, like 24",
    error_line="horizon",
)
PYTHON = TypedAnswer(
    path=("environment", "python"),
    read=lambda text: text or None,
    now=lambda profile: profile.environment.python,
    put=lambda profile, value: answer(profile, "environment", "python", value=value),
    expected="Python version like 3.12 (empty: any)",
    error_line="python",
)
JURISDICTIONS = TypedAnswer(
    path=("constraints", "maintainer_jurisdictions"),
    read=lambda text: text.replace(",", " ").upper().split(),
    check_empty=True,  # no code at all is an answer too (any country)
    now=lambda profile: constraint_list(profile, "maintainer_jurisdictions"),
    put=lambda profile, codes: with_constraint(profile, "maintainer_jurisdictions", codes),
    expected="Maintainer countries: two-letter country codes separated by spaces, like CN US (empty: any)",
    error_line="jurisdictions",
)


def kloc_answer(framework: str, name: str) -> TypedAnswer:
    """The kLOC of `framework`'s code (`name`: how the knowledge base names it)."""
    return TypedAnswer(
        path=("codebase", "by_framework", framework),
        read=_scalar,
        keep=_number,
        now=lambda profile: kloc_of(profile, framework),
        put=lambda profile, value: with_kloc(profile, framework, value),
        expected=f"{name}: thousands of lines of code (kLOC), a number from 0, like 50 (empty: not given)",
        error_line=f"kloc:{framework}",
    )


class AnswerField(TextField):
    """A `TextField` that knows the answer it gives (`answer`), so that no handler tells fields apart by id."""

    def __init__(self, value: str | None = None, *, answer: TypedAnswer, **kwargs: Any) -> None:
        super().__init__(value, **kwargs)
        self.answer = answer
