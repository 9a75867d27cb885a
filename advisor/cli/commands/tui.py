"""`fwadvisor tui` (also `fwadvisor` alone): open the interactive advisor."""

from __future__ import annotations

import argparse
import sys

HELP = "open the interactive advisor (the default when no command is given)"


def configure(parser: argparse.ArgumentParser) -> None:
    """No arguments yet."""


def run(args: argparse.Namespace) -> int:
    """Open the Textual app."""
    print("fwadvisor: the interactive advisor is not built yet; try `fwadvisor kb list`", file=sys.stderr)
    return 1
