"""A GPU-floor finding travels as codes and facts; its sentence is written once, from them, where it is read."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.knowledge import load_knowledge
from advisor.knowledge.schema import Hardware, Support
from advisor.profile import FleetEntry
from advisor.scoring.fleet import FloorForm, floor_words, gpu_floor


@pytest.fixture(scope="module")
def kb() -> Any:
    return load_knowledge(include_user=False)


def _below(floor: str) -> str:
    """A compute capability one minor version under `floor` (the knowledge base's floor, not a fixed figure)."""
    major, minor = (int(x) for x in floor.split("."))
    return f"{major}.{minor - 1}" if minor else f"{major - 1}.9"


def test_an_old_gpu_gives_codes_and_the_words_name_the_release_to_pin(kb: Any) -> None:
    floor = kb.stewardship["pytorch"].gpu
    assert floor is not None and floor.min_compute_capability and floor.last_release_for_older
    cc = _below(floor.min_compute_capability)
    old = FleetEntry(hardware=Hardware.NVIDIA_CUDA, model="Old GPU", compute_capability=cc)
    found = gpu_floor(kb, "pytorch", [old])
    assert found is not None and found.support is Support.DEPRECATED and found.form is FloorForm.GPU_FLOOR
    assert found.facts["pin"] == floor.last_release_for_older and found.facts["cc"] == cc
    assert floor_words(found.params) == (
        f"PyTorch {floor.release}'s CUDA wheels need compute capability {floor.min_compute_capability} or newer; "
        f"the team's Old GPU (compute capability {cc}) runs at most PyTorch {floor.last_release_for_older}: "
        "pin it, or plan new GPUs"
    )


def test_a_file_written_before_the_codes_keeps_its_own_sentence() -> None:
    # Reports of schema 1.5 carried the sentence itself as `detail`: it is shown as saved.
    assert floor_words({"form": "gpu_floor", "detail": "as it was written"}) == "as it was written"


def test_a_python_finding_is_facts_and_its_words_come_from_them(kb: Any) -> None:
    from advisor.profile import parse_profile
    from advisor.scoring.fleet import python_finding, python_words

    versions = kb.frameworks["jax"].python_versions
    oldest = min(versions, key=lambda v: tuple(int(x) for x in v.split(".")))
    major, minor = (int(x) for x in oldest.split("."))
    older = f"{major}.{minor - 1}"
    found = python_finding(kb, "jax", parse_profile({"environment": {"python": older}}, "<test>"))
    assert found == {"name": "JAX", "python": older, "needs": oldest}
    words = python_words(found)
    assert words.startswith(f"JAX's current release needs Python {oldest} or newer (the team's is {older})")
    assert python_words({"detail": "as saved"}) == "as saved"
