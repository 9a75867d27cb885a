"""Embedded NPU boards are targets of their own: Rockchip's RKNN and NXP's i.MX 8M Plus take different routes."""

from __future__ import annotations

import datetime as dt
from typing import Any

from _scoring_support import probe_fixture

from advisor.checklist import build_checklist
from advisor.knowledge.schema import Support
from advisor.knowledge.tiers import Tier
from advisor.profile import load_profile_text, resolve_profile
from advisor.scoring import assess

TODAY = dt.date(2026, 12, 4)
BOARDS = ("rockchip_npu", "imx8mp_npu")


def _candidates(kb: Any, target: str) -> set[str]:
    text = f"weights: {{deployment: 5}}\nconstraints: {{must_deploy_to: [{target}]}}\n"
    result = assess(kb, resolve_profile(load_profile_text(text), kb), probe=probe_fixture(), today=TODAY)
    return {b.framework for b in result.ranking}


def test_every_framework_states_its_route_to_each_board_and_usable_ones_name_the_vendor_tier(kb: Any) -> None:
    for target in BOARDS:
        for fid in kb.frameworks:
            route = kb.route(fid, target)
            assert route is not None, f"{fid} -> {target}: no route stated ('unknown' is an answer)"
            if route.status.usable:
                # The last step onto the NPU is the chip vendor's converter or delegate, quoted.
                assert route.tier is not None and route.tier.tier is Tier.PLUGIN
                assert all(s.quote for s in route.tier.sources)
            if route.basis.value == "sourced":
                assert all(s.quote for s in route.sources), f"{fid} -> {target}: a sourced route quotes its sources"


def test_the_boards_differ_in_who_gets_there(kb: Any) -> None:
    rockchip, imx = _candidates(kb, "rockchip_npu"), _candidates(kb, "imx8mp_npu")
    # Rockchip's model zoo converts Paddle models through ONNX; NXP documents the NPU through TFLite only.
    assert "paddlepaddle" in rockchip and "paddlepaddle" not in imx
    assert kb.route("paddlepaddle", "imx8mp_npu").status is Support.UNKNOWN
    # No source shows MindSpore or MLX on either NPU: unknown, so a hard requirement leaves them out.
    assert not {"mindspore", "mlx"} & (rockchip | imx)
    # TensorFlow's own format runs on the i.MX NPU through NXP's delegate; PyTorch needs Google's converter.
    assert kb.route("tensorflow", "imx8mp_npu").status is Support.SUPPORTED
    assert kb.route("pytorch", "imx8mp_npu").status is Support.COMMUNITY
    # A board is not the generic edge target: MLX reaches `edge` (llama.cpp on a Linux board) but no NPU.
    assert "mlx" in _candidates(kb, "edge")


def test_the_checklist_names_the_route_and_its_vendor_tier(kb: Any) -> None:
    checklist = build_checklist(kb, "pytorch", probe_fixture(), targets=["rockchip_npu"])
    item = checklist.item("deploy.pytorch.rockchip_npu")
    assert item is not None
    assert "torch.onnx.export" in item.detail and "Tier: plugin (Rockchip" in item.detail
