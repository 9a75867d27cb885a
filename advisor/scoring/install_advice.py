"""Which install line to give: for this machine and for the team's hardware, typed; the sentence is made once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import Field

from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Hardware, Support
from advisor.scoring.result import FrozenResult

#: Where an install line is for: this machine (what the probe found) or the team's hardware (`must_run_on`, fleet).
Where = Literal["here", "team"]


class InstallStep(FrozenResult):
    """One install line of the advice, and whom it is for."""

    where: Where = Field(description="this machine, or the team's hardware (must_run_on, fleet)")
    hardware: Hardware
    line: str = Field(description="the install line; empty where the knowledge base knows none for that hardware")
    from_knowledge: bool = Field(description="false: the package name alone, no line known for that backend")
    status: Support


def _install(where: Where, hw: Hardware, line: str, from_knowledge: bool, status: Support) -> InstallStep:
    return InstallStep(where=where, hardware=hw, line=line, from_knowledge=from_knowledge, status=status)


def _step(kb: KnowledgeBase, fid: str, hw: Hardware, where: Where) -> InstallStep | None:
    fw = kb.frameworks[fid]
    entry = fw.hardware.get(hw)
    status = entry.status if entry is not None else Support.UNKNOWN
    if entry is not None and entry.install and status is not Support.NONE:
        return _install(where, hw, entry.install, True, status)
    if hw is Hardware.CPU and fw.distributions:
        return _install(where, hw, f"pip install {fw.distributions[0]}", False, status)
    return None


def install_steps(
    kb: KnowledgeBase, fid: str, present: Mapping[Hardware, str], team: Sequence[Hardware] = ()
) -> list[InstallStep]:
    """The line for this machine's best backend, and, where it differs, the one for the team's first accelerator.

    The team's hardware comes first in the list when this machine lacks it: that is where the code will run.
    """
    here_hw = [h for h in present if h is not Hardware.CPU]
    here = next((s for hw in [*here_hw, Hardware.CPU] if (s := _step(kb, fid, hw, "here"))), None)
    team_hw = [hw for hw in dict.fromkeys(team) if hw is not Hardware.CPU]
    if not team_hw or (here is not None and here.hardware in team_hw):
        return [here] if here else []
    wanted = next((hw for hw in team_hw if hw not in present), team_hw[0])
    entry = kb.frameworks[fid].hardware.get(wanted)
    status = entry.status if entry is not None else Support.UNKNOWN
    theirs = _step(kb, fid, wanted, "team") or _install(
        "team", wanted, "", False, status
    )  # no line known: said in words, never a CPU line in its place
    return [theirs, *([here] if here else [])]


def install_sentence(name: str, steps: Sequence[InstallStep]) -> str | None:
    """The next step in words: one line, or the team's line and this machine's where they differ."""
    if not steps:
        return None

    def line(step: InstallStep) -> str:
        if not step.line:
            return f"no install line is known for this route (status: {step.status.value}): see `fwadvisor kb show`"
        return f"`{step.line}`" + ("" if step.from_knowledge else " (package name only; check the sources)")

    if len(steps) == 1:
        (only,) = steps
        where = "your team's hardware, " if only.where == "team" else ""
        return f"Install {name} for {where}{only.hardware.value}: {line(only)}."
    team = next(s for s in steps if s.where == "team")
    here = next(s for s in steps if s.where == "here")
    return (
        f"Install {name} - your team's hardware ({team.hardware.value}): {line(team)}; "
        f"this machine ({here.hardware.value}): {line(here)}."
    )
