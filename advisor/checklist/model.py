"""The checklist as data (frozen pydantic dataclasses; JSON generated from them) and as Markdown (task lists)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, TypeAdapter, computed_field, field_serializer
from pydantic.dataclasses import dataclass

from advisor.checklist.machine import MachineSummary, machine_line
from advisor.knowledge.base import PackInfo
from advisor.knowledge.schema import Hardware

SCHEMA = "fwadvisor.checklist/1"

#: Section ids and titles, in the order a newcomer works through them.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("install", "Install"),
    ("verify", "Verify"),
    ("concepts", "Concepts to unlearn and learn"),
    ("pitfalls", "Pitfalls"),
    ("tooling", "Tooling"),
    ("first_tasks", "First tasks"),
)


@dataclass(frozen=True)
class ChecklistLink:
    """A link shown under an item."""

    name: str
    url: str
    purpose: str | None = None


@dataclass(frozen=True)
class Item:
    """One thing to do; `id` is derived from content and stays the same across regenerations."""

    id: str
    title: str
    detail: str = ""
    code: str | None = None
    code_lang: str = ""
    done_when: str | None = None
    links: tuple[ChecklistLink, ...] = ()
    warning: bool = False
    done: bool = False

    @field_serializer("code_lang")
    def _no_lang(self, value: str) -> str | None:
        return value or None


@dataclass(frozen=True)
class Section:
    """A titled group of items."""

    id: str
    title: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Need:
    """Something this machine must change before the framework runs as chosen (team mode lists these)."""

    kind: Literal["driver", "python"]
    detail: str


@dataclass(frozen=True)
class KnowledgeStamp:
    """The knowledge base a checklist was written from."""

    name: str
    version: str
    packs: tuple[PackInfo, ...]


@dataclass(frozen=True)
class Progress:
    """How many items are ticked, of how many."""

    done: int
    total: int


@dataclass(frozen=True)
class Checklist:
    """The onboarding checklist for one framework, one machine and (optionally) one former framework.

    Its JSON (`checklist_document`, schema `fwadvisor.checklist/1`) is generated from these fields.
    """

    framework: str
    framework_name: str
    from_framework: Annotated[str | None, Field(serialization_alias="from")]
    from_name: str | None
    targets: tuple[str, ...]
    backend: Hardware
    machine: MachineSummary
    sections: tuple[Section, ...]
    knowledge: KnowledgeStamp
    needs: tuple[Need, ...] = ()
    warnings: tuple[str, ...] = ()
    stale_done: tuple[str, ...] = ()  # ticked ids that no longer exist in this checklist

    @computed_field  # type: ignore[prop-decorator]
    @property
    def schema(self) -> Literal["fwadvisor.checklist/1"]:
        """The document's schema id."""
        return "fwadvisor.checklist/1"

    @property
    def items(self) -> tuple[Item, ...]:
        """All items in order."""
        return tuple(item for section in self.sections for item in section.items)

    @property
    def ids(self) -> tuple[str, ...]:
        """All item ids in order."""
        return tuple(item.id for item in self.items)

    def item(self, item_id: str) -> Item | None:
        """The item with this id, or None."""
        return next((i for i in self.items if i.id == item_id), None)

    def with_done(self, done: Collection[str]) -> Checklist:
        """A copy with the items in `done` ticked (and the rest unticked); unknown ids become `stale_done`."""
        ids = set(self.ids)
        sections = tuple(replace(s, items=tuple(replace(i, done=i.id in done) for i in s.items)) for s in self.sections)
        stale = tuple(sorted(d for d in done if d not in ids))
        return replace(self, sections=sections, stale_done=stale)

    @property
    def progress(self) -> tuple[int, int]:
        """(done, total) over all items."""
        items = self.items
        return sum(1 for i in items if i.done), len(items)

    @computed_field(alias="progress")  # type: ignore[prop-decorator]
    @property
    def tally(self) -> Progress:
        """`progress` as the JSON shows it."""
        return Progress(*self.progress)

    def command(self) -> str:
        """The `fwadvisor checklist` invocation that regenerates this checklist (shown with the tick hint)."""
        parts = ["fwadvisor", "checklist", "--framework", self.framework]
        if self.from_framework:
            parts += ["--from", self.from_framework]
        for target in self.targets:
            parts += ["--target", target]
        return " ".join(parts)

    def to_markdown(self, level: int = 1, subject: str | None = None) -> str:
        """Markdown with GitHub task lists; `level` is the heading level of the title, `subject` (team mode: the
        machine) leads it."""
        h = "#" * level
        title = f"{subject + ': ' if subject else ''}{self.framework_name} onboarding checklist"
        if self.from_name:
            title += f" (coming from {self.from_name})"
        lines = [f"{h} {title}", ""]
        lines.append(f"Machine: {machine_line(self.machine)}.  ")
        lines.append(f"Knowledge base: {self.knowledge.name} {self.knowledge.version}.")
        done, total = self.progress
        lines += [
            "",
            f"Progress: {done}/{total} done. Tick an item with `{self.command()} --done ID` "
            "(the id is shown after each item).",
            "",
        ]
        for warning in self.warnings:
            # One quote block per warning: consecutive `>` lines would merge into one paragraph.
            lines += [f"> **Warning:** {warning}", ""]
        for section in self.sections:
            lines += [f"{h}# {section.title}", ""]
            if not section.items:
                lines += ["_Nothing known for this section._", ""]
            for item in section.items:
                lines += item_markdown(item)
            lines.append("")
        if self.stale_done:
            lines.append(
                "Ticked earlier but no longer in this checklist (kept in the progress file): "
                + ", ".join(f"`{s}`" for s in self.stale_done)
            )
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"


