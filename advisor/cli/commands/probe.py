"""`fwadvisor probe`: not built yet (its issue has not landed)."""

from __future__ import annotations

import argparse
import sys

HELP = "probe (not built yet)"


def configure(parser: argparse.ArgumentParser) -> None:
    """No arguments yet."""


def run(args: argparse.Namespace) -> int:
    """Say plainly that this command does not exist yet."""
    print("fwadvisor probe: not built yet", file=sys.stderr)
    return 1
