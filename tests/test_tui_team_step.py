"""Pilot tests of the Team step's team fields: size, kLOC and experience per framework, domains, needs, resume."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from _tui_support import goto, make_app, recorded_probe, settle
from textual.pilot import Pilot

from advisor.profile import experience_of
from advisor.report import Report
from advisor.tui.data.answers import constraint_list, os_answer


def run(coro):  # type: ignore[no-untyped-def]
    """Run one async test body (pytest-asyncio is not a dependency)."""
    import asyncio

    return asyncio.run(coro)


async def type_into(pilot: Pilot[Any], field: Any, text: str) -> None:
    """Focus a field, replace its text by typing, and leave it with Tab (which takes the value)."""
    field.focus()
    field.value = ""
    if text:
        await pilot.press(*text)
    await pilot.press("tab")
    await settle(pilot)


def kloc_field(app: Any, fid: str) -> Any:
    from textual.widgets import Input

    return next(i for i in app.screen.query(".kloc").results(Input) if i.name == fid)


async def choose_current(pilot: Pilot[Any], *fids: str) -> None:
    from textual.widgets import SelectionList

    for fid in fids:
        pilot.app.screen.query_one("#current", SelectionList).select(fid)
    await settle(pilot)


def shown_text(widget: Any) -> str:
    """What a Static shows, as plain text (Rich renderables rendered wide, so nothing is cut)."""
    from rich.console import Console

    console = Console(width=400, record=True)
    console.print(widget.content)
    return console.export_text()


def test_team_size_and_kloc_remove_the_warning_and_change_the_migration_figures(
    kb: Any, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """The figures Results shows follow the answers, and the CLI re-scores the exported report to the same."""

    async def body() -> tuple[dict[str, Any], str, str]:
        from textual.widgets import Checkbox, Input

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "scenario")
            await choose_current(pilot, "tensorflow")
            await goto(pilot, "results")
            before = shown_text(app.screen.query_one("#warnings")) + shown_text(app.screen.query_one("#breakdown"))
            await goto(pilot, "scenario")
            await type_into(pilot, app.screen.query_one("#team-size", Input), "6")
            await type_into(pilot, kloc_field(app, "tensorflow"), "50")
            app.screen.query_one("#multi-backend", Checkbox).value = True
            await settle(pilot)
            await goto(pilot, "results")
            after = shown_text(app.screen.query_one("#warnings")) + shown_text(app.screen.query_one("#breakdown"))
            await pilot.press("enter")
            await goto(pilot, "export")
            for key, name in (("json", "r.json"), ("markdown", "r.md"), ("profile", "p.yaml"), ("checklist", "c.md")):
                app.screen.query_one(f"#path-{key}", Input).value = str(tmp_path / name)
            app.screen.query_one("#export").focus()
            await pilot.press("e")
            await settle(pilot)
            report = app.current_report()
            return report, before, after

    report, before, after = run(body())
    assert "team.size is not given" in before and "1 engineer (assumed)" in before
    assert "team.size is not given" not in after and "(assumed)" not in after
    assert "50 kLOC" in after and "of 6 engineers" in after
    report = report.model_dump(mode="json")  # compared below with what the CLI prints
    assert report["profile"]["as_written"]["team"]["size"] == 6
    assert report["profile"]["as_written"]["codebase"]["by_framework"] == {"tensorflow": 50.0}
    assert report["profile"]["as_written"]["constraints"]["multi_backend"] is True
    done = subprocess.run(
        [sys.executable, "-m", "advisor", "report", "--from-json", str(tmp_path / "r.json"), "--json"],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rescored = json.loads(done.stdout)
    for key in ("ranking", "exclusions", "warnings", "migration"):
        assert rescored[key] == report[key], key
    assert rescored["recommendation"]["framework"] == report["recommendation"]["framework"]
    assert rescored["profile"]["as_written"] == report["profile"]["as_written"]


def test_experience_per_framework_and_domains_reach_the_profile_and_the_ecosystem(kb: Any) -> None:

    async def body() -> None:
        from textual.widgets import RadioButton, RadioSet, SelectionList

        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "scenario")
            await choose_current(pilot, "pytorch", "jax")
            jax = next(r for r in app.screen.query(RadioSet) if r.name == "jax")
            expert = next(b for b in jax.query(RadioButton) if b.name == "expert")
            expert.scroll_visible(animate=False)
            await settle(pilot)
            await pilot.click(expert)
            await settle(pilot)
            profile = app.profile()
            assert {k: str(v) for k, v in profile.team.experience.items()} == {"jax": "expert"}  # what was said
            assert {f: str(experience_of(profile, f)) for f in profile.team.current} == {  # as the core reads it
                "pytorch": "intermediate",
                "jax": "expert",
            }
            await goto(pilot, "results")
            plain = app.screen.report
            domain = next(iter(kb.domains))
            await goto(pilot, "scenario")
            app.screen.query_one("#domains", SelectionList).select(domain)
            await settle(pilot)
            assert app.profile().domains == [domain]
            await goto(pilot, "results")
            weighted = app.screen.report

            def ecosystem(report: Report) -> dict[str, float]:
                return {
                    e.framework: next(c.score for c in e.contributions if c.criterion == "ecosystem")
                    for e in report.ranking
                }

            assert ecosystem(plain) != ecosystem(weighted)
            assert domain in json.dumps(weighted.profile.as_written)

    run(body())


def test_team_answers_are_saved_and_resumed_and_a_bad_number_shows_one_line(kb: Any, tmp_path: Path) -> None:
    settings = tmp_path / "state.json"

    async def first() -> None:
        from textual.widgets import Input, SelectionList, Static

        app = make_app(kb, resume=True, settings_path=settings)
        async with app.run_test(size=(80, 24)) as pilot:
            await goto(pilot, "scenario")
            await choose_current(pilot, "tensorflow")
            await type_into(pilot, app.screen.query_one("#team-size", Input), "6")
            await type_into(pilot, kloc_field(app, "tensorflow"), "50")
            await type_into(pilot, app.screen.query_one("#jurisdictions", Input), "us")
            serving = next(iter(kb.serving))
            app.screen.query_one("#serving", SelectionList).select(serving)
            await settle(pilot)
            errors = {e.name: e for e in app.screen.query(".field-error").results(Static)}
            await type_into(pilot, kloc_field(app, "tensorflow"), "-3")
            line = str(errors["kloc:tensorflow"].render())
            assert len(line.splitlines()) == 1 and "thousands of lines of code" in line
            assert app.walk.profile.codebase.by_framework == {"tensorflow": 50.0}  # the old answer is kept
            await type_into(pilot, app.screen.query_one("#team-size", Input), "2.5")
            line = str(errors["team-size"].render())
            assert len(line.splitlines()) == 1 and "whole number" in line and app.walk.profile.team.size == 6
            await type_into(pilot, app.screen.query_one("#team-size", Input), "6")
            assert str(errors["team-size"].render()) == "" and not errors["team-size"].display
            await pilot.press("q")

    async def again() -> None:
        from textual.widgets import Input

        app = make_app(kb, resume=True, settings_path=settings)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            profile = app.walk.profile
            assert profile.team.size == 6 and profile.codebase.by_framework == {"tensorflow": 50.0}
            assert constraint_list(profile, "maintainer_jurisdictions") == ["US"]
            assert profile.serving == [next(iter(kb.serving))]
            await goto(pilot, "scenario")
            assert app.screen.query_one("#team-size", Input).value == "6"
            assert kloc_field(app, "tensorflow").value == "50"
            python = app.screen.query_one("#python", Input)
            assert python.value == "" and profile.environment.python is None  # offered, not assumed
            assert python.placeholder == "here: " + ".".join(recorded_probe()["software"]["python"].split(".")[:2])
            probed = recorded_probe()["software"]["os"].lower()
            assert os_answer(profile) and os_answer(profile)[0] in probed  # prefilled from the probe
            constraints = app.profile().constraints
            assert constraints is not None and constraints.maintainer_jurisdictions == ["US"]

    run(first())
    run(again())


def test_a_loaded_profile_passes_through_the_walk_unchanged(kb: Any) -> None:
    """What the step does not show (domain weights, fleet, licences) is kept, so an export loses nothing."""
    from advisor.profile import load_profile_text, parse_profile, profile_to_json
    from advisor.tui import core
    from advisor.tui.data.answers import with_domains, with_experience
    from advisor.tui.data.state import Walk

    domains = list(kb.domains)[:2]
    raw = {
        "scenario": next(iter(kb.scenarios)),
        "team": {"current": ["tensorflow", "pytorch"], "experience": {"tensorflow": "expert"}, "size": 4},
        "codebase": {"size": "small", "by_framework": {"tensorflow": 30.0, "pytorch": 5.0}},
        "domains": {domains[0]: 2.0, domains[1]: 1.0},
        "serving": [next(iter(kb.serving))],
        "environment": {"os": ["linux"], "python": "3.12"},
        "fleet": [{"hardware": "nvidia_cuda", "model": "V100", "compute_capability": "7.0", "count": 16}],
        "weights": {"performance": 5.0},
        "constraints": {"licenses": ["Apache-2.0"], "maintainer_jurisdictions": ["US"], "multi_backend": True},
    }
    raw["team"]["horizon_months"] = 36.0
    walk = Walk(profile=parse_profile(raw))
    # The walk holds the profile itself: its export is the file's, with no default level written for pytorch.
    exported = load_profile_text(core.profile_yaml(walk.profile))
    assert profile_to_json(exported) == profile_to_json(parse_profile(raw))
    # An edit changes its own field only: the domain weights of the domains kept, every other section as written.
    walk.profile = with_experience(with_domains(walk.profile, domains[:1]), "pytorch", "beginner")
    edited = profile_to_json(walk.profile)
    assert edited["domains"] == {domains[0]: 2.0}
    assert edited["team"]["experience"] == {"tensorflow": "expert", "pytorch": "beginner"}
    assert {k: v for k, v in edited.items() if k not in ("domains", "team")} == {
        k: v for k, v in raw.items() if k not in ("domains", "team")}
