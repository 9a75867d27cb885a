"""The Team step's second part: team size, per-framework code and experience, domains, serving, environment, needs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, RadioButton, RadioSet, SelectionList, Static

from advisor.tui.data.answers import (
    answer,
    constraint_list,
    current,
    experience,
    os_answer,
    probed_python,
    with_constraint,
    with_domains,
    with_experience,
)
from advisor.tui.data.answers import kloc as kloc_of
from advisor.tui.data.state import EXPERIENCE_LEVELS
from advisor.tui.plain import plain
from advisor.tui.widgets.answer_field import HORIZON, JURISDICTIONS, PYTHON, TEAM_SIZE, AnswerField, kloc_answer
from advisor.tui.widgets.field import NUMBER_CHARS, SHORT_CHARS

if TYPE_CHECKING:
    from advisor.profile import Profile

#: The operating systems the profile knows (advisor.knowledge.schema.Os), by display name.
OS_NAMES: dict[str, str] = {"linux": "Linux", "macos": "macOS", "windows": "Windows"}


def field_error(field: str) -> Static:
    """The line under a field that says what it takes when a typed value is refused (hidden while there is none)."""
    error = Static("", classes="field-error", name=field)
    error.display = False
    return error


class TeamForm(Vertical):
    """Fields for what a team says about itself; each typed value is checked by the profile loader's own code.

    A refused value keeps the old answer and says, right under its field, what the field takes.
    """

    def compose(self) -> ComposeResult:
        """The fields (filled by `refresh_from_app`)."""
        yield Label("Team size (engineers who would do a move; empty: not given)", classes="section")
        with Horizontal(classes="fw-row"):
            yield AnswerField(answer=TEAM_SIZE, id="team-size", placeholder="e.g. 6", classes="short",
                              max_length=NUMBER_CHARS)
            yield Label("over", classes="between")
            yield AnswerField(answer=HORIZON, id="horizon", placeholder="24", classes="short", max_length=NUMBER_CHARS)
            yield Label("months of horizon", classes="between")
        yield field_error("team-size")
        yield field_error("horizon")
        yield Label("Per current framework: code to migrate (kLOC) and the team's experience", classes="section")
        yield Vertical(id="per-framework")
        yield Label("Application domains", classes="section")
        yield SelectionList[str](id="domains", classes="flat")
        yield Label("Serving stack the team runs today", classes="section")
        yield SelectionList[str](id="serving", classes="flat")
        yield Label("Operating systems and Python version the code runs on", classes="section")
        yield SelectionList[str](id="os", classes="flat")
        with Horizontal(classes="fw-row"):
            yield Label("Python version", classes="fw-name")
            yield AnswerField(
                answer=PYTHON, id="python", placeholder="e.g. 3.12", classes="short", max_length=SHORT_CHARS
            )
            yield Label("empty: any", classes="between")
        yield field_error("python")
        yield Label("Requirements", classes="section")
        yield Label("Maintainer countries allowed (ISO codes, e.g. CN US; empty: any)")
        yield AnswerField(
            answer=JURISDICTIONS, id="jurisdictions", placeholder="e.g. CN", classes="short", max_length=SHORT_CHARS
        )
        yield field_error("jurisdictions")
        yield Checkbox("One model code base must run on several backends (multi-backend)", id="multi-backend")

    @property
    def _app(self) -> Any:
        return self.app

    def refresh_from_app(self) -> None:
        """Fill every field from the walk and the knowledge base."""
        profile, kb = self._app.walk.profile, self._app.kb
        for error in self.query(".field-error").results(Static):  # the fields show the walk's answers again
            error.display = False
        self._set_input("team-size", "" if profile.team.size is None else str(profile.team.size))
        self._set_input("horizon", f"{profile.team.horizon_months:g}")
        self._set_input("python", profile.environment.python or "")
        offered = probed_python(self._app.probe or self._app.probe_fast)
        self.query_one("#python", Input).placeholder = f"here: {offered}"
        self._set_input("jurisdictions", " ".join(constraint_list(profile, "maintainer_jurisdictions")))
        cons = profile.constraints
        self.query_one("#multi-backend", Checkbox).value = bool(cons is not None and cons.multi_backend)
        named: dict[str, dict[str, str]] = {
            "domains": {d: v.name for d, v in kb.domains.items()} if kb is not None else {},
            "serving": {s: v.name for s, v in kb.serving.items()} if kb is not None else {},
            "os": OS_NAMES,
        }
        chosen = {"domains": list(profile.domain_weights()), "serving": list(profile.serving), "os": os_answer(profile)}
        for key, names in named.items():
            box = self.query_one(f"#{key}", SelectionList)
            with box.prevent(SelectionList.SelectedChanged):
                box.clear_options()
                for item, name in names.items():
                    box.add_option((Text(name), item, item in chosen[key]))  # names are text, not markup
        self.rebuild_frameworks()

    def _set_input(self, wid: str, text: str) -> None:
        self.query_one(f"#{wid}", Input).value = text

    @work(group="framework-rows", exclusive=True)
    async def rebuild_frameworks(self) -> None:
        """One row per current framework: its kLOC and the team's experience with it (a newer call wins)."""
        # Awaited removal first: a row mounted while its namesake is still being removed would half-compose.
        profile, kb = self._app.walk.profile, self._app.kb
        holder = self.query_one("#per-framework", Vertical)
        await holder.remove_children()
        rows: list[Widget] = []
        for fid in current(profile):
            name = kb.frameworks[fid].name if kb is not None and fid in kb.frameworks else fid
            kloc = kloc_of(profile, fid)
            level = experience(profile, fid)
            levels = [RadioButton(lv, value=lv == level, name=lv) for lv in EXPERIENCE_LEVELS]
            rows.append(
                Horizontal(
                    Label(name, classes="fw-name", markup=False),
                    AnswerField(
                        "" if kloc is None else f"{kloc:g}",
                        answer=kloc_answer(fid, name),
                        placeholder="kLOC",
                        name=fid,
                        classes="kloc short",
                        max_length=NUMBER_CHARS,
                    ),
                    classes="fw-row",
                )
            )
            rows.append(field_error(f"kloc:{fid}"))
            rows.append(RadioSet(*levels, name=fid, classes="flat inline fw-experience"))
        if not rows:
            rows.append(Horizontal(Label("(no current framework chosen above: a new project)"), classes="fw-row"))
        await holder.mount_all(rows)

    def _error(self, field: AnswerField, refused: bool) -> None:
        """Show (or clear) what `field` takes, on the line right under it, with what was typed."""
        key = field.answer.error_line
        error = next((e for e in self.query(".field-error").results(Static) if e.name == key), None)
        if error is None:
            return
        error.display = refused
        if not refused:
            error.update("")
            return
        typed = field.value.strip()
        shown = typed if len(typed) <= 24 else typed[:24] + "…"
        error.update(plain(f"{field.answer.expected}; not “{shown}”"))  # typed text: never markup
        error.scroll_visible()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter takes the typed value."""
        event.stop()
        self._commit(event.input)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        """Leaving a field takes its value too (a half-typed value is never taken key by key)."""
        event.stop()
        self._commit(event.input)

    def _commit(self, field: Input) -> None:
        """Check a typed value with the profile loader; keep the old answer when it fails."""
        if not isinstance(field, AnswerField):
            return
        walk, text = self._app.walk, field.value.strip()
        problem = field.answer.problem(text)
        self._error(field, problem is not None)
        # A value equal to the profile's changes nothing (leaving a field is no answer).
        new = walk.profile if problem is not None else field.answer.answered(walk.profile, text)
        if new is not walk.profile:
            walk.profile = new
            self._app.save()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        """A framework's experience level."""
        event.stop()
        if event.radio_set.name and event.pressed.name:
            walk = self._app.walk
            walk.profile = with_experience(walk.profile, event.radio_set.name, event.pressed.name)
            self._app.save()

    # Domains, serving stack and operating systems; each event stops here (the scenario step has a list too).

    @on(SelectionList.SelectedChanged, "#domains")
    def _domains_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        self._choose(event, lambda profile, chosen: with_domains(profile, chosen))

    @on(SelectionList.SelectedChanged, "#serving")
    def _serving_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        self._choose(event, lambda profile, chosen: answer(profile, "serving", value=chosen))

    @on(SelectionList.SelectedChanged, "#os")
    def _os_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        self._choose(event, lambda profile, chosen: answer(profile, "environment", "os", value=chosen))

    def _choose(
        self, event: SelectionList.SelectedChanged[str], put: Callable[[Profile, list[str]], Profile]
    ) -> None:
        event.stop()
        walk = self._app.walk
        walk.profile = put(walk.profile, list(event.selection_list.selected))
        self._app.save()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """Multi-backend portability."""
        event.stop()
        walk = self._app.walk
        walk.profile = with_constraint(walk.profile, "multi_backend", event.value)
        self._app.save()
