"""The advice in words, written once from its codes: the headline and each next step, for every edge."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from advisor.scoring.decision import BreakEven
from advisor.scoring.decision_words import break_even_statement
from advisor.scoring.fleet import floor_words
from advisor.scoring.install_advice import InstallStep, install_sentence
from advisor.scoring.migration import route_sentence
from advisor.scoring.sensitivity import advice_change_sentence
from advisor.scoring.steps import Headline, HeadlineCode, Step, StepCode, StepParam

Params = Mapping[str, StepParam]
_FOR = {"profile": "for this profile", "team": "for this team"}


def _num(value: StepParam | object) -> float:
    assert isinstance(value, int | float), value  # the codes' figures are numbers by construction
    return float(value)


def _names(value: StepParam) -> str:
    return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)


def headline_words(headline: Headline, audience: str) -> str:
    """The advice's conclusion in one sentence; `audience` is "profile" (a report) or "team" (team decide)."""
    p, whom = headline.params, _FOR.get(audience, _FOR["profile"])
    if headline.code is HeadlineCode.NONE:
        return "No framework meets every hard constraint; see the exclusions."
    if headline.code is HeadlineCode.STAY:
        return (
            f"Stay with {p['name']}: {p['first']} ranks first by {_num(p['lead']):.2f} points, "
            "which does not pay for the move."
        )
    if headline.code is HeadlineCode.TIE:
        tail = (
            f"staying with {p['name']}, the team's framework, is the default."
            if p.get("incumbent")
            else "either is a sound choice."
        )
        return (
            f"{p['name']} and {_names(p['others'])} are a statistical tie {whom} "
            f"(lead {_num(p['gap']):.2f} of 5); " + tail
        )
    how = "clearly" if p.get("clear") else "probably"
    text = f"{p['name']} is {how} the best fit {whom} ({_num(p['total']):.2f} of 5"
    if "runner_up" in p:
        return text + f", ahead of {p['runner_up']} by {_num(p['gap']):.2f})."
    return text + ")."


def _tie_criteria(p: Params) -> str:
    crits, diffs = p["criteria"], p["diffs"]
    assert isinstance(crits, list) and isinstance(diffs, list)
    parts = [
        f"{c} ({'+' if _num(d) >= 0 else '-'}{abs(_num(d)):.2f} for {p['name']})"
        for c, d in zip(crits, diffs, strict=True)
    ]
    return "Decide on the criteria where they differ most: " + ", ".join(parts) + "."


def _forced_move(p: Params) -> str:
    text = (
        f"The team's current framework ({_names(p['current'])}) fails a hard constraint (see the exclusions): "
        "a move is required."
    )
    if "effort" in p:
        effort, share = p["effort"], p["share"]
        assert isinstance(effort, list) and isinstance(share, list)
        text += (
            f" Moving to {p['target']} costs an estimated {_num(effort[0]):.0f}-{_num(effort[1]):.0f} "
            f"engineer-months ({100 * _num(share[0]):.0f}-{100 * _num(share[1]):.0f}% of the team's "
            f"capacity over {_num(p['horizon']):g} months)."
        )
    return text


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


_WORDS: dict[StepCode, Callable[[Params], str]] = {
    StepCode.RELAX: lambda p: "Relax a constraint (must_run_on, must_deploy_to, licenses) or add an overlay pack.",
    StepCode.TIE_CRITERIA: _tie_criteria,
    StepCode.PROTOTYPE: lambda p: (
        f"Prototype one representative model in both {p['name']} and {p['rival']} before committing."
    ),
    StepCode.MULTI_BACKEND: lambda p: (
        f"{p['name']} is a multi-backend layer: it runs on another framework. Choose its "
        f"backend too; the highest-ranked single framework here is {p['single']} ({_num(p['total']):.2f})."
    ),
    StepCode.STAY: lambda p: f"Stay with {p['name']}: the team already uses it, so there is no migration cost.",
    StepCode.SETTLE: lambda p: (
        f"Settle on {p['name']}, which the team already uses: its code in {_names(p['others'])} "
        "is to be ported (the migration criterion counts that cost)."
    ),
    StepCode.FORCED_MOVE: _forced_move,
    StepCode.PLAN_MIGRATION: lambda p: (
        f"Plan the migration {p['source']} -> {p['target']} ({p['cost']} cost); tools: "
        f"{_names(p['tools']) or 'no dedicated tools'}."
    ),
    StepCode.RUN_BENCH: lambda p: (
        "Run `fwadvisor report` without --no-bench to blend measured performance into the ranking."
    ),
    StepCode.BUSY: lambda p: (
        "The benchmarks ran on a busy machine and are not used: run `fwadvisor report` again "
        "when it is quiet to blend measured performance in."
    ),
    StepCode.GPU_FLOOR: lambda p: _sentence(floor_words(p)),
    StepCode.SERVING_GAP: lambda p: _sentence(
        f"the team's serving stack {p['stack']} does not take {p['name']} "
        "models natively: a move also means replacing or bridging it"
    ),
    StepCode.CHECKLIST: lambda p: f"Run `fwadvisor checklist` for the onboarding checklist for {p['name']}.",
}


def step_words(step: Step, break_even: BreakEven | None, install: Sequence[InstallStep]) -> str:
    """One next step in words; `break_even` and `install` are the recommendation's, which two steps state."""
    p = step.params
    if step.code is StepCode.BREAK_EVEN:
        return break_even_statement(break_even) if break_even is not None else ""
    if step.code is StepCode.ROUTE:
        r = step.route.route if step.route is not None else None
        names = (
            {}
            if step.route is None or r is None
            else {step.route.source: str(p["source"]), r.through: str(p["through"]), r.backend: str(p["backend"])}
        )
        text = route_sentence(names, step.route) if step.route is not None else None
        return _sentence(text) if text else ""
    if step.code is StepCode.INSTALL:
        return install_sentence(str(p["name"]), install) or ""
    if step.code is StepCode.CHECK_WEIGHTS:
        assert step.change is not None
        names = {step.change.framework: str(p["framework"]), step.change.criterion: str(p["criterion"])}
        return "Check the weights: " + advice_change_sentence(step.change, names)
    return _WORDS[step.code](p)
