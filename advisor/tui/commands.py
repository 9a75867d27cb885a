"""The command palette: one entry for every action of the app and of the screen in front."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


@dataclass(frozen=True)
class Command:
    """A palette entry: its title, what it does, and the action string it runs."""

    title: str
    help: str
    action: str
    screen: str | None = None  # only offered on this screen (None: everywhere)


#: Every action of the app; each screen's own actions are listed with its name.
COMMANDS: tuple[Command, ...] = (
    Command("Go to: Welcome", "The start: machine at a glance, load a profile or report", "app.goto('welcome')"),
    Command("Go to: Scenario & team", "Scenario preset, current frameworks, experience", "app.goto('scenario')"),
    Command("Go to: Priorities", "Weights for every criterion and hard constraints", "app.goto('priorities')"),
    Command("Go to: Probe & benchmarks", "Run the full probe and a benchmark preset", "app.goto('evidence')"),
    Command("Go to: Results", "Ranking, breakdown, sensitivity and what-if", "app.goto('results')"),
    Command("Go to: Onboarding", "The checklist for the chosen framework", "app.goto('onboarding')"),
    Command("Go to: Export", "Write the report, profile and checklist to files", "app.goto('export')"),
    Command("Back", "The previous step of the walk", "app.walk_back"),
    Command("Next", "The next step of the walk", "app.walk_forward"),
    Command("Help", "Keys and what each screen does", "app.help"),
    Command("Start over", "Forget the answers and start a fresh walk", "app.start_fresh"),
    Command("Quit", "Quit (running probes and benchmarks are stopped)", "app.quit"),
    Command("Load a saved profile", "Read a profile YAML into the walk", "screen.focus_profile", "welcome"),
    Command("Open a saved report", "Show a saved report JSON", "screen.focus_report", "welcome"),
    Command("Apply scenario weights", "Fill the weights from the scenario preset", "screen.apply_preset", "priorities"),
    Command("Which matters more?", "Answer pairwise questions to set the weights", "screen.pairwise", "priorities"),
    Command("Start the probe and benchmarks", "Run the full probe, then the chosen preset", "screen.start", "evidence"),
    Command(
        "Cancel the running benchmark",
        "Stop the probe/benchmark (child processes are killed)",
        "screen.cancel",
        "evidence",
    ),
    Command("Reset what-if weights", "Put the what-if weights back to the profile's", "screen.reset_whatif", "results"),
    Command("Choose the selected framework", "Use it for onboarding and export", "screen.choose", "results"),
    Command("Toggle the selected checklist item", "Tick or untick it (saved)", "screen.toggle_item", "onboarding"),
    Command("Export the selected files", "Write them atomically", "screen.export", "export"),
)


class AdvisorCommands(Provider):
    """Offers every command of the app and of the current screen in the palette."""

    def _commands(self) -> list[Command]:
        name = getattr(self.screen, "step", None)
        return [c for c in COMMANDS if c.screen is None or c.screen == name]

    async def _run(self, action: str) -> None:
        await self.app.run_action(action, self.screen)

    async def discover(self) -> Hits:
        """All commands, before the user types."""
        for cmd in self._commands():
            yield DiscoveryHit(cmd.title, partial(self._run, cmd.action), help=cmd.help)

    async def search(self, query: str) -> Hits:
        """Commands whose title matches what the user typed."""
        matcher = self.matcher(query)
        for cmd in self._commands():
            score = matcher.match(cmd.title)
            if score > 0:
                yield Hit(score, matcher.highlight(cmd.title), partial(self._run, cmd.action), help=cmd.help)
