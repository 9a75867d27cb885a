"""Two frameworks probed in one child (Keras after its backend): each its own answer, one's fault not the other's.

Stand-in probe scripts in a temporary `probes` package (with the real `_proto.py` and `together.py`)
run in real child processes; each writes its process id, so a test can see which ran in whose child.
No real framework is needed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import ClassVar

import pytest

from advisor.evidence.child import ChildResult, Outcome, split_sections
from advisor.evidence.probe import probe_frameworks
from advisor.frameworks.base import FrameworkAdapter
from advisor.paths import probes_root

SCRIPT = textwrap.dedent(
    """
    import os, signal, time
    from probes._proto import done, emit

    def main():
        with open({pids!r}, "a") as f:
            f.write("{name} %d\\n" % os.getpid())
        emit("import", ok=True, module="{name}", seconds=0.01)
        emit("info", version="1.0", build={{"who": "{name}"}}, threads={{}})
        if os.path.exists({fault!r} + ".segv"):
            os.kill(os.getpid(), signal.SIGSEGV)
        if os.path.exists({fault!r} + ".raise"):
            raise RuntimeError("stand-in broken on purpose")
        emit("device", kind="cpu", name="cpu", id="cpu")
        done()

    if __name__ == "__main__":
        main()
    """
)


def _adapter(root: Path, fid: str, host: str | None) -> FrameworkAdapter:
    class Stand(FrameworkAdapter):
        id = fid
        display_name = fid.title()
        import_name = fid
        distributions: ClassVar[tuple[str, ...]] = (fid,)
        probe_module = f"probes.fw_{fid}"

        def script_root(self) -> Path:
            return root

        def installed(self) -> tuple[str, str] | None:
            return (fid, "1.0")

        def probe_with(self) -> str | None:
            return host

    return Stand()


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    pkg = tmp_path / "probes"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name in ("_proto.py", "together.py"):
        shutil.copy(probes_root() / "probes" / name, pkg / name)
    for name in ("host", "guest"):
        (pkg / f"fw_{name}.py").write_text(
            SCRIPT.format(name=name, pids=str(tmp_path / "pids.txt"), fault=str(tmp_path / name))
        )
    return tmp_path


def _pids(root: Path) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for line in (root / "pids.txt").read_text().splitlines():
        name, pid = line.split()
        out.setdefault(name, []).append(int(pid))
    return out


def _probe(root: Path) -> dict[str, object]:
    return dict(probe_frameworks([_adapter(root, "host", None), _adapter(root, "guest", "host")], timeout=30))


def test_the_guest_is_probed_in_its_hosts_child_after_it(scripts: Path) -> None:
    got = _probe(scripts)
    host, guest = got["host"], got["guest"]
    assert host.outcome == "ok" and guest.outcome == "ok"  # type: ignore[attr-defined]
    assert host.build == {"who": "host"} and guest.build == {"who": "guest"}  # type: ignore[attr-defined]
    assert guest.probed_after == "host" and host.probed_after is None  # type: ignore[attr-defined]
    pids = _pids(scripts)
    assert pids["host"] == pids["guest"] and len(pids["host"]) == 1  # one child for both


def test_a_host_that_crashes_costs_the_guest_nothing(scripts: Path) -> None:
    (scripts / "host.segv").touch()
    got = _probe(scripts)
    host, guest = got["host"], got["guest"]
    assert host.outcome == "crashed" and host.signal == "SIGSEGV"  # type: ignore[attr-defined]
    # The guest never began in the dead child, so it was probed again in a child of its own.
    assert guest.outcome == "ok" and guest.probed_after is None  # type: ignore[attr-defined]
    pids = _pids(scripts)
    assert len(pids["guest"]) == 1 and pids["guest"] != pids["host"]


def test_a_guest_that_raises_is_reported_and_the_host_keeps_its_answer(scripts: Path) -> None:
    (scripts / "guest.raise").touch()
    got = _probe(scripts)
    host, guest = got["host"], got["guest"]
    assert host.outcome == "ok" and host.devices  # type: ignore[attr-defined]
    assert guest.outcome == "crashed" and "stand-in broken on purpose" in (guest.error or "")  # type: ignore[attr-defined]


def test_the_section_running_when_the_child_died_takes_its_ending() -> None:
    events = [
        {"event": "section", "module": "probes.a", "t": 1.0}, {"event": "import", "ok": True, "seconds": 0.5},
        {"event": "done"}, {"event": "section", "module": "probes.b", "t": 3.0},
        {"event": "import", "ok": True, "seconds": 0.1},
    ]
    whole = ChildResult(Outcome.TIMED_OUT, events=events, wall_s=10.0, error="no answer within 10 s; killed")
    a, b, c = split_sections(whole, ["probes.a", "probes.b", "probes.c"])
    assert a is not None and a.outcome == Outcome.OK and a.wall_s == pytest.approx(2.0)  # from its markers
    assert b is not None and b.outcome == Outcome.TIMED_OUT and b.error == whole.error
    assert b.wall_s == pytest.approx(8.0)  # the rest of the child's life, until it was killed
    assert c is None  # never began


def test_a_keras_backend_is_read_as_keras_reads_it(tmp_path: Path) -> None:
    from advisor.frameworks.builtin import keras_backend

    assert keras_backend({"KERAS_BACKEND": "jax", "HOME": str(tmp_path)}) == "jax"
    assert keras_backend({"HOME": str(tmp_path)}) == "tensorflow"  # keras' default
    (tmp_path / ".keras").mkdir()
    (tmp_path / ".keras" / "keras.json").write_text('{"backend": "torch"}')
    assert keras_backend({"HOME": str(tmp_path)}) == "torch"
    (tmp_path / ".keras" / "keras.json").write_text("not json")
    assert keras_backend({"HOME": str(tmp_path)}) == "tensorflow"


def test_children_start_longest_first_on_one_slot_per_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from advisor.evidence import probe_frameworks as pf

    a, b, c = (_adapter(tmp_path, fid, None) for fid in ("a", "b", "c"))
    monkeypatch.setattr(pf.os, "sched_getaffinity", lambda _pid: {0, 1})
    # Measured costs (this machine's last probe) win over the adapters' typical figure (1 s each here).
    assert pf._schedule([[a], [b], [c]], {"b": 6.0, "c": 2.0}) == (2, [1, 2, 0])
    assert pf._schedule([[a], [b]], {}) == (2, [0, 1])  # equal costs keep their order
    monkeypatch.setattr(pf.os, "sched_getaffinity", lambda _pid: {0})
    assert pf._schedule([[a], [b], [c]], {}) == (2, [0, 1, 2])  # two at least: one hang never holds up the rest
    monkeypatch.setattr(pf.os, "sched_getaffinity", lambda _pid: set(range(8)))
    assert pf._schedule([[a], [b], [c]], {})[0] == 3


def test_three_real_children_on_two_cores_run_two_at_a_time_the_longest_first(
    scripts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each stand-in writes when it ran; the longest (by the last probe's cost) starts first, never three at once."""
    from advisor.evidence import probe_frameworks as pf

    log = scripts / "spans.txt"
    for name in ("a", "b", "c"):
        (scripts / "probes" / f"fw_{name}.py").write_text(
            "import time\nfrom probes._proto import done, emit\nstart = time.time()\ntime.sleep(0.4)\n"
            f"emit('import', ok=True, module={name!r}, seconds=0.4)\n"
            "emit('device', kind='cpu', name='cpu', id='cpu')\n"
            f"open({str(log)!r}, 'a').write('{name} %f %f\\n' % (start, time.time()))\ndone()\n")
    monkeypatch.setattr(pf.os, "sched_getaffinity", lambda _pid: {0, 1})
    adapters = [_adapter(scripts, fid, None) for fid in ("a", "b", "c")]
    got = probe_frameworks(adapters, timeout=30, costs={"c": 9.0, "b": 5.0})
    assert [fp.outcome for fp in got.values()] == ["ok"] * 3 and list(got) == ["a", "b", "c"]
    spans = {name: (float(s), float(e)) for name, s, e in (line.split() for line in log.read_text().splitlines())}
    assert spans["c"][0] < spans["a"][0] and spans["b"][0] < spans["a"][0], spans  # a, the cheapest, waited
    assert spans["a"][0] >= min(spans["b"][1], spans["c"][1]) - 0.05, spans  # ... for a slot to come free


