"""The advice as codes: its headline and its next steps, each a code with the names and figures it needs."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from advisor.scoring.migration import PairEstimate
from advisor.scoring.result import FrozenResult
from advisor.scoring.sensitivity import AdviceChange

#: A parameter: a name, a figure, or a list of them (names of frameworks and criteria are data, not sentences).
StepParam = str | int | float | bool | list[str] | list[float]


class HeadlineCode(StrEnum):
    """What the advice concludes."""

    NONE = "none"  # nothing meets the hard constraints
    STAY = "stay"  # params: name, first, lead (the winner's lead does not pay for the move)
    TIE = "tie"  # params: name, others, gap, incumbent
    BEST = "best"  # params: name, total, clear; runner_up and gap where there is one


class StepCode(StrEnum):
    """A next step's kind; its words are written from the code and `params` by `advisor.scoring.advice_words`."""

    RELAX = "relax"  # no framework is left: relax a constraint
    TIE_CRITERIA = "tie_criteria"  # params: name, criteria, diffs (the criteria where the tied pair differ most)
    PROTOTYPE = "prototype"  # params: name, rival
    MULTI_BACKEND = "multi_backend"  # params: name, single, total
    BREAK_EVEN = "break_even"  # the recommendation's break_even, in words
    STAY = "stay"  # params: name
    SETTLE = "settle"  # params: name, others (the team's other frameworks, to be ported)
    FORCED_MOVE = "forced_move"  # params: current, target; effort, share and horizon where costed
    PLAN_MIGRATION = "plan_migration"  # params: source, target, cost, tools
    ROUTE = "route"  # `route`: a cheaper route of the move
    INSTALL = "install"  # params: name; the recommendation's install lines
    RUN_BENCH = "run_bench"  # installed here but not benchmarked
    BUSY = "busy"  # the benchmarks ran on a busy machine and are not used
    GPU_FLOOR = "gpu_floor"  # params: a FloorFinding's (advisor.scoring.fleet.floor_words)
    SERVING_GAP = "serving_gap"  # params: stack, name
    CHECK_WEIGHTS = "check_weights"  # `change` with params framework and criterion (their names)
    CHECKLIST = "checklist"  # params: name


class Headline(FrozenResult):
    """The advice's conclusion as a code and its parameters."""

    code: HeadlineCode
    params: dict[str, StepParam] = Field(default_factory=dict)


class Step(FrozenResult):
    """One next step: a code, its parameters, and the structured finding it states where it has one."""

    code: StepCode
    params: dict[str, StepParam] = Field(default_factory=dict)
    route: PairEstimate | None = Field(default=None, description="the route a `route` step states")
    change: AdviceChange | None = Field(default=None, description="the weight a `check_weights` step names")
