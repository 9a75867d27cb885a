"""The one JSON reader and writer: bounded size and nesting on the way in, no NaN or Infinity on the way out."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError
from advisor.inputs import read_input_text
from advisor.limits import MAX_JSON_DEPTH, MAX_REPORT_BYTES


def finite(value: Any) -> Any:
    """`value` with every NaN or infinite float replaced by None (JSON has neither; `null` means unknown)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def json_text(data: Any, *, sort_keys: bool = False) -> str:
    """Strict JSON text (two-space indent, trailing newline): non-finite numbers become null."""
    return json.dumps(finite(data), indent=2, sort_keys=sort_keys, allow_nan=False) + "\n"


def _depth(data: Any) -> int:
    # Iterative, so a deep document cannot exhaust the Python stack while it is measured.
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_JSON_DEPTH:
                return depth
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return deepest


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _null_constant(_name: str) -> None:
    return None


def parse_json(text: str, source: str | Path, error: type[AdvisorError], *, lenient: bool = False) -> Any:
    """Parse JSON nested at most MAX_JSON_DEPTH deep; problems become `error`.

    NaN and Infinity (which Python writes but JSON lacks) are refused, or read as null with `lenient`
    (team merge reads other machines' files leniently and names what it cannot use).
    """
    try:
        data = json.loads(text, parse_constant=_null_constant if lenient else _no_constant)
    except json.JSONDecodeError as exc:
        raise error(f"not valid JSON ({exc.msg}, column {exc.colno})", file=source, line=exc.lineno) from None
    except RecursionError:
        raise error(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", file=source) from None
    except ValueError as exc:
        raise error(f"not valid JSON ({exc})", file=source) from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise error(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", file=source)
    return data


def read_json(
    path: str | Path,
    error: type[AdvisorError],
    *,
    limit: int = MAX_REPORT_BYTES,
    lenient: bool = False,
    follow_links: bool = True,
) -> Any:
    """Read and parse a JSON file: regular files only, at most `limit` bytes (checked before reading)."""
    text = read_input_text(path, error, limit=limit, follow_links=follow_links)
    return parse_json(text, path, error, lenient=lenient)