def test_a_lowered_priority_reaches_the_child(scripts: Path) -> None:
    from advisor.evidence.child import run_child

    script = scripts / "probes" / "fw_nice.py"
    # It reads its priority a moment after starting: the parent sets it just after the start, not before.
    script.write_text("import os, time\nfrom probes._proto import done, emit\ntime.sleep(0.3)\n"
                      "emit('nice', value=os.nice(0))\ndone()\n")
    result = run_child("probes.fw_nice", root=scripts, timeout=30, nice=3)
    assert result.outcome == Outcome.OK
    assert result.of("nice")[0]["value"] == min(19, os.nice(0) + 3)


def test_the_lowered_priority_is_relative_to_an_already_niced_tool(scripts: Path) -> None:
    # A tool started under `nice -n 5` must not give its children a *higher* priority than its own.
    script = scripts / "probes" / "fw_nice.py"
    script.write_text("import os, time\nfrom probes._proto import done, emit\ntime.sleep(0.3)\n"
                      "emit('nice', value=os.nice(0))\ndone()\n")
    code = ("import os, sys, pathlib; os.nice(5); from advisor.evidence.child import run_child; "
            "r = run_child('probes.fw_nice', root=pathlib.Path(sys.argv[1]), timeout=30, nice=3); "
            "print(r.of('nice')[0]['value'])")
    out = subprocess.run([sys.executable, "-c", code, str(scripts)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) == min(19, os.nice(0) + 5 + 3)
