"""Step 2: the scenario preset (described from the knowledge base) and the team: frameworks, code, its situation."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.markup import escape
from textual.widgets import Label, OptionList, RadioButton, RadioSet, SelectionList, Static
from textual.widgets.option_list import Option

from advisor.tui.data.answers import answer, codebase_size, with_current, with_scenario
from advisor.tui.data.state import CODEBASE_SIZES
from advisor.tui.screens.base import StepScreen
from advisor.tui.widgets.body import Body
from advisor.tui.widgets.team_form import TeamForm


class ScenarioScreen(StepScreen):
    """Pick a scenario; say what the team uses today, how well it knows it, and how much code would move."""

    step = "scenario"
    HELP = (
        "A scenario fills in default weights and constraints (you can change them on the next step). "
        "The team's current frameworks, its size, each framework's kLOC and the team's experience with it "
        "set the migration cost; domains weight the ecosystem; serving stack, OS, Python and the requirements "
        "(maintainer countries, multi-backend) can rule frameworks out. The OS starts as the probed machine's; its "
        "Python is only offered (greyed): type it if the team's code runs on it. A typed value is checked as a profile "
        "file would be: a bad one shows one line and the old answer stays. Tab moves between fields; Enter or "
        "Space chooses; ● marks the chosen scenario."
    )

    def body(self) -> ComposeResult:
        """Scenario list and description; team answers."""
        with Body(id="scenario-body"):
            yield Label("Scenario", classes="section")
            with Horizontal(id="scenario-row"):
                yield OptionList(id="scenarios", classes="flat")
                yield Static("", id="scenario-desc", classes="panel")
            yield Label("Frameworks the team uses today", classes="section")
            yield SelectionList[str](id="current", classes="flat")
            yield Label("Code to migrate, where no kLOC is given below (none: a new project)", classes="section")
            with RadioSet(id="codebase", classes="flat inline"):
                for size in CODEBASE_SIZES:
                    yield RadioButton(size, id=f"size-{size}")
            yield TeamForm(id="team-form")

    def on_mount(self) -> None:
        """Fill the lists from the knowledge base and the walk."""
        self.refresh_from_app()

    def refresh_from_app(self) -> None:
        """Redraw from the app's state."""
        app = self.advisor
        profile = app.walk.profile
        scenarios = self.query_one("#scenarios", OptionList)
        scenarios.clear_options()
        current = self.query_one("#current", SelectionList)
        current.clear_options()
        if app.kb is None:
            self.query_one("#scenario-desc", Static).update(self.kb_missing("Scenarios") or "")
        else:
            if not app.kb.scenarios:
                self.query_one("#scenario-desc", Static).update(
                    "No scenario presets in the knowledge base: not available. Weights start equal."
                )
            for sid in app.kb.scenarios:
                scenarios.add_option(Option(Text(self._prompt(sid)), id=sid))
            if app.kb.scenarios:
                ids = list(app.kb.scenarios)
                index = ids.index(profile.scenario) if profile.scenario in ids else 0
                scenarios.highlighted = index
                self._describe(ids[index])
            for fid, fw in app.kb.frameworks.items():
                current.add_option((Text(fw.name), fid, fid in profile.team.current))
        self.query_one(f"#size-{codebase_size(profile)}", RadioButton).value = True
        self.query_one(TeamForm).refresh_from_app()

    def _prompt(self, sid: str) -> str:
        """A scenario's line in the list; the chosen one is marked."""
        kb = self.advisor.kb
        name = kb.scenarios[sid].name if kb is not None else sid
        return f"● {name}" if sid == self.advisor.walk.profile.scenario else f"  {name}"

    def _describe(self, sid: str | None) -> None:
        kb = self.advisor.kb
        if kb is None or sid not in kb.scenarios:
            return
        sc = kb.scenarios[sid]
        chosen = " (chosen)" if sid == self.advisor.walk.profile.scenario else " (Enter to choose)"
        self.query_one("#scenario-desc", Static).update(f"[b]{escape(sc.name)}[/b]{chosen}\n{escape(sc.description)}")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Describe the highlighted scenario."""
        self._describe(event.option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Choose the scenario: its weights become the starting point."""
        walk = self.advisor.walk
        if event.option.id is not None and walk.profile.scenario != event.option.id:
            walk.profile = with_scenario(walk.profile, event.option.id)  # its weights apply until one is changed
            self.advisor.save()
        scenarios = event.option_list
        for index in range(scenarios.option_count):
            option = scenarios.get_option_at_index(index)
            if option.id is not None:
                scenarios.replace_option_prompt_at_index(index, Text(self._prompt(option.id)))
        self._describe(event.option.id)

    @on(SelectionList.SelectedChanged, "#current")
    def _current_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        """The team's current frameworks (each gets a row for its kLOC and experience)."""
        walk = self.advisor.walk
        walk.profile = with_current(walk.profile, event.selection_list.selected)
        self.advisor.save()
        self.query_one(TeamForm).rebuild_frameworks()

    @on(RadioSet.Changed, "#codebase")
    def _codebase_changed(self, event: RadioSet.Changed) -> None:
        """Codebase size class (its buttons' ids are size-<class>)."""
        walk = self.advisor.walk
        walk.profile = answer(walk.profile, "codebase", "size", value=(event.pressed.id or "").removeprefix("size-"))
        self.advisor.save()
