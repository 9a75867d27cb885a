"""Support tiers: who ships a framework's route to a hardware backend (native, plugin, community), quoted."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from advisor.knowledge.sourcing import Basis, Model, Sources, Text


class Tier(StrEnum):
    """Who builds and maintains a route, independently of how mature it is (that is `Support`)."""

    #: In the framework's own release, built and tested by its own team (PyTorch's CUDA wheels, JAX on TPU),
    #: or the hardware vendor's own framework on its hardware (MindSpore on Ascend, MLX on Apple silicon).
    NATIVE = "native"
    #: A separately installed backend the framework's core does not build: a PJRT or PluggableDevice plugin,
    #: torch_npu, TorchTPU, TorchNeuron, or a vendor's own build of the framework (NVIDIA's Jetson wheels).
    PLUGIN = "plugin"
    #: By neither the framework's team nor the hardware vendor (third-party forks, unofficial builds).
    COMMUNITY = "community"
    UNKNOWN = "unknown"  # no source says who ships it


#: The most a route of each tier is worth on the 0-5 hardware-fit scale when it is the team's hardware.
#: A plugin trails the core's releases and is tested outside its CI (torch_npu one minor behind torch, the
#: JAX ROCm plugin behind JAX's patch releases), so it cannot fit as well as a native route of the same status;
#: a community build has no vendor behind it at all. UNKNOWN leaves the status to decide.
TIER_CAP: dict[Tier, float] = {Tier.NATIVE: 5.0, Tier.PLUGIN: 4.0, Tier.COMMUNITY: 3.0, Tier.UNKNOWN: 5.0}


class TierFact(Model):
    """The tier of one framework x hardware route, who ships it, and the source that says so."""

    tier: Tier
    by: Text | None = None  # who builds the route, e.g. "Huawei (Ascend Extension for PyTorch)"
    sources: Sources
    basis: Basis = Basis.SOURCED  # judgement: inferred, with the reasoning in `by`
    as_of: dt.date
