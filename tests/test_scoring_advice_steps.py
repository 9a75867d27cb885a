"""The next steps on the team's serving stack and oldest GPU come from the findings, not from notes' words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _scoring_support import load_scenario

from advisor.profile import resolve_profile
from advisor.report.models import worded_recommendation
from advisor.scoring import assess

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def _steps(kb: Any, name: str, **changes: Any) -> tuple[str | None, list[str]]:
    _, profile, probe, bench = load_scenario(SCENARIOS / f"{name}.yaml")
    a = assess(kb, resolve_profile(profile.model_copy(update=changes), kb), probe=probe, bench=bench)
    return a.recommendation.framework, worded_recommendation(a.recommendation).next_steps


def test_the_oldest_gpu_finding_of_the_advised_framework_is_a_step(kb: Any) -> None:
    top, steps = _steps(kb, "v100_fleet_pytorch_team")
    floor = [s for s in steps if "compute capability" in s]
    assert top == "pytorch" and len(floor) == 1 and floor[0].startswith("PyTorch ") and floor[0].endswith(".")


def test_a_serving_stack_that_does_not_take_the_advised_framework_is_a_step(kb: Any) -> None:
    top, steps = _steps(kb, "small_tf_codebase_moves_to_pytorch", serving=["tf_serving"])
    assert top == "pytorch"
    assert "The team's serving stack TensorFlow Serving does not take PyTorch models natively: a move also means " \
        "replacing or bridging it." in steps
    _, stays = _steps(kb, "small_tf_codebase_moves_to_pytorch", serving=["torchserve"])
    assert not any("serving stack" in s for s in stays)
