"""`run_probe` in-process with --fast (no framework imported): sections, events, requirements, JSON round trip."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from advisor.errors import ReportError, UsageError
from advisor.evidence.probe import ProbeEvent, ProbeReport, run_probe
from advisor.jsonio import model_json


def test_fast_probe_sections_events_and_round_trip() -> None:
    events: list[ProbeEvent] = []
    report = run_probe(fast=True, on_event=events.append)
    assert [e.name for e in events if e.kind == "section"] == [
        "cpu", "memory", "gpus", "accelerators", "software", "knowledge",
    ]
    for fw in report.frameworks.values():
        assert fw.outcome in ("skipped", "missing")
    assert any("--fast" in n for n in report.notes)
    data = model_json(report)
    assert model_json(ProbeReport.from_json(data)) == data


def test_requirements_use_the_given_knowledge_base() -> None:
    kb: Any = SimpleNamespace(frameworks={"pytorch": SimpleNamespace(python_versions=["2.7"])})
    report = run_probe(fast=True, kb=kb)
    installed = {k for k, v in report.frameworks.items() if v.installed}
    checks = {(r.framework, r.check): r for r in report.requirements}
    if "pytorch" in installed:
        assert checks[("pytorch", "python")].ok is False
    for fid in installed - {"pytorch"}:
        assert checks[(fid, "python")].ok is None  # the given base has no entry for it


def test_unknown_framework_raises_usage_error() -> None:
    with pytest.raises(UsageError):
        run_probe(fast=True, frameworks=["notaframework"])


def test_from_json_rejects_other_documents() -> None:
    with pytest.raises(ReportError):
        ProbeReport.from_json({"schema": "something/else"})
    with pytest.raises(ReportError) as bad:
        ProbeReport.from_json({"schema": "fwadvisor.probe/1", "cpu": 3})
    assert bad.value.field == "probe.cpu"


def test_from_json_reads_what_a_partial_probe_lacks_as_unknown() -> None:
    # An older or hand-written probe (team merge inputs, saved reports): missing fields are unknown, not errors.
    probe = ProbeReport.from_json({"cpu": {"model": "Xeon", "logical_cores": 8}, "gpus": {"devices": [{"name": "T4"}]}})
    assert probe.cpu.model == "Xeon" and probe.cpu.arch == "unknown" and probe.cpu.usable_cores == 8
    assert probe.gpus.devices[0].index == 0 and probe.gpus.devices[0].cuda_index is None
    assert probe.software.python == "unknown" and probe.frameworks == {}


def test_framework_devices_confirm_accelerators() -> None:
    from advisor.evidence.hardware.accelerators import AcceleratorStatus
    from advisor.evidence.probe import FrameworkProbe, _merge_framework_devices

    acc = {"tpu": AcceleratorStatus(False, "not present"), "apple_mps": AcceleratorStatus(False, "not present")}
    jax = FrameworkProbe("jax", True, "jax", "0.7.0", "ok", devices=[{"kind": "tpu", "name": "TPU v5 lite",
                                                                       "id": "tpu:0"}])
    _merge_framework_devices(acc, {"jax": jax})
    assert acc["tpu"].present and "jax lists device tpu:0" in acc["tpu"].detail
    assert not acc["apple_mps"].present


def test_redact_hides_home_user_and_host(monkeypatch: pytest.MonkeyPatch) -> None:
    import getpass
    import platform

    from advisor.evidence.probe import FrameworkProbe, redact

    monkeypatch.setenv("HOME", "/home/alice")
    monkeypatch.setattr(getpass, "getuser", lambda: "alice")
    monkeypatch.setattr(platform, "node", lambda: "build-box-7")
    fp = FrameworkProbe("pytorch", True, "torch", "2.8", "import_error",
                        error='File "/home/alice/.venv/lib/torch/__init__.py" on build-box-7 for alice',
                        stderr_tail="/home/alice/x", warnings=["alice"])
    redact(fp)
    assert fp.error == 'File "~/.venv/lib/torch/__init__.py" on <host> for <user>'
    assert fp.stderr_tail == "~/x" and fp.warnings == ["<user>"]


def test_a_failing_section_is_a_note_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.evidence.probe as probe_mod

    def boom() -> None:
        raise RuntimeError("unreadable /proc")

    monkeypatch.setattr(probe_mod, "probe_cpu", boom)
    report = run_probe(fast=True)
    assert report.cpu.model == "unknown" and report.cpu.usable_cores >= 1
    assert any("cpu: the probe failed (RuntimeError: unreadable /proc)" in n for n in report.notes)


def test_an_adapter_that_raises_is_reported_crashed() -> None:
    from advisor.evidence.probe import probe_frameworks
    from advisor.frameworks.builtin import PyTorchAdapter

    class Broken(PyTorchAdapter):
        id = "broken_plugin"

        def installed(self) -> tuple[str, str] | None:
            return ("broken-plugin", "1.0")

        def script_root(self) -> Any:
            raise FileNotFoundError("scripts folder missing")

    fp = probe_frameworks([Broken()])["broken_plugin"]
    assert fp.outcome == "crashed" and "scripts folder missing" in (fp.error or "")
