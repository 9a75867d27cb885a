"""Evidence from the team's own setup: the serving stack it runs (deployment) and the code it would move (migration).

* **serving**: 5 for a current framework whose models the team's serving stack takes natively (a route
  proven in its production), blended with weight `SERVING_WEIGHT`, as a device the framework's own probe
  used counts in hardware fit; nothing for other frameworks.
* **migration**: replaces the knowledge score with the cost of the move in engineer-months, as a share of
  the team's capacity (`advisor.scoring.migration`).
"""

from __future__ import annotations

from advisor.knowledge.base import KnowledgeBase
from advisor.profile import Profile
from advisor.scoring.evidence import Measured

#: Weight of "the team serves this framework's models in production today" in the deployment score.
SERVING_WEIGHT = 0.5


def migration_evidence(kb: KnowledgeBase, framework: str, profile: Profile) -> tuple[Measured, list[tuple[str, str]]]:
    """Migration cost from the team's current framework(s) to `framework`, as a 0-5 score (5 = none).

    The cost model (engineer-months from kLOC, difficulty and experience) is in `advisor.scoring.migration`.
    The notes are (source framework, sentence), one per current framework without a migration entry.
    """
    from advisor.scoring.migration import move_cost

    current = list(profile.team.current)
    if current == [framework]:
        figures = [{"from": framework, "to": framework}]
        return Measured(5.0, 1.0, "the team already uses it: no migration", figures, "profile"), []
    if not current:
        # No code and no habits to move: every framework is at the scale's "no migration needed". The
        # framework's general ease of adoption is the learning-curve criterion's, not counted twice.
        return Measured(5.0, 1.0, "greenfield: no code to move", [], "profile"), []
    cost = move_cost(kb, framework, profile)
    assert cost is not None  # a current framework exists and the team has code outside `framework`
    notes = [(src, f"no migration entry {src} -> {framework} in the knowledge base") for src in cost.missing]
    if not cost.pairs:
        return Measured(None, 0.0, "no migration entry for the team's framework(s): knowledge only"), notes
    lo, hi = cost.effort
    who = f"{cost.team_size} engineer{'s' if cost.team_size != 1 else ''}" + (
        " (assumed)" if cost.team_size_assumed else ""
    )
    summary = ("consolidating on it: " if framework in current else "") + (
        "; ".join(f"{p.source} -> {p.target}: {p.cost} difficulty, {_kloc_text(p.kloc)} kLOC" for p in cost.pairs)
        + f": {lo:.0f}-{hi:.0f} engineer-months, {100 * cost.share[0]:.0f}-{100 * cost.share[1]:.0f}% of "
        f"{who} over {cost.horizon_months:g} months"
    )
    figures = [p.model_dump(mode="json") for p in cost.pairs]
    return Measured(cost.score, 1.0, summary, figures, "profile"), notes


def serving_evidence(kb: KnowledgeBase, framework: str, profile: Profile) -> Measured:
    """5 when the team's current serving stack takes `framework`'s models natively (a route proven in production)."""
    stacks = [kb.serving[s] for s in profile.serving if s in kb.serving]
    if not stacks:
        return Measured(None, 0.0, "no serving stack in the profile: knowledge only")
    serving = [st.name for st in stacks if framework in st.frameworks]
    if serving and framework not in profile.team.current:
        return Measured(None, 0.0, f"the team's {', '.join(serving)} takes it, but the team does not serve it today")
    if not serving:
        names = ", ".join(st.name for st in stacks)
        return Measured(None, 0.0, f"the team's serving stack ({names}) does not take it natively: knowledge only")
    summary = f"served in production today by the team's {', '.join(serving)}"
    return Measured(5.0, SERVING_WEIGHT, summary, [], "profile")


def _kloc_text(kloc: tuple[float, float]) -> str:
    return f"{kloc[0]:g}" if kloc[0] == kloc[1] else f"{kloc[0]:g}-{kloc[1]:g}"
