"""The words of a finding that replaced or capped a knowledge score, for the evidence text and the ranking notes."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from advisor.scoring.result import Param

Params = Mapping[str, Param]


def _on_hardware(p: Params) -> str:
    breadth = " (breadth beyond it counts as portability in governance and vendor risk)" if p.get("breadth") else ""
    return (f"{p['name']} on the team's hardware ({p['parts']}) used in place of the general "
            f"{float(p['general']):.1f}{breadth}")


def _cap(p: Params) -> str:
    return f"capped at {float(p['cap']):.2f}: reaches the team's hardware through {p['routes']}"


def _domains(p: Params) -> str:
    return f"ecosystem for the team's domains ({p['domains']}) used in place of the general {float(p['general']):.1f}"


def _portability(p: Params) -> str:
    return (f"portability beyond the team's vendors ({p['vendors']}): {float(p['score']):.2f} ({p['reach']}); "
            "the mean of stewardship and portability")


#: By note code (`advisor.scoring.explain.NoteCode`'s value): the finding's words from its params.
FINDING_WORDS: dict[str, Callable[[Params], str]] = {
    "on_team_hardware": _on_hardware,
    "hardware_cap": _cap,
    "domains": _domains,
    "portability": _portability,
}


def finding_words(code: str, params: Params) -> str:
    """The finding's words; a report written before these notes had params of their own kept them as `detail`."""
    if "detail" in params:
        return str(params["detail"])
    return FINDING_WORDS[code](params)
