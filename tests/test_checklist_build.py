"""Checklist logic against a small fixture knowledge base: install-line choice, ids, sections, rendering."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from advisor.checklist import (
    SCHEMA,
    build_checklist,
    checklist_document,
    checklist_schema,
    choose_cuda_line,
    cuda_driver_version,
    detect_backends,
    python_version,
)
from advisor.errors import UsageError
from advisor.knowledge import load_knowledge
from advisor.knowledge.schema import Hardware
from advisor.team.foreign_probe import lenient_probe as read

FIXTURES = Path(__file__).parent / "fixtures"
CPU_PROBE: dict[str, Any] = {
    "schema": "fwadvisor.probe/1",
    "cpu": {"model": "Test CPU", "arch": "x86_64", "usable_cores": 2},
    "memory": {"total_bytes": 8 * 2**30},
    "gpus": {"status": "no_driver", "message": "no NVIDIA driver", "devices": []},
    "accelerators": {"tpu": {"present": False, "detail": ""}},
    "software": {"os": "Linux", "python": "3.11.7"},
    "frameworks": {},
}


def fake_nvml_probe(cuda: str | None, driver: str | None = "550.54.15", python: str = "3.12.1") -> dict[str, Any]:
    """A probe as NVML would fill it on a GPU machine (this test machine has none)."""
    probe = copy.deepcopy(CPU_PROBE)
    probe["software"]["python"] = python
    probe["gpus"] = {
        "status": "ok",
        "message": "",
        "driver_version": driver,
        "cuda_driver_version": cuda,
        "devices": [{"index": i, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"} for i in range(2)],
    }
    return probe


@pytest.fixture(scope="module")
def fkb():  # type: ignore[no-untyped-def]
    """The fixture knowledge base (tests/fixtures/checklist/kb) loaded as the base pack."""
    return load_knowledge(include_user=False, base=FIXTURES / "checklist" / "kb")


def test_cpu_machine_gets_the_cpu_install_line(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "pytorch", read(CPU_PROBE), from_framework="jax")
    assert c.backend == Hardware.CPU
    item = c.item("install.cpu.pytorch")
    assert item is not None
    assert item.code == "pip install torch --index-url https://download.pytorch.org/whl/cpu"
    assert [s.id for s in c.sections] == ["install", "verify", "concepts", "pitfalls", "tooling", "first_tasks"]
    assert c.needs == ()


def test_fake_nvml_two_gpus_driver_cuda_12_4_picks_cuda_12_build(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "pytorch", read(fake_nvml_probe("12.4")))
    assert c.backend == Hardware.NVIDIA_CUDA
    item = c.item("install.nvidia_cuda.pytorch")
    assert item is not None and item.code is not None
    # cu126 and cu128 are both CUDA 12; the first CUDA-12 line the knowledge base lists is kept.
    assert item.code.endswith("/cu126") or item.code.endswith("/cu128")
    assert "CUDA 12" in item.title
    assert "12.4" in item.detail
    jax = build_checklist(fkb, "jax", read(fake_nvml_probe("12.4"))).item("install.nvidia_cuda.jax")
    assert jax is not None and jax.code == 'pip install -U "jax[cuda12]"'


def test_fake_nvml_driver_cuda_13_picks_newest_build(fkb) -> None:  # type: ignore[no-untyped-def]
    jax = build_checklist(fkb, "jax", read(fake_nvml_probe("13.0"))).item("install.nvidia_cuda.jax")
    assert jax is not None and jax.code == 'pip install -U "jax[cuda13]"'


def test_fake_nvml_old_driver_needs_upgrade(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "jax", read(fake_nvml_probe("11.8", driver="470.82")))
    assert [n.kind for n in c.needs] == ["driver"]
    assert c.item("warn.driver.nvidia_cuda") is not None
    assert "11.8" in c.needs[0].detail and "CUDA 12" in c.needs[0].detail
    # The warning comes before the install line: fix the driver first.
    ids = list(c.ids)
    assert ids.index("warn.driver.nvidia_cuda") < ids.index("install.nvidia_cuda.jax")


def test_fake_nvml_driver_only_version_maps_to_cuda_major() -> None:
    # Without NVML's CUDA version, the driver's R-number decides (NVIDIA's minimum-driver table).
    assert cuda_driver_version(read(fake_nvml_probe(None, driver="535.104.05"))) == (12, 0)
    assert cuda_driver_version(read(fake_nvml_probe(None, driver="470.82.01"))) == (11, 0)
    assert cuda_driver_version(read(fake_nvml_probe(None, driver="580.65"))) == (13, 0)
    assert cuda_driver_version(read(fake_nvml_probe("12.4"))) == (12, 4)
    assert cuda_driver_version(read(fake_nvml_probe(None, driver=None))) is None
    assert cuda_driver_version(read(CPU_PROBE)) is None


def test_fake_nvml_unknown_driver_offers_newest_and_names_others(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "pytorch", read(fake_nvml_probe(None, driver=None)))
    item = c.item("install.nvidia_cuda.pytorch")
    assert item is not None and item.code is not None and item.code.endswith("/cu130")
    assert "unknown" in item.detail and "cu126" in item.detail


def test_choose_cuda_line_rules() -> None:
    lines = ["x --index-url .../cu126", "x --index-url .../cu130"]
    assert choose_cuda_line(lines, (12, 8)) == (lines[0], 12, False)
    assert choose_cuda_line(lines, (13, 1)) == (lines[1], 13, False)
    assert choose_cuda_line(lines, (11, 8)) == (lines[0], 12, True)
    assert choose_cuda_line(['pip install "tensorflow[and-cuda]"'], (12, 4)) == (
        'pip install "tensorflow[and-cuda]"',
        None,
        False,
    )


def test_unsupported_python_is_a_need_and_a_warning(fkb) -> None:  # type: ignore[no-untyped-def]
    probe = copy.deepcopy(CPU_PROBE)
    probe["software"]["python"] = "3.14.0"
    c = build_checklist(fkb, "jax", read(probe))
    assert [n.kind for n in c.needs] == ["python"]
    item = c.item("warn.python.jax")
    assert item is not None and item.warning and "3.14" in item.detail and "3.13" in item.detail
    assert any("3.14" in w for w in c.warnings)


def test_accelerator_without_usable_support_falls_back_to_cpu(fkb) -> None:  # type: ignore[no-untyped-def]
    probe = copy.deepcopy(CPU_PROBE)
    probe["accelerators"]["rocm"] = {"present": True, "detail": "AMD Instinct MI300X"}
    c = build_checklist(fkb, "tensorflow", read(probe))  # the fixture gives TensorFlow on ROCm no install line
    assert c.backend == Hardware.CPU
    assert c.item("warn.hardware.amd_rocm") is not None
    assert c.item("install.cpu.tensorflow") is not None
    torch = build_checklist(fkb, "pytorch", read(probe))
    assert torch.backend == Hardware.AMD_ROCM and torch.item("install.amd_rocm.pytorch") is not None


def test_detect_backends_order_and_tpu() -> None:
    probe = fake_nvml_probe("12.4")
    probe["accelerators"]["tpu"] = {"present": True, "detail": "TPU v5e (fake)"}
    found = [d.backend for d in detect_backends(read(probe))]
    assert found == [Hardware.GOOGLE_TPU, Hardware.NVIDIA_CUDA, Hardware.CPU]
    assert [d.backend for d in detect_backends(None)] == [Hardware.CPU]


def test_python_version_parsing() -> None:
    assert python_version(read({"software": {"python": "3.12.3 (main, Jan 1 2026)"}})) == "3.12"
    assert python_version(read({"software": {"python": {"version": "3.13.0"}}})) == "3.13"
    assert python_version(read({"software": {}})) is None


def test_concepts_pitfalls_tooling_and_tasks(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "jax", read(CPU_PROBE), from_framework="pytorch", targets=["mobile"])
    autograd = c.item("concept.autograd")
    assert autograd is not None and "loss.backward()" in autograd.title and "jax.grad" in autograd.title
    dp = build_checklist(fkb, "tensorflow", read(CPU_PROBE), from_framework="pytorch").item("concept.data_parallel")
    assert dp is not None and "no direct counterpart" in dp.title
    assert c.item("migration.pytorch.jax") is not None
    assert c.item("pitfall.jax.prng_keys") is not None and c.item("pitfall.jax.recompilation") is not None
    assert c.item("tooling.jax.profiler") is not None
    deploy = c.item("deploy.jax.mobile")
    assert deploy is not None and "Mobile" in deploy.title and "Route: jax2tf" in deploy.detail
    for task in ("task.port_layer", "task.train_step", "task.export"):
        item = c.item(task)
        assert item is not None and item.done_when
    export = c.item("task.export")
    assert export is not None and "Mobile" in export.title
    extras = c.item("install.extras.jax")
    assert extras is not None and "Flax" in extras.detail and "Optax" in extras.detail
    verify = c.item("verify.snippet.jax")
    assert verify is not None and verify.code is not None and "jnp" in verify.code
    cmd = c.item("verify.command.jax")
    assert cmd is not None and cmd.code == "fwadvisor probe --framework jax"


def test_no_route_to_target_is_a_warning_item(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "tensorflow", read(CPU_PROBE), targets=["server"])
    item = c.item("deploy.tensorflow.server")
    assert item is not None and item.warning and "no route" in item.title


def test_ids_are_stable_across_content_changes(fkb) -> None:  # type: ignore[no-untyped-def]
    """Ids come from content keys: other machines, targets or ticks never renumber them."""
    a = build_checklist(fkb, "jax", read(CPU_PROBE), from_framework="pytorch")
    b = build_checklist(fkb, "jax", read(fake_nvml_probe("12.4")), from_framework="pytorch", targets=["mobile"])
    shared = set(a.ids) & set(b.ids)
    assert {"concept.autograd", "pitfall.jax.prng_keys", "task.port_layer", "verify.snippet.jax"} <= shared
    assert len(set(a.ids)) == len(a.ids)
    assert "install.cpu.jax" in a.ids and "install.nvidia_cuda.jax" in b.ids


def test_with_done_marks_items_and_keeps_stale_ids(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "jax", read(CPU_PROBE), done={"concept.autograd", "old.removed"})
    assert c.item("concept.autograd").done  # type: ignore[union-attr]
    assert c.progress == (1, len(c.ids))
    assert c.stale_done == ("old.removed",)
    md = c.to_markdown()
    assert "- [x] **Gradients: learn `jax.grad(loss_fn)(params)`** `concept.autograd`" in md
    assert md.count("- [ ] ") == len(c.ids) - 1
    assert "old.removed" in md


def test_json_form_is_serialisable_and_complete(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "jax", read(fake_nvml_probe("12.4")), from_framework="pytorch", targets=["mobile"])
    data = json.loads(json.dumps(checklist_document(c)))
    assert data["schema"] == SCHEMA
    assert data["backend"] == "nvidia_cuda" and data["from"] == "pytorch" and data["targets"] == ["mobile"]
    assert data["machine"]["cuda_driver"] == "12.4"
    ids = [i["id"] for s in data["sections"] for i in s["items"]]
    assert ids == list(c.ids)
    assert data["progress"] == {"done": 0, "total": len(ids)}
    assert data["knowledge"]["version"] == "test.1"
    jsonschema.validate(data, checklist_schema())
    assert all("path" not in p for p in data["knowledge"]["packs"])  # a pack's folder is the user's


def test_markdown_code_blocks_are_indented_under_their_item(fkb) -> None:  # type: ignore[no-untyped-def]
    md = build_checklist(fkb, "jax", read(CPU_PROBE)).to_markdown()
    assert "  ```bash\n  pip install -U jax\n  ```" in md
    assert md.startswith("# JAX onboarding checklist")


def test_unknown_ids_are_usage_errors(fkb) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="unknown framework 'caffe'"):
        build_checklist(fkb, "caffe", read(CPU_PROBE))
    with pytest.raises(UsageError) as info:
        build_checklist(fkb, "jax", read(CPU_PROBE), from_framework="theano")
    assert info.value.field == "--from"
    with pytest.raises(UsageError, match="--from names the framework"):
        build_checklist(fkb, "jax", read(CPU_PROBE), from_framework="jax")
    with pytest.raises(UsageError, match="unknown deployment target 'moon'"):
        build_checklist(fkb, "jax", read(CPU_PROBE), targets=["moon"])


def test_missing_probe_assumes_cpu_and_says_so(fkb) -> None:  # type: ignore[no-untyped-def]
    c = build_checklist(fkb, "tensorflow", None)
    assert c.backend == Hardware.CPU
    assert any("no probe" in w for w in c.warnings)
    assert c.machine["python"] == "unknown"


def test_garbage_probe_values_do_not_crash(fkb) -> None:  # type: ignore[no-untyped-def]
    weird = {"cpu": "not a mapping", "gpus": {"devices": "nope", "cuda_driver_version": True}, "software": [1, 2]}
    c = build_checklist(fkb, "pytorch", read(weird))
    assert c.backend == Hardware.CPU


def test_required_hardware_sets_the_backend_on_a_machine_without_it(kb) -> None:  # type: ignore[no-untyped-def]
    """A team that must run on TPUs gets the TPU install and verify steps, even when planned on a CPU laptop."""
    c = build_checklist(kb, "jax", read(CPU_PROBE), must_run_on=["google_tpu"])
    assert c.backend == Hardware.GOOGLE_TPU
    install = c.item("install.google_tpu.jax")
    assert install is not None and "jax[tpu]" in (install.code or "")
    verify = c.item("verify.snippet.jax")
    assert verify is not None and "TPU" in verify.title and "CPU" not in verify.title
    assert any("no Google TPU" in w for w in c.warnings)
    # Without the constraint the same machine gets the CPU build, as before.
    assert build_checklist(kb, "jax", read(CPU_PROBE)).backend == Hardware.CPU


def test_the_published_checklist_schema_is_generated_from_the_model() -> None:
    committed = json.loads((Path(__file__).parent.parent / "docs" / "checklist.schema.json").read_text("utf-8"))
    assert committed == checklist_schema(), "regenerate docs/checklist.schema.json from checklist_schema()"
