"""The commented profile template that `fwadvisor profile init` writes (it loads and resolves as it stands)."""

from __future__ import annotations

from typing import Any

from advisor.errors import ProfileError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Constraints, Hardware, Os
from advisor.profile.resolve import DEFAULT_SCENARIO, WEIGHT_SCALE_MAX, scaled_preset
from advisor.sanitize import echo


def template(kb: KnowledgeBase, scenario: str | None = None) -> str:
    """A commented profile template for `profile init`; it loads and resolves as it stands."""
    if scenario is not None and scenario not in kb.scenarios:
        raise ProfileError(
            f"unknown scenario {echo(scenario)}; known: {', '.join(kb.scenarios) or 'none'}", field="--scenario"
        )
    chosen = scenario or (DEFAULT_SCENARIO if DEFAULT_SCENARIO in kb.scenarios else None)
    preset = kb.scenarios.get(chosen) if chosen else None
    lines = [
        "# fwadvisor profile: your answers to the evaluation matrix.",
        "# Check it with `fwadvisor profile check FILE`; use it with `fwadvisor report --profile FILE`.",
        "",
        "# A scenario preset sets default weights and constraints; the keys below override it.",
        "# Presets: " + (", ".join(kb.scenarios) or "(none in this knowledge base)"),
        f"scenario: {chosen}" if chosen else "# scenario: <id>",
        "",
        "# The team: its frameworks today (migration is measured from these), what it knows of each",
        "# (none, beginner, intermediate, expert), how many engineers would do a move, and over how many",
        "# months it weighs one (the move's share of the team's capacity is taken over this horizon).",
        "team:",
        "  current: []        # e.g. [paddlepaddle]",
        "  experience: {}     # per framework, e.g. {paddlepaddle: expert, pytorch: beginner}",
        "  # size: 6          # engineers",
        "  horizon_months: 24",
        "",
        "# The code that would move, in thousands of lines: one number (`kloc: 60`), or per current",
        "# framework (`by_framework: {paddlepaddle: 60}`); or a size class none, small, medium, large.",
        "codebase:",
        "  size: medium",
        "  # keras_share: 0.8  # TensorFlow teams: share of the code that is plain tf.keras (no tf.* ops or",
        "  #                   # custom train_step); Keras 3 runs it on the JAX or PyTorch backend (a cheap route)",
        "",
        "# Application domains: they weight the per-domain ecosystem facts into the ecosystem criterion.",
        "# A list (equal weight) or {domain: weight}. Known: " + (", ".join(kb.domains) or "none"),
        "domains: []",
        "",
        "# The serving/deployment stack you run today (a move to a framework it cannot serve is noted).",
        "# Known: " + (", ".join(kb.serving) or "none"),
        "serving: []",
        "",
        f"# Operating systems ({', '.join(o.value for o in Os)}) and the Python version the code runs on.",
        "environment:",
        "  os: []",
        '  # python: "3.12"',
        "",
        "# The hardware fleet; the probe adds the NVIDIA GPUs it finds (with their compute capability).",
        'fleet: []    # e.g. [{hardware: nvidia_cuda, model: V100, compute_capability: "7.0", count: 16}]',
        "",
        "# Consider only these frameworks (empty: every framework in the knowledge base):",
        "# " + ", ".join(kb.frameworks),
        "frameworks: []",
        "",
        f"# Importance of each criterion on one scale: 0 (ignore) to {WEIGHT_SCALE_MAX:g} (decisive).",
        "# Criteria you leave out keep the scenario's weight"
        + (f" (shown here, read on the 0-{WEIGHT_SCALE_MAX:g} scale)." if preset else " (or 0 with no scenario)."),
        "# `fwadvisor profile check` prints each criterion's effective share of the total.",
        "# Instead of weights you may give pairwise judgements (AHP, Saaty's 1-9 scale):",
        "#   pairwise:",
        "#     - [performance, ecosystem, 3]   # performance is 3x as important as ecosystem",
        "weights:",
    ]
    scaled = scaled_preset(preset.weights) if preset else {}
    for cid, crit in kb.criteria.items():
        w = scaled.get(cid, 0.0) if preset else 1.0
        lines.append(f"  {cid}: {round(w, 2):g}    # {crit.name}")
    cons = preset.constraints if preset else Constraints()
    hw = ", ".join(h.value for h in Hardware)
    lines += [
        "",
        "# Hard constraints and requirements: a framework that cannot meet one is excluded, with the reason.",
        "constraints:",
        f"  must_run_on: {_flow(c.value for c in cons.must_run_on)}    # hardware: {hw}",
        f"  must_deploy_to: {_flow(cons.must_deploy_to)}    # targets: {', '.join(kb.targets) or 'none known'}",
        f"  licenses: {_flow(cons.licenses)}    # allowed licences (SPDX ids); empty: any",
        f"  exclude: {_flow(cons.exclude)}    # frameworks ruled out by policy",
        f"  maintainer_jurisdictions: {_flow(cons.maintainer_jurisdictions)}"
        "    # sovereignty: allowed maintainer countries, e.g. [CN]; empty: any",
        f"  multi_backend: {'true' if cons.multi_backend else 'false'}"
        "    # true: one model code base must run under several frameworks' backends",
        "",
    ]
    return "\n".join(lines)


def _flow(items: Any) -> str:
    return "[" + ", ".join(str(i) for i in items) + "]"