def item_markdown(item: Item) -> list[str]:
    """One item as GitHub task-list lines (its id after the title; detail, code and links indented under it)."""
    box = "[x]" if item.done else "[ ]"
    mark = "**Warning:** " if item.warning else ""
    pad = "  "
    blocks: list[tuple[str, str]] = [("text", f"- {box} {mark}**{item.title}** `{item.id}`")]
    for line in item.detail.splitlines():
        if line.strip():
            blocks.append(("bullet" if line.lstrip().startswith("- ") else "text", line))
    if item.code:
        # A fence longer than any backtick run inside the code keeps the block intact.
        fence = "```" + "`" * max((len(m) for m in re.findall(r"`+", item.code)), default=0)
        blocks.append(("code", "\n".join([f"{fence}{item.code_lang}", *item.code.splitlines(), fence])))
    if item.done_when:
        blocks.append(("text", f"Done when: {item.done_when}"))
    if item.links:
        blocks.append(("text", "Links: " + ", ".join(_md_link(link) for link in item.links)))
    out: list[str] = []
    for i, (kind, text) in enumerate(blocks):
        following = blocks[i + 1][0] if i + 1 < len(blocks) else None
        if kind == "text" and following == "text":
            text += "  "  # a hard line break: each fact on its own line, rendered or raw
        if i == 0:
            out.append(text)
        else:
            out += [pad + line if line else "" for line in text.split("\n")]
        if kind == "bullet" and following == "text":
            out.append("")  # ends the sub-list; otherwise the next line would continue its last bullet
    return out


def _md_link(link: ChecklistLink) -> str:
    # Purposes stay in the JSON; in Markdown they would drown the links (the detail says what matters).
    return f"[{link.name}]({link.url})"


def _links(entries: Iterable[Any]) -> tuple[ChecklistLink, ...]:
    return tuple(ChecklistLink(str(e.name), str(e.url), getattr(e, "purpose", None)) for e in entries)


def _sources(urls: Iterable[Any], name: str = "source") -> tuple[ChecklistLink, ...]:
    # Named by host ("docs.jax.dev") or by package (a Package URL, "pkg:pypi/jax"): a row of identical
    # "source" links says nothing.
    out = []
    for text in dict.fromkeys(str(url) for url in urls):  # one link per source, however many quotes it gives
        label = text.split("@")[0] if text.startswith("pkg:") else (urlsplit(text).hostname or "").removeprefix("www.")
        out.append(ChecklistLink(label or name, text, name))
    return tuple(out)


_CHECKLIST: TypeAdapter[Checklist] = TypeAdapter(Checklist)


def checklist_document(checklist: Checklist) -> dict[str, Any]:
    """The JSON document of `checklist` (`fwadvisor.checklist/1`), generated from the model."""
    data: dict[str, Any] = _CHECKLIST.dump_python(checklist, mode="json", by_alias=True)
    return data


def checklist_schema() -> dict[str, Any]:
    """The JSON Schema of `checklist_document`'s output, generated from the model."""
    schema = _CHECKLIST.json_schema(mode="serialization", by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA, **schema}
