"""Step 7: write the report (JSON, Markdown), the profile and the checklist to files the user names."""

from __future__ import annotations

import shlex
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Checkbox, Input, Label, Static

from advisor.atomic import atomic_write_text
from advisor.tui import core
from advisor.tui.plain import plain
from advisor.tui.screens.base import StepScreen
from advisor.tui.widgets.body import Body
from advisor.tui.widgets.field import TextField

#: (id, label, default file name)
EXPORTS: tuple[tuple[str, str, str], ...] = (
    ("json", "Report (JSON)", "fwadvisor-report.json"),
    ("markdown", "Report (Markdown)", "fwadvisor-report.md"),
    ("profile", "Profile (YAML)", "fwadvisor-profile.yaml"),
    ("checklist", "Checklist (Markdown)", "fwadvisor-checklist.md"),
)


class ExportScreen(StepScreen):
    """Tick what to write, name the files, export (atomic writes); the headless equivalent is shown."""

    step = "export"
    HELP = (
        "Tick the files to write and edit their names (relative paths are from the folder fwadvisor was "
        "started in). `e` (or the Export button) writes them atomically: an existing file is replaced "
        "only by the complete new one. The command line below repeats the same run without the app, "
        "e.g. in CI."
    )
    BINDINGS = [Binding("e", "export", "Export")]

    def body(self) -> ComposeResult:
        """One row per file, the button, the result and the command line."""
        with Body(id="export-body"):
            for key, label, default in EXPORTS:
                with Horizontal(classes="export-row"):
                    yield Checkbox(label, True, id=f"do-{key}", compact=True)
                    yield TextField(default, id=f"path-{key}", compact=True)
            yield Button("Export", id="export", variant="primary")
            yield Static("", id="export-status")
            yield Label("Headless equivalent", classes="section")
            yield Static("", id="command", classes="panel")

    def __init__(self) -> None:
        super().__init__()
        self.checklist_command: str | None = None  # `fwadvisor checklist ...` for the chosen framework

    def on_screen_resume(self) -> None:
        """Answers may have changed."""
        self.refresh_from_app()

    def on_input_changed(self, event: Input.Changed) -> None:
        """File names appear in the command line (the field itself is never rewritten)."""
        self._show_command()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a path field exports."""
        self.action_export()

    def _path(self, key: str) -> str:
        return self.query_one(f"#path-{key}", Input).value.strip()

    def command_line(self) -> str:
        """The `fwadvisor` commands that produce the same files without the app."""
        app = self.advisor
        profile = self._path("profile") or "profile.yaml"
        report = self._path("json") or "report.json"
        preset = app.walk.bench_preset
        bench = ["--no-bench"] if preset == "none" else ["--preset", preset]
        lines = [shlex.join(["fwadvisor", "report", "--profile", profile, *bench, "-o", report])]
        if self._path("markdown"):
            # Re-scores the saved evidence under the profile saved in it, without measuring again.
            lines.append(shlex.join(["fwadvisor", "report", "--from-json", report, "-o", self._path("markdown")]))
        if self.checklist_command is not None and self._path("checklist"):
            # The core's own regeneration command, on the saved report's machine and answers.
            cmd = [*shlex.split(self.checklist_command), "--report", report, "-o", self._path("checklist")]
            lines.append(shlex.join(cmd))
        return "\n".join(lines)

    def refresh_from_app(self) -> None:
        """The chosen framework's checklist command, then the command line."""
        app = self.advisor
        self.checklist_command = None
        framework = app.walk.chosen or app.chosen_framework(app.report or app.loaded_report)
        if framework is not None and app.kb is not None:
            try:
                self.checklist_command = str(app.walk_checklist(framework)[0].command())
            except Exception:  # noqa: BLE001 - the command line simply leaves the checklist out
                self.checklist_command = None
        self._show_command()

    def _show_command(self) -> None:
        self.query_one("#command", Static).update(plain(self.command_line()))  # typed paths: never markup

    @on(Button.Pressed, "#export")
    def _export_pressed(self) -> None:
        self.action_export()

    def action_export(self) -> None:
        """Write every ticked file in a worker; each one that cannot be produced says why."""
        wanted = [
            (key, label, self._path(key)) for key, label, _d in EXPORTS if self.query_one(f"#do-{key}", Checkbox).value
        ]
        if not wanted:
            self.query_one("#export-status", Static).update("nothing ticked")
            return
        self.query_one("#export-status", Static).update("writing…")
        self._export(wanted)

    @work(thread=True, group="export", exclusive=True, exit_on_error=False)
    def _export(self, wanted: list[tuple[str, str, str]]) -> None:
        app = self.advisor
        lines: list[str] = []
        texts: dict[str, str] = {}
        for key, label, path in wanted:
            if not path:
                lines.append(f"{label}: no file name")
                continue
            try:
                text = texts[key] = self._text_for(key)
                written = atomic_write_text(Path(path).expanduser(), text)
            except Exception as exc:  # noqa: BLE001 - each file fails alone, with its reason
                lines.append(f"{label}: not written — {exc}")
                continue
            lines.append(f"{label}: wrote {written}")
            if key == "profile":
                app.settings.last_profile = str(written)
                app.call_from_thread(app.save)
        self.app.call_from_thread(self.query_one("#export-status", Static).update, plain("\n".join(lines)))

    def _text_for(self, key: str) -> str:
        """One file's text; the report is the walk's answers scored now (or the opened report)."""
        app = self.advisor
        if key in ("json", "markdown"):
            report = app.current_report()
            return core.report_json_text(report) if key == "json" else core.report_markdown(report)
        if key == "profile":
            return core.profile_yaml(app.profile())
        framework = app.chosen_framework(app.current_report())
        if framework is None:
            raise core.Unavailable("no framework is recommended or chosen: see the Results step")
        return str(app.walk_checklist(framework)[0].to_markdown())
