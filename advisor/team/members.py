"""The members of a team decision: each one's profile file read and resolved; a bad file is left out, named."""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from advisor.errors import AdvisorError
from advisor.knowledge.base import KnowledgeBase
from advisor.profile import Profile, ResolvedProfile, load_profile, profile_to_json, resolve_profile


@dataclass(frozen=True)
class Member:
    """One member: who, from which file, and their profile resolved against the knowledge base."""

    label: str
    path: str
    resolved: ResolvedProfile

    @property
    def kind(self) -> str:
        """How this member weighs the criteria: "pairwise" (AHP judgements) or "weights" (direct or a preset)."""
        return "pairwise" if self.resolved.ahp is not None else "weights"

    @property
    def weights(self) -> dict[str, float]:
        """Normalised weights, every criterion present."""
        return self.resolved.normalized_weights

    @property
    def judgements(self) -> list[tuple[str, str, float]]:
        """The member's pairwise judgements (empty for a weights member)."""
        return [(a, b, float(x)) for a, b, x in self.resolved.profile.pairwise or []]


class LeftOutCode(StrEnum):
    """Why a member file is left out, so programs decide on the code; the words are written at the edge."""

    INVALID = "invalid"  # params: line (0: none), field, detail (the loader's own one-line error)
    SAME_FILE = "same_file"  # params: first (the same file, or the same member's identical profile, came first)
    SAME_MEMBER = "same_member"  # params: member, first (another file names the same `member:`; the first counts)


@dataclass(frozen=True)
class LeftOut:
    """A member file that could not be used, and why (a code and its parameters)."""

    path: str
    code: LeftOutCode
    params: dict[str, str | int] = field(default_factory=dict)


def clean_label(text: str) -> str:
    """A label safe for one line of Markdown or a terminal: control characters dropped, spaces collapsed."""
    kept = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(kept.split()) or "member"


def escaped(text: str) -> str:
    """`text` with control characters written as escapes (a file name echoed into a line or Markdown)."""
    return "".join(ch if unicodedata.category(ch)[0] != "C" else ascii(ch)[1:-1] for ch in text)


def label_of(profile: Profile, path: str | Path) -> str:
    """The profile's own `member` name, else the file name without its extension."""
    return clean_label(profile.member if profile.member else Path(path).stem)


#: A pairwise judgement beyond this ratio (either way) is on no judgement scale (Saaty's runs 1/9 to 9).
MAX_JUDGEMENT = 1e6


def check_numbers(profile: Profile, resolved: ResolvedProfile) -> None:
    """`ProfileError` (file, line, field) for weights or judgements that are infinite, overflow, or absurd."""
    for cid, w in (profile.weights or {}).items():
        if not math.isfinite(w):
            raise profile.fail(("weights", cid), "a weight must be a finite number")
    for i, (_a, _b, x) in enumerate(profile.pairwise or []):
        if not math.isfinite(x) or not 1 / MAX_JUDGEMENT <= x <= MAX_JUDGEMENT:
            raise profile.fail(
                ("pairwise", i, 2), f"a judgement must lie between 1/{MAX_JUDGEMENT:g} and {MAX_JUDGEMENT:g}"
            )
    try:
        total = math.fsum(resolved.weights.values())
    except OverflowError:
        total = math.inf
    if not math.isfinite(total) or not total > 0:
        raise profile.fail(("weights",), "the weights add up to more than a float holds: use smaller numbers")


def _real(path: str | Path) -> str:
    try:
        return "path:" + str(Path(path).resolve())
    except (OSError, RuntimeError):  # a symlink loop: not the same as any other file
        return f"path:{path}"


def load_members(kb: KnowledgeBase, paths: Sequence[str | Path]) -> tuple[list[Member], list[LeftOut]]:
    """Read and resolve every member file; a file that fails is returned as `LeftOut`, never raised."""
    members: list[Member] = []
    left_out: list[LeftOut] = []
    labels: Counter[str] = Counter()
    seen: dict[str, str] = {}  # real path, or label + profile content -> the first file that had it
    for raw in paths:
        path = escaped(str(raw))
        try:
            profile = load_profile(raw)
            resolved = resolve_profile(profile, kb)
            check_numbers(profile, resolved)
        except AdvisorError as exc:
            # The file is named once, by LeftOut; the parameters keep the line and field.
            left_out.append(LeftOut(path, LeftOutCode.INVALID, {
                "line": exc.line or 0, "field": clean_label(exc.field) if exc.field else "",
                "detail": clean_label(exc.message),
            }))
            continue
        label = label_of(profile, path)
        # One person, one say: the same file twice, or the same member's identical profile, counts once.
        keys = (_real(raw), json.dumps([label, profile_to_json(profile)], sort_keys=True, default=str))
        first = next((seen[k] for k in keys if k in seen), None)
        if first is not None:
            left_out.append(LeftOut(path, LeftOutCode.SAME_FILE, {"first": first}))
            continue
        # Near-identical profiles under one `member:` name are still one person: six of them flipped the answer.
        person = f"member:{' '.join(profile.member.split()).casefold()}" if profile.member else None
        if person is not None and person in seen:
            left_out.append(LeftOut(path, LeftOutCode.SAME_MEMBER, {"member": label, "first": seen[person]}))
            continue
        if person is not None:
            seen[person] = path
        seen.update({k: path for k in keys})
        labels[label] += 1
        if labels[label] > 1:
            label = f"{label} ({labels[label]})"
        members.append(Member(label, path, resolved))
    return members, left_out
