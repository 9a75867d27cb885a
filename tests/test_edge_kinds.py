"""Edge is not one thing: a Jetson is not a CUDA server, and a microcontroller is not an embedded Linux board."""

from __future__ import annotations

import datetime as dt
from typing import Any

from _scoring_support import probe_fixture

from advisor.checklist import build_checklist
from advisor.knowledge.schema import Hardware, Support
from advisor.profile import load_profile_text, resolve_profile
from advisor.scoring import assess

TODAY = dt.date(2026, 12, 4)


def _assess(kb: Any, text: str) -> Any:
    return assess(kb, resolve_profile(load_profile_text(text), kb), probe=probe_fixture(), today=TODAY)


def _fit(result: Any, fid: str) -> float:
    b = next(b for b in result.ranking if b.framework == fid)
    return next(c.score for c in b.contributions if c.criterion == "hardware_fit")


def test_a_jetson_is_not_scored_as_a_cuda_server(kb: Any) -> None:
    server = _assess(kb, "weights: {hardware_fit: 5, ecosystem: 3}\nconstraints: {must_run_on: [nvidia_cuda]}\n")
    jetson = _assess(kb, "weights: {hardware_fit: 5, ecosystem: 3}\nconstraints: {must_run_on: [nvidia_jetson]}\n")
    # On a CUDA server JAX and TensorFlow ship their own wheels; on a Jetson neither has a current route
    # (JAX builds only SBSA aarch64 wheels, NVIDIA's TensorFlow builds for JetPack stopped at 2.16).
    assert {"jax", "tensorflow", "pytorch"} <= {b.framework for b in server.ranking}
    assert [b.framework for b in jetson.ranking] == ["pytorch"]
    excluded = {e.framework for e in jetson.exclusions}
    assert {"jax", "tensorflow"} <= excluded
    # PyTorch reaches the Jetson through NVIDIA's builds (a plugin route), not its own CUDA wheels.
    assert kb.frameworks["pytorch"].hardware[Hardware.NVIDIA_JETSON].tier.tier.value == "plugin"
    assert _fit(jetson, "pytorch") < _fit(server, "pytorch") == 5.0


def test_a_jetson_team_gets_nvidias_jetpack_wheels_not_pypis(kb: Any) -> None:
    rec = _assess(kb, "weights: {hardware_fit: 5}\nconstraints: {must_run_on: [nvidia_jetson]}\n").recommendation
    (team, _here) = rec.install
    assert team.hardware is Hardware.NVIDIA_JETSON and "pypi.jetson-ai-lab.io" in team.line
    assert team.line != kb.frameworks["pytorch"].hardware[Hardware.NVIDIA_CUDA].install
    checklist = build_checklist(kb, "pytorch", probe_fixture(), must_run_on=["nvidia_jetson"])
    assert checklist.backend is Hardware.NVIDIA_JETSON
    item = checklist.item("install.nvidia_jetson.pytorch")
    assert item is not None and "pypi.jetson-ai-lab.io" in (item.code or "")


def test_a_microcontroller_target_is_narrower_than_edge(kb: Any) -> None:
    edge = _assess(kb, "weights: {deployment: 5}\nconstraints: {must_deploy_to: [edge]}\n")
    mcu = _assess(kb, "weights: {deployment: 5}\nconstraints: {must_deploy_to: [microcontroller]}\n")
    # Paddle's and MLX's edge routes are Linux boards only: no bare-metal runtime, so no microcontroller.
    assert {"paddlepaddle", "mlx"} <= {b.framework for b in edge.ranking}
    assert not {"paddlepaddle", "mlx"} & {b.framework for b in mcu.ranking}
    # LiteRT for Microcontrollers (Google) and ExecuTorch's Cortex-M backend (PyTorch, Arm) are quoted routes.
    for fid in ("tensorflow", "pytorch"):
        route = kb.route(fid, "microcontroller")
        assert route.status is Support.SUPPORTED and all(s.quote for s in route.sources)
    assert {"tensorflow", "pytorch"} <= {b.framework for b in mcu.ranking}
