"""Reading a saved probe or bench section back into its model: what a field the file lacks becomes.

A saved report may come from an older advisor or be written by hand (tests, `team merge` inputs), so a
field it lacks is read as unknown rather than refused: None where the model allows it, "unknown" for text.
A field of the wrong type is still refused (the caller turns that into one line naming the field).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

#: What a required field the saved file lacks becomes, by its annotation.
_UNKNOWN: dict[str, Any] = {"str": "unknown", "bool": False}


def known_fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """`data`'s entries that are fields of the dataclass `cls`, plus an unknown value for each required one it lacks."""
    if not isinstance(data, Mapping):
        raise TypeError(f"expected an object, found {type(data).__name__}")
    names = {f.name: f for f in dataclasses.fields(cls)}
    out = {k: v for k, v in data.items() if k in names}
    for name, f in names.items():
        if name in out or f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            continue
        out[name] = _UNKNOWN.get(str(f.type))
    return out
