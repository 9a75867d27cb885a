"""Every flag checked once, after parsing and before any command runs: empty strings, numbers, output paths."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from typing import Any

from advisor import limits
from advisor.errors import UsageError
from advisor.sanitize import echo

#: Flags that name a file to write; checked before a long run so that the run is not wasted.
OUTPUT_DESTS = ("output", "save")


def _nnodes(value: str, field: str) -> None:
    m = re.fullmatch(r"(\d{1,9})(?::(\d{1,9}))?", value)
    if not m:
        raise UsageError(f"must be N or MIN:MAX, got {echo(value)}", field=field)
    low, high = int(m.group(1)), int(m.group(2) or m.group(1))
    for v in (low, high):
        limits.check_number(v, field, low=1, high=limits.MAX_NODES)
    if low > high:
        raise UsageError(f"MIN must not exceed MAX, got {echo(value)}", field=field)


#: A host name or IPv4 address (RFC 1123 letters, digits, dots, hyphens), or an IPv6 address in brackets.
_HOST = r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])"


def _pattern(pattern: str, what: str) -> Callable[[Any, str], None]:
    """A check that `value` is all of `pattern` (these flags reach torchrun's command line as they are)."""

    def check(value: Any, field: str) -> None:
        m = re.fullmatch(pattern, str(value))
        if not m:
            raise UsageError(f"must be {what}, got {echo(value)}", field=field)
        if m.groupdict().get("port") is not None:
            limits.check_number(int(m.group("port")), field, low=1, high=65535)

    return check


#: dest -> check(value, flag). Numbers are bounded here and nowhere else (see advisor.limits).
NUMBER_CHECKS: dict[str, Callable[[Any, str], None]] = {
    "budget": lambda v, f: limits.check_number(v, f, low=0, high=limits.MAX_BUDGET_S, low_open=True),
    "timeout": lambda v, f: limits.check_number(v, f, low=0, high=limits.MAX_TIMEOUT_S, low_open=True),
    "threads": lambda v, f: limits.check_threads(v, f),
    "nproc": lambda v, f: limits.check_processes(v, f),
    "seed": lambda v, f: limits.check_number(v, f, low=0, high=limits.MAX_SEED),
    "node_rank": lambda v, f: limits.check_number(v, f, low=0, high=limits.MAX_NODES - 1),
    "master_port": lambda v, f: limits.check_number(v, f, low=1, high=65535),
    "allreduce_port": lambda v, f: limits.check_number(v, f, low=1, high=65534),
    "allreduce_timeout": lambda v, f: limits.check_number(v, f, low=0, high=limits.MAX_TIMEOUT_S, low_open=True),
    "nnodes": _nnodes,
    "rdzv_endpoint": _pattern(_HOST + r"(?::(?P<port>\d{1,5}))?", "HOST or HOST:PORT"),
    "master_addr": _pattern(_HOST, "a host name or address"),
    "rdzv_id": _pattern(r"[A-Za-z0-9_.-]{1,128}", "letters, digits, '_', '.' or '-' (at most 128)"),
    "rdzv_backend": _pattern(r"c10d|etcd|etcd-v2|static", "one of c10d, etcd, etcd-v2, static"),
}


def _actions(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Iterator[argparse.Action]:
    """The actions of `parser` and of the subparsers that were chosen (nested: `team merge`, `profile check`)."""
    for action in parser._actions:  # noqa: SLF001 - argparse has no public list of a parser's actions
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for name, sub in action.choices.items():
                if getattr(args, action.dest or "", None) == name:
                    yield from _actions(sub, args)
        else:
            yield action


def _flag(action: argparse.Action) -> str:
    if action.option_strings:
        return max(action.option_strings, key=len)
    return str(action.metavar or action.dest)


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Raise `UsageError` for the first flag that is empty, out of range or an unwritable output path."""
    from advisor.atomic import check_writable

    seen: set[str] = set()
    for action in _actions(parser, args):
        if action.dest in seen or not hasattr(args, action.dest):
            continue
        seen.add(action.dest)
        value = getattr(args, action.dest)
        values = value if isinstance(value, list) else [value]
        flag = str(_flag(action))
        if any(isinstance(v, str) and not v.strip() for v in values):
            # An empty path once meant "no path" silently: `--from-json ''` ran a full probe and benchmark.
            raise UsageError("must not be empty", field=flag)
        check = NUMBER_CHECKS.get(action.dest)
        if check is not None and value is not None and value is not action.default:
            check(value, flag)
        if action.dest in OUTPUT_DESTS and isinstance(value, str):
            check_writable(value, flag)
