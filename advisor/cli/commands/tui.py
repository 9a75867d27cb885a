"""`fwadvisor tui` (also `fwadvisor` alone): open the interactive advisor."""

from __future__ import annotations

import argparse
import asyncio
import signal

HELP = "open the interactive advisor (the default when no command is given)"


def configure(parser: argparse.ArgumentParser) -> None:
    """`--fresh` ignores a half-done walk; `--report FILE` opens a saved report on the Results step."""
    parser.add_argument("--fresh", action="store_true", help="start a new walk instead of resuming the last one")
    parser.add_argument("--report", metavar="FILE", help="open a saved report (JSON) without re-measuring")


def run(args: argparse.Namespace) -> int:
    """Open the Textual app."""
    # Deferred import: Textual and the app load only when the app is opened, so `--help` stays fast.
    from advisor.tui.app import AdvisorApp

    report = None
    if getattr(args, "report", None):
        from advisor.tui import core

        report = core.load_report(args.report)
    app = AdvisorApp(packs=tuple(getattr(args, "kb", []) or ()), resume=not getattr(args, "fresh", False))
    if report is not None:
        app.walk.step = "results"
        app.open_report(report)
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
