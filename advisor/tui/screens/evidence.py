"""Step 4: the full probe and the chosen benchmark preset, run in a worker, shown as they arrive."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    Button,
    DataTable,
    Label,
    ProgressBar,
    RadioButton,
    RadioSet,
    Static,
    TabbedContent,
    TabPane,
)
from textual.worker import Worker, WorkerState

from advisor.tui import core
from advisor.tui.data.state import BENCH_PRESETS
from advisor.tui.messages import (
    BenchDone,
    BenchFailed,
    BenchProgress,
    EvidenceRunEnded,
    ProbeDone,
    ProbeFailed,
    ProbeProgress,
)
from advisor.tui.screens.base import StepScreen
from advisor.tui.widgets.bars import Bar, BarChart
from advisor.tui.widgets.body import Body
from advisor.tui.widgets.results import LEGEND, RESULT_COLUMNS, failure_lines, fmt, result_row

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchFailure, BenchReport, Measurement
    from advisor.evidence.probe import ProbeReport

class EvidenceScreen(StepScreen):
    """Run the probe and benchmarks; per-framework progress, live table, bar charts, failures, cancel."""

    step = "evidence"
    HELP = (
        "Choose a benchmark preset (quick takes about 1-2 minutes for three frameworks on a small CPU; "
        "standard and thorough take several times longer) and press `s` to start. "
        "The full probe runs first, then the benchmarks, each framework in its own child process. "
        "Results arrive live in the table; the Charts tab shows throughput and % of the CPU's estimated "
        "peak; failures are listed and never stop the rest. IQR% is the spread of the repeated timings "
        "(interquartile range over the median); `!` marks a figure the core flagged (wide spread, too few "
        "samples): the line under the table says why. `c` cancels (child processes are killed; a cancelled "
        "re-run keeps the previous complete run's figures); you can go back at any time and the run goes on."
    )
    BINDINGS = [
        Binding("s", "start", "Start"),
        Binding("c", "cancel", "Cancel"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.worker: Worker[None] | None = None
        self.results: list[Measurement] = []
        self.failures: list[BenchFailure] = []
        self.frameworks_seen: dict[str, dict[str, Any]] = {}
        self.benchmarks: tuple[str, ...] = ()

    def body(self) -> ComposeResult:
        """Preset and buttons, status and progress, then tabs for results, charts and failures."""
        with Vertical(id="evidence-body"):
            with Horizontal(id="evidence-controls"):
                with RadioSet(id="preset", classes="flat inline"):
                    for preset in BENCH_PRESETS:
                        yield RadioButton(preset, id=f"preset-{preset}")
                yield Button("Start", id="start", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", variant="error", compact=True, disabled=True)
            # Plain text: a child's error or note may hold brackets (TensorFlow's "[/job:localhost/...]"), which as
            # markup raised MarkupError and ended the app.
            yield Static("Not started.", id="evidence-status", markup=False)
            yield Body(id="progress")
            with TabbedContent(id="evidence-tabs"):
                with TabPane("Results", id="tab-results"):
                    yield DataTable(id="results", zebra_stripes=True, cursor_type="row")
                    yield Static(LEGEND, id="result-detail", classes="dim")
                with TabPane("Charts", id="tab-charts"):
                    with VerticalScroll():
                        yield BarChart("GEMM throughput", id="chart-throughput")
                        yield BarChart("GEMM % of estimated peak (full bar: 100%)", id="chart-peak", scale=100.0)
                with TabPane("Failures", id="tab-failures"):
                    yield Static("none", id="failures")

    def on_mount(self) -> None:
        """Columns, the preset from the walk, and evidence that is already there (recorded or earlier)."""
        table = self.query_one("#results", DataTable)
        for col in RESULT_COLUMNS:
            table.add_column(col, key=col)
        self.query_one(f"#preset-{self.advisor.walk.bench_preset}", RadioButton).value = True
        self.refresh_from_app()

    def refresh_from_app(self) -> None:
        """Show the evidence the app holds (injected recorded evidence, or an earlier run)."""
        app = self.advisor
        if self.worker is not None and self.worker.state in (WorkerState.PENDING, WorkerState.RUNNING):
            return  # a live run is drawing its own figures
        if app.probe is not None:
            self._show_probe(app.probe)
        if app.bench is not None:
            self._show_bench(app.bench)
        if not app.live:
            self.query_one("#start", Button).disabled = True
            if app.bench is None and app.probe is None:
                self._status("Probing and benchmarks are off in this session: not available.")
            else:
                self._status("Showing recorded evidence (live runs are off in this session).")
        elif app.bench is not None or app.probe is not None:
            self._status(
                "Showing the evidence measured last time (or from the opened report); press s to measure again."
            )

    def _status(self, text: str) -> None:
        self.query_one("#evidence-status", Static).update(text)

    # --- running ---------------------------------------------------------------------------------

    @on(RadioSet.Changed, "#preset")
    def _preset_changed(self, event: RadioSet.Changed) -> None:
        """The preset (its buttons' ids are preset-<name>)."""
        self.advisor.walk.bench_preset = (event.pressed.id or "preset-quick").removeprefix("preset-")
        self.advisor.save()

    def action_start(self) -> None:
        """Run the full probe then the chosen preset; a new run cancels one in progress."""
        app = self.advisor
        if not app.live:
            self.notify("live runs are off in this session", severity="warning")
            return
        self.results.clear()
        self.failures.clear()
        self.frameworks_seen.clear()
        self.query_one("#results", DataTable).clear()
        self.query_one("#progress", Body).remove_children()
        self._redraw_charts()
        self.query_one("#failures", Static).update("none")
        try:
            self.benchmarks = core.bench_benchmarks()
        except core.Unavailable:
            self.benchmarks = ()
        preset = app.walk.bench_preset
        self._status(f"Probing the machine and the installed frameworks, then benchmarks ({preset})…")
        self.worker = app.run_evidence(self, preset, None)
        self.query_one("#cancel", Button).disabled = False

    def action_cancel(self) -> None:
        """Cancel the run: the worker's cancel event reaches the core, which kills its child processes."""
        if self.worker is not None and self.worker.state in (WorkerState.PENDING, WorkerState.RUNNING):
            self.worker.cancel()
            self._status("Cancelling… (child processes are being stopped)")

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The run ended (done, cancelled or failed)."""
        if event.worker is not self.worker:
            return
        if event.state == WorkerState.CANCELLED:
            self._status("Cancelled. Evidence gathered so far is kept; press s to run again.")
        elif event.state == WorkerState.ERROR:
            self._status(f"The run failed: {event.worker.error}")
        if event.state in (WorkerState.CANCELLED, WorkerState.ERROR, WorkerState.SUCCESS):
            self.query_one("#cancel", Button).disabled = True

    # --- progress --------------------------------------------------------------------------------

    def _progress_row(self, framework: str) -> dict[str, Any]:
        row = self.frameworks_seen.get(framework)
        if row is None:
            bar = ProgressBar(total=None, show_eta=False)
            label = Label(f"{framework[:12]:<12}", classes="pb-label")
            note = Label("waiting", classes="pb-note", markup=False)
            box = Horizontal(label, bar, note, classes="pb-row")
            self.query_one("#progress", Body).mount(box)
            # state: waiting -> running -> done | cancelled | failed
            row = {"bar": bar, "note": note, "started": 0, "state": "waiting"}
            self.frameworks_seen[framework] = row
        return row

    def _total(self) -> int:
        return max(len(self.benchmarks), 1)

    def on_probe_progress(self, message: ProbeProgress) -> None:
        """A probe event: a framework's row says what its probe does; a section goes on the status line."""
        # ProbeEvent: kind section | framework_start | framework_event | framework_done; name = framework id
        event = message.event
        if event.kind.startswith("framework"):
            row = self._progress_row(event.name)
            row["note"].update(f"probe: {event.message}")
        else:
            self._status(f"Probing: {event.message}")

    def on_bench_progress(self, message: BenchProgress) -> None:
        """A benchmark event: move that framework's bar; add figures and failures as they come."""
        event = message.event
        kind = event.kind
        row = self._progress_row(event.framework or "?")
        if kind == "framework_start":
            row["state"] = "running"
            row["bar"].update(total=self._total(), progress=0)
            row["note"].update(f"bench: {event.message or 'starting'}")
        elif kind == "bench_start":
            row["state"] = "running"
            row["started"] += 1
            row["bar"].update(total=self._total(), progress=max(row["started"] - 1, 0))
            row["note"].update(f"bench: {event.benchmark} on {event.device or '?'}")
        elif kind == "framework_end":
            if row["state"] == "cancelled":
                self._end_row(row, "cancelled")
            else:
                row["state"] = "done"
                row["bar"].update(total=self._total(), progress=self._total())
                row["note"].update("done")
        elif kind == "note":
            row["note"].update(event.message)
        if kind == "result" and event.measurement is not None:
            self._add_result(event.measurement)
        failure = event.failure
        if kind == "failure" and failure is not None:
            if failure.outcome == "cancelled":
                self._end_row(row, "cancelled")
            elif failure.benchmark == "*" and row["started"] == 0:
                # The whole framework: say why on its row (not installed, no script of its own), not 'not run'.
                row["state"] = failure.outcome or "failed"
                row["bar"].update(total=self._total(), progress=0)
                row["note"].update(f"{failure.outcome}: {failure.error}")
            self._add_failure(failure)

    def _end_row(self, row: dict[str, Any], how: str) -> None:
        """Stop a row where it is: its bar keeps the benchmarks that finished, its note says why it stopped."""
        finished = max(row["started"] - 1, 0)
        if row["state"] in ("waiting",) or row["started"] == 0:
            row["note"].update("not started (cancelled)" if how == "cancelled" else "not run")
        else:
            row["note"].update(f"cancelled after {finished} of {self._total()} benchmarks")
        row["state"] = how
        row["bar"].update(total=self._total(), progress=finished)

    def _end_run(self, cancelled: bool) -> None:
        """The run ended: no row keeps animating, and none that stopped early reads as done."""
        for row in self.frameworks_seen.values():
            if row["state"] in ("waiting", "running"):
                self._end_row(row, "cancelled" if cancelled else "not run")
        self.query_one("#cancel", Button).disabled = True

    def on_evidence_run_ended(self, message: EvidenceRunEnded) -> None:
        """The run ended, however."""
        if self.is_mounted:
            self._end_run(message.cancelled)

    def on_probe_done(self, message: ProbeDone) -> None:
        """The full probe finished: show its JSON (its failures), or that it was cancelled."""
        if not self.is_mounted:
            return
        if message.cancelled:
            self._status(self._cancelled_text(None))
        else:
            self._show_probe(message.data)
            self._status(
                "Probe done; benchmarks running…" if self.advisor.walk.bench_preset != "none" else "Probe done."
            )

    def on_probe_failed(self, message: ProbeFailed) -> None:
        """The full probe failed: why."""
        if self.is_mounted:
            self._status(f"The probe is not available: {message.error}")

    def on_bench_done(self, message: BenchDone) -> None:
        """The benchmarks finished: show the figures the app kept; a cancel says which those are."""
        if not self.is_mounted:
            return
        kept = self._show_kept_bench()
        if message.cancelled:
            n = len(message.data.results)
            if kept is not message.data and kept is not None:
                what = (
                    f"the previous complete run's {len(kept.results)} figures are kept "
                    f"(the {n} of the cancelled run are not). "
                )
            else:
                what = f"the {n} figures measured before are kept. "
            self._status(self._cancelled_text(what))
        else:
            self._status(f"Benchmarks done in {fmt(message.data.wall_s)} s. Press n for the results.")

    def on_bench_failed(self, message: BenchFailed) -> None:
        """The benchmarks could not run: why (the figures kept from before stay shown)."""
        if self.is_mounted:
            self._show_kept_bench()
            self._status(f"Benchmarks not available: {message.error}")

    def _show_kept_bench(self) -> BenchReport | None:
        kept = self.advisor.bench
        if kept is not None:
            self._show_bench(kept)
        return kept

    def _cancelled_text(self, kept: str | None) -> str:
        """What a cancel did, checked: "stopped" only when no child process of the run is left."""
        kept = kept or ""
        try:
            left = core.children_alive()
        except core.Unavailable:
            return f"Cancelled (whether its child processes stopped could not be checked); {kept}Press s to run again."
        if left:
            pids = ", ".join(map(str, left[:5]))
            return (f"Cancelled, but {len(left)} child process(es) still running (PID {pids}). "
                    f"{kept}Press s to run again.")
        return f"Cancelled: child processes stopped; {kept}Press s to run again."

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The full name, figure and the core's notes of the highlighted result."""
        row = event.cursor_row
        if not 0 <= row < len(self.results):
            return
        r = self.results[row]
        name = " ".join(x for x in (r.framework, r.benchmark, r.variant, r.device) if x)
        notes = "; ".join(w.message for w in r.warnings) or "no warnings"
        self.query_one("#result-detail", Static).update(Text(f"{name}: {notes}"))

    # --- drawing ---------------------------------------------------------------------------------

    def _show_probe(self, probe: ProbeReport) -> None:
        self.failures = [f for f in self.failures if f.benchmark != "probe"]
        for failure in core.probe_failures(probe):
            self._add_failure(failure)

    def _show_bench(self, bench: BenchReport) -> None:
        self.results.clear()
        self.query_one("#results", DataTable).clear()
        for result in bench.results:
            self._add_result(result)
        self.failures = [f for f in self.failures if f.benchmark == "probe"]
        for failure in bench.failures:
            self._add_failure(failure)

    def _add_result(self, r: Measurement) -> None:
        self.results.append(r)
        self.query_one("#results", DataTable).add_row(*result_row(r))
        self._redraw_charts()

    def _add_failure(self, f: BenchFailure) -> None:
        self.failures.append(f)
        self.query_one("#failures", Static).update(failure_lines(self.failures))
        self.query_one("#evidence-tabs", TabbedContent).get_tab(
            "tab-failures"
        ).label = f"Failures ({len(self.failures)})"

    def _redraw_charts(self) -> None:
        gemm = [r for r in self.results if r.benchmark == "gemm"]
        self.query_one("#chart-throughput", BarChart).set_bars(
            [Bar(f"{r.framework} {r.device} {r.variant}", r.value, r.unit) for r in gemm]
        )
        self.query_one("#chart-peak", BarChart).set_bars(
            [Bar(f"{r.framework} {r.device} {r.variant}", r.pct_of_peak, "%")
             for r in gemm if r.pct_of_peak is not None]
        )
