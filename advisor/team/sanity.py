"""Plausibility of the numbers inside a report, and its identity (to count a report given twice only once).

A report is untrusted input: a NaN, an Infinity (or an overflowing literal such as `1e400`, which
JSON parsers read as Infinity), a negative count or an absurdly large one says the file was edited
or corrupted, and any figure taken from it would mislead. Such a file is named and skipped.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

#: No number in a report is larger than this (about 9.2e18; beyond int64 other tools cannot even read it).
MAX_MAGNITUDE = float(2**63)
#: Counts (cores, devices, draws, results) above this are not a real machine's.
MAX_COUNT = 2**24
#: Byte sizes at or above 2**62 are what cgroup v1 writes for "unlimited" and the probe drops: not a real size.
MAX_BYTES = 2**62
#: Keys whose values are counts or sizes: never negative, never absurdly large.
_COUNT_SUFFIXES = ("_cores", "cores", "count", "_count", "draws", "repeats", "threads")
_MAX_DEPTH = 64


def _kind_of(key: str) -> tuple[str, float] | None:
    k = key.lower()
    if k.endswith("_bytes") or k == "bytes":
        return "a byte size", MAX_BYTES
    if k.endswith(_COUNT_SUFFIXES):
        return "a count", MAX_COUNT
    return None


def _path(parts: list[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _show(number: float, spec: str) -> str:
    # `format(int, "g")` converts to float first: a 400-digit integer raised OverflowError there.
    if isinstance(number, int) and abs(number) >= 10**15:
        return f"an integer of {len(str(abs(number)))} digits"
    return format(number, spec)


def absurd_number(data: Any) -> str | None:
    """Why a number in `data` cannot be real (naming its field), or None when every number is plausible."""
    stack: list[tuple[Any, list[str | int], str]] = [(data, [], "")]
    while stack:
        node, where, key = stack.pop()
        if len(where) > _MAX_DEPTH:
            return f"{_path(where[:8])}...: nested more than {_MAX_DEPTH} levels deep"
        if isinstance(node, Mapping):
            stack += [(v, [*where, str(k)], str(k)) for k, v in node.items()]
        elif isinstance(node, list):
            stack += [(v, [*where, i], key) for i, v in enumerate(node)]
        elif isinstance(node, int | float) and not isinstance(node, bool):
            if isinstance(node, float) and math.isnan(node):
                return f"{_path(where)} is NaN, not a number"
            if isinstance(node, float) and math.isinf(node):
                return f"{_path(where)} is infinite (Infinity, or a literal too large for a float such as 1e400)"
            if abs(node) > MAX_MAGNITUDE:
                return f"{_path(where)} is {_show(node, '.3g')}: larger than any figure a report holds"
            kind = _kind_of(key)
            if kind is not None and (node < 0 or node > kind[1]):
                return f"{_path(where)} is {_show(node, '.6g')}: impossible for {kind[0]}"
            if key == "value" and "results" in where and node < 0:
                return f"{_path(where)} is {_show(node, '.6g')}: a benchmark figure is never negative"
    return None


def report_identity(data: Mapping[str, Any]) -> tuple[str | None, str]:
    """(the report's own id if it carries one, a digest of its content); either equal means the same report."""
    own = next((data[k] for k in ("report_id", "id", "run_id") if isinstance(data.get(k), str) and data[k]), None)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return own, hashlib.sha256(canonical.encode("utf-8")).hexdigest()
