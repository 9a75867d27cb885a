"""Safe YAML loading that keeps line numbers, rejects duplicate keys and refuses aliases.

Built on PyYAML's safe loader (the C `CSafeLoader` where libyaml is present, ~10x faster; the
pure-Python `SafeLoader` otherwise): no arbitrary objects are ever constructed. Mappings come back
as `LineDict` and sequences as `LineList`, which remember the line of each key or item so that a
schema error deep inside a file can still be reported as `file:line: field.path: message`.
Aliases are refused outright (the knowledge base never needs them): the composer keeps an alias
as a second reference to the same node, and construction stops at the first node met twice, so a
"billion laughs" file fails at its first alias instead of exhausting memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, SequenceNode

from advisor.errors import AdvisorError
from advisor.inputs import read_input_text
from advisor.limits import MAX_YAML_BYTES

MAX_FILE_BYTES = MAX_YAML_BYTES


class LineDict(dict[str, Any]):
    """A mapping that knows the 1-based line of itself and of each of its keys."""

    line: int = 0
    key_lines: dict[Any, int]


class LineList(list[Any]):
    """A sequence that knows the 1-based line of itself and of each item."""

    line: int = 0
    item_lines: list[int]


_Base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LineLoader(_Base):  # type: ignore[misc, valid-type]
    """Safe loader that records lines, refuses duplicate keys and aliases."""

    def _refuse_alias(self, node: Any, line: int) -> None:
        # An alias is the same node object met a second time; `line` is where the reference sits.
        if node in self.constructed_objects or node in self.recursive_objects:
            raise _YamlProblem("aliases (*name) are not allowed", line)

    def construct_object(self, node: Any, deep: bool = False) -> Any:  # noqa: D102 - PyYAML hook
        self._refuse_alias(node, node.start_mark.line + 1)
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:
            # A scalar that looks like a date but is none (2026-13-45), or another value PyYAML cannot build.
            what = "date" if str(node.tag).endswith(":timestamp") else "value"
            problem = _YamlProblem(f"invalid {what} {node.value!r} ({exc})", node.start_mark.line + 1)
            problem.field = ""  # a value error is named by its field path, filled in on the way out
            raise problem from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> LineDict:  # type: ignore[override]
        if not isinstance(node, MappingNode):  # pragma: no cover - PyYAML guarantees it
            raise _YamlProblem("expected a mapping", node.start_mark.line + 1)
        self.flatten_mapping(node)
        result = LineDict()
        result.line = node.start_mark.line + 1
        result.key_lines = {}
        for key_node, value_node in node.value:
            self._refuse_alias(value_node, key_node.start_mark.line + 1)
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise _YamlProblem("a mapping key must be a plain value", key_node.start_mark.line + 1) from None
            if key in result:
                raise _YamlProblem(
                    f"duplicate key {key!r} (first on line {result.key_lines[key]})",
                    key_node.start_mark.line + 1,
                )
            try:
                result[key] = self.construct_object(value_node, deep=True)
            except _YamlProblem as exc:
                if exc.field is not None:
                    exc.field = _join(key, exc.field)
                raise
            result.key_lines[key] = key_node.start_mark.line + 1
        return result

    def construct_sequence(self, node: SequenceNode, deep: bool = False) -> LineList:  # type: ignore[override]
        for child in node.value:
            self._refuse_alias(child, node.start_mark.line + 1)
        result = LineList()
        for i, child in enumerate(node.value):
            try:
                result.append(self.construct_object(child, deep=True))
            except _YamlProblem as exc:
                if exc.field is not None:
                    exc.field = _join(i, exc.field)
                raise
        result.line = node.start_mark.line + 1
        result.item_lines = [child.start_mark.line + 1 for child in node.value]
        return result


def _construct_map(loader: _LineLoader, node: MappingNode) -> LineDict:
    return loader.construct_mapping(node, deep=True)


def _construct_seq(loader: _LineLoader, node: SequenceNode) -> LineList:
    return loader.construct_sequence(node, deep=True)


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)


class _YamlProblem(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.field: str | None = None


def _join(part: Any, inner: str) -> str:
    head = f"[{part}]" if isinstance(part, int) else str(part)
    if not inner:
        return head
    return f"{head}{inner}" if inner.startswith("[") else f"{head}.{inner}"


def load_yaml_text(text: str, source: str | Path, error: type[AdvisorError] = AdvisorError) -> Any:
    """Parse one YAML document; any problem becomes `error(file, line, message)`."""
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - _LineLoader is a SafeLoader subclass
    except _YamlProblem as exc:
        raise error(exc.message, file=source, line=exc.line, field=exc.field or None) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        raise error(f"YAML syntax error: {what}", file=source, line=line) from None
    except yaml.YAMLError as exc:
        raise error(f"YAML error: {exc}", file=source) from None
    except RecursionError:
        raise error("YAML nesting is too deep", file=source) from None


def load_yaml_file(path: Path, error: type[AdvisorError] = AdvisorError) -> Any:
    """Read and parse a YAML file: regular files only (a FIFO would hang), at most MAX_FILE_BYTES, UTF-8."""
    return load_yaml_text(read_input_text(path, error, limit=MAX_FILE_BYTES), path, error)


def line_of(data: Any, loc: Sequence[str | int]) -> int | None:
    """The line of the deepest element of `loc` that `data` still knows about."""
    line: int | None = getattr(data, "line", None)
    node = data
    for part in loc:
        if isinstance(node, LineDict) and part in node:
            line = node.key_lines.get(part, line)
            node = node[part]  # type: ignore[index]
        elif isinstance(node, LineList) and isinstance(part, int) and 0 <= part < len(node):
            line = node.item_lines[part]
            node = node[part]
        else:
            break
        inner = getattr(node, "line", None)
        if inner and not isinstance(node, LineDict | LineList):
            line = inner
    return line


def to_plain(data: Any) -> Any:
    """Strip line bookkeeping: LineDict/LineList to dict/list, recursively."""
    if isinstance(data, dict):
        return {k: to_plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [to_plain(v) for v in data]
    return data
