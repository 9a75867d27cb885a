"""`fwadvisor tui` (also `fwadvisor` alone): open the interactive advisor."""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.tui.app import AdvisorApp

HELP = "open the interactive advisor (the default when no command is given)"


def configure(parser: argparse.ArgumentParser) -> None:
    """`--fresh` ignores a half-done walk; `--report FILE` opens a saved report on the Results step."""
    parser.add_argument("--fresh", action="store_true", help="start a new walk instead of resuming the last one")
    parser.add_argument(
        "--report", metavar="FILE", help="open a saved report (JSON) without re-measuring; your saved walk is kept"
    )


def build_app(args: argparse.Namespace, **options: Any) -> AdvisorApp:
    """The app for these flags (`options`: the app's own, e.g. recorded evidence in tests); not yet running.

    `--report` opens the report beside the saved walk, on the Results step: the walk stays saved as it was.
    """
    # Deferred import: Textual and the app load only when the app is opened, so `--help` stays fast.
    from advisor.tui.app import AdvisorApp

    report = None
    if getattr(args, "report", None):
        from advisor.tui import core

        report = core.load_report(args.report)
    options.setdefault("packs", tuple(getattr(args, "kb", []) or ()))
    app = AdvisorApp(resume=not getattr(args, "fresh", False), **options)
    if report is not None:
        app.open_report(report)
        app.walk.step = "results"  # the report's own walk: the saved one keeps its step
    return app


def run(args: argparse.Namespace) -> int:
    """Open the Textual app."""
    app = build_app(args)
    from advisor.cli import signals

    def on_signal(signum: int) -> None:
        # The children are being ended (signals.py); leave through the app, so that the terminal is restored.
        try:
            loop = asyncio.get_running_loop()  # the handler runs in the main thread, inside the app's loop
        except RuntimeError:  # the app's loop is not running (yet, or any more): leave as any command does
            if signum == signal.SIGTERM:
                raise signals.Terminated from None
            raise KeyboardInterrupt from None
        loop.call_soon_threadsafe(app.exit, None, signals.EXIT_CODES.get(signal.Signals(signum), 1))

    signals.deliver_to(on_signal)
    try:
        app.run()
    finally:
        signals.deliver_to(None)
    if signals.received() is not None:
        return signals.interrupted()
    return int(app.return_code or 0)
