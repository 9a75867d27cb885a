"""The `fwadvisor` command line: argument parsing and dispatch; each subcommand lives in `commands/`.

Start-up is kept light on purpose: this module imports only argparse and the small command
modules; Rich, Textual and the core are imported by a command's `run` when it is chosen.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from advisor import __version__
from advisor.cli.commands import COMMANDS
from advisor.errors import AdvisorError, ExitCode

EPILOG = """\
exit codes:
  0  success
  1  failure (a measurement or command failed; details on stderr)
  2  bad usage or bad input (flags, YAML, profiles, reports): one line names the file, line and field
  130, 143  stopped by SIGINT (Ctrl-C) or SIGTERM: every child process was ended first; one line says which
  141  stdout was closed early (e.g. `| head`), as for any command killed by SIGPIPE

Run `fwadvisor` with no command to open the interactive advisor.
"""


def build_parser() -> argparse.ArgumentParser:
    """The full parser; every subcommand registers its own arguments."""
    parser = argparse.ArgumentParser(
        prog="fwadvisor",
        description="Choose a deep-learning framework from evidence: knowledge base + probes + benchmarks.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"fwadvisor {__version__}")
    parser.add_argument(
        "--kb",
        action="append",
        default=[],
        metavar="DIR",
        help="add an overlay knowledge pack (repeatable; later packs override earlier ones)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


#: The exit status of a CLI whose reader went away (128 + SIGPIPE), as `yes | head` reports for `yes`.
BROKEN_PIPE_EXIT = 141


def _quiet_broken_pipe() -> int:
    # Later writes (and the interpreter's final flush of stdout) go to /dev/null instead of raising again.
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return BROKEN_PIPE_EXIT


def _encodable_streams() -> None:
    # An ASCII or Latin-1 stdout (PYTHONIOENCODING=ascii, LANG=C on old systems) cannot hold '•', '±' or a
    # CPU model's '®': such characters are written as \uXXXX escapes instead of ending the command.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass  # a stream already written to in another mode, or closed


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    from advisor.sanitize import one_line

    _encodable_streams()

    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "_run", None)
    if run is None:
        from advisor.cli.commands import tui

        run = tui.run
    from advisor.cli import signals
    from advisor.cli.checks import check_args

    # One owner of the children for the whole command: Ctrl-C, SIGTERM and the exit all end them (and theirs).
    with signals.owning_children():
        try:
            check_args(parser, args)  # every number and path flag, before anything runs
            return signals.outcome(int(run(args)))
        except AdvisorError as exc:
            # The one place where bad input becomes one line on stderr and exit code 2; input may hold ESC or NUL.
            print(f"fwadvisor: error: {one_line(str(exc))}", file=sys.stderr)
            return int(ExitCode.BAD_INPUT)
        except (KeyboardInterrupt, signals.Terminated):
            return signals.interrupted(signals.received())
        except BrokenPipeError:
            return _quiet_broken_pipe()
