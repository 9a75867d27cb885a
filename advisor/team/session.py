"""One call for the shells: member files -> team decision document and its Markdown (the CLI and the TUI share it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import ProfileError
from advisor.knowledge.base import KnowledgeBase
from advisor.team.decide import decide
from advisor.team.decision_doc import to_document
from advisor.team.decision_markdown import to_markdown_decision
from advisor.team.decision_schema import TeamDecisionDoc
from advisor.team.members import LeftOut, Member, load_members
from advisor.team.progress import OnProgress

if TYPE_CHECKING:
    from advisor.evidence.bench.results import BenchReport
    from advisor.evidence.probe import ProbeReport


@dataclass(frozen=True)
class DecisionOutput:
    """The team decision as its typed document and as Markdown, and the member files left out."""

    document: TeamDecisionDoc
    markdown: str
    left_out: tuple[LeftOut, ...]


def no_members_error(count: int) -> ProfileError:
    """The one error when not one member file could be used."""
    return ProfileError(f"no usable member profile among {count} file(s); see the line for each", field="profiles")


def decide_members(
    kb: KnowledgeBase,
    members: Sequence[Member],
    left_out: Sequence[LeftOut],
    *,
    probe: ProbeReport | None,
    bench: BenchReport | None,
    evidence: str,
    seed: int = 0,
    on_progress: OnProgress | None = None,
) -> DecisionOutput:
    """Decide for already-loaded members and render the result."""
    decision = decide(kb, members, left_out=left_out, probe=probe, bench=bench, seed=seed, on_progress=on_progress)
    doc = to_document(decision, kb, probe=probe, bench=bench, evidence=evidence)
    return DecisionOutput(doc, to_markdown_decision(doc), tuple(left_out))


def decide_files(
    kb: KnowledgeBase,
    paths: Sequence[str | Path],
    *,
    probe: ProbeReport | None,
    bench: BenchReport | None,
    evidence: str,
    seed: int = 0,
) -> DecisionOutput:
    """Read the member files (bad ones left out, named) and decide; `ProfileError` only if none is usable."""
    members, left_out = load_members(kb, paths)
    if not members:
        raise no_members_error(len(paths))
    return decide_members(kb, members, left_out, probe=probe, bench=bench, evidence=evidence, seed=seed)
