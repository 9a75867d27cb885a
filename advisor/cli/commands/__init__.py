"""The registry of subcommands: name -> module with HELP, configure(parser) and run(args)."""

from __future__ import annotations

from types import ModuleType

from advisor.cli.commands import bench, checklist, compare, fleet, kb, probe, profile, report, team, tui

COMMANDS: dict[str, ModuleType] = {
    "tui": tui,
    "probe": probe,
    "bench": bench,
    "report": report,
    "compare": compare,
    "profile": profile,
    "checklist": checklist,
    "team": team,
    "fleet": fleet,
    "kb": kb,
}
