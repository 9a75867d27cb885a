"""`fwadvisor fleet node` as a real subprocess under each launcher's planted environment, and the README's recipes.

The launchers themselves (Slurm, mpirun, a Kubernetes cluster) are what this machine cannot have: their
environments are planted, and `srun` is a stand-in script that starts the tasks as srun would.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from advisor.report import validate_report
from tests.test_fleet_launcher import PLANTED

ROOT = Path(__file__).resolve().parent.parent
QUICK = ["--no-bench", "--fast-probe"]  # the point here is the environment, not the figures
#: One real child per launcher (a variant of one launcher's variables is covered in test_fleet_launcher).
SUBPROCESS = ("slurm", "openmpi", "pmix", "torchrun", "skypilot", "k8s-indexed-job", "jobset")


def _env(planted: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("SLURM", "OMPI_", "PMIX_", "SKYPILOT_", "JOB_COMPLETION", "FWADVISOR_JOBSET"))
            and k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK")}
    return {**base, "PYTHONPATH": str(ROOT), **planted}


def _start(args: list[str], planted: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "advisor", "fleet", "node", *args], cwd=cwd, env=_env(planted),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    """Every planted launcher (and a few variants) at once: the children run side by side."""
    base = tmp_path_factory.mktemp("fleet-node")
    jobs: dict[str, tuple[list[str], dict[str, str]]] = {
        name: (["--out", "out", *QUICK], env) for name, (env, _expected) in PLANTED.items() if name in SUBPROCESS}
    jobs["identify"] = (["--out", "out", "--identify", *QUICK], PLANTED["slurm"][0])
    jobs["second-local-rank"] = (["--out", "out", *QUICK], {**PLANTED["torchrun"][0], "LOCAL_RANK": "1"})
    jobs["bad-variable"] = (["--out", "out", *QUICK], {"SLURM_PROCID": "seven"})
    # Two SkyPilot nodes whose leader is not here: --no-allreduce keeps this node from waiting for it.
    jobs["stdout-bench"] = (["--stdout", "--preset", "test", "--fast-probe", "--no-allreduce"], PLANTED["skypilot"][0])
    procs = {}
    for name, (args, env) in jobs.items():
        (base / name).mkdir()
        procs[name] = (_start(args, env, base / name), base / name)
    out = {}
    for name, (proc, folder) in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        out[name] = (subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), folder)
    return out


@pytest.mark.parametrize("name", SUBPROCESS)
def test_each_launcher_writes_one_valid_report_named_by_its_node(runs, name: str) -> None:  # type: ignore[no-untyped-def]
    proc, folder = runs[name]
    assert proc.returncode == 0, proc.stderr[-2000:]
    env, expected = PLANTED[name]
    target = folder / "out" / f"node-{expected[4]:04d}.json"
    assert [p.name for p in (folder / "out").iterdir()] == [target.name]
    text = target.read_text()
    report = json.loads(text)
    validate_report(report, str(target))
    assert report["machine"]["hostname"] is None
    for host in (env.get("SLURMD_NODENAME"), expected[7]):  # node names and leader addresses stay out
        assert not host or host not in text


def test_identify_keeps_the_launchers_node_name(runs) -> None:  # type: ignore[no-untyped-def]
    proc, folder = runs["identify"]
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((folder / "out" / "node-0005.json").read_text())
    assert report["machine"]["hostname"] == "gnode37"


def test_a_second_process_on_a_node_writes_nothing(runs) -> None:  # type: ignore[no-untyped-def]
    proc, folder = runs["second-local-rank"]
    assert proc.returncode == 0 and "local rank 1" in proc.stderr
    assert not (folder / "out").exists() or not any((folder / "out").iterdir())


def test_a_bad_launcher_variable_is_one_line_and_exit_2(runs) -> None:  # type: ignore[no-untyped-def]
    proc, _folder = runs["bad-variable"]
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["fwadvisor: error: SLURM_PROCID: must be a whole number, got 'seven'"]


def test_stdout_carries_the_report_with_the_numpy_baseline_figures(runs) -> None:  # type: ignore[no-untyped-def]
    proc, folder = runs["stdout-bench"]
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    validate_report(report)
    assert {r["framework"] for r in report["benchmarks"]["results"]} == {"numpy"}
    assert report["allreduce"] is None
    assert not (folder / "fleet-reports").exists()


def _stand_in(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_the_slurm_recipe_runs_under_a_stand_in_srun(tmp_path: Path) -> None:
    """examples/slurm/fleet.sbatch as written; `srun` is a stand-in that plants each task's Slurm variables."""
    script = ROOT / "examples" / "slurm" / "fleet.sbatch"
    directives = dict(line[len("#SBATCH --"):].split("=", 1) for line in script.read_text().splitlines()
                      if line.startswith("#SBATCH --") and "=" in line)
    assert directives["ntasks-per-node"] == "1"  # one report per node
    commands = [shlex.split(line) for line in script.read_text().splitlines() if line.startswith(("srun", "fwadvisor"))]
    assert commands[0][:4] == ["srun", "--ntasks-per-node=1", "fwadvisor", "fleet"]
    assert commands[1][:3] == ["fwadvisor", "fleet", "summary"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _stand_in(bin_dir / "fwadvisor", f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m advisor \"$@\"\n")
    _stand_in(bin_dir / "srun", """#!/bin/bash
# Stand-in for srun on a two-node allocation: two tasks, each with the variables srun sets for it.
shift  # --ntasks-per-node=1
pids=()
for i in 0 1; do
  SLURM_PROCID=$i SLURM_NODEID=$i SLURM_LOCALID=0 SLURM_NTASKS=2 SLURM_STEP_NUM_NODES=2 \\
  SLURMD_NODENAME=simnode$i SLURM_LAUNCH_NODE_IPADDR=127.0.0.1 "$@" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || exit 1; done
""")
    env = _env({"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "SLURM_JOB_ID": "4242",
                "FWADVISOR_NODE_ARGS": " ".join(QUICK)})
    proc = subprocess.run(["bash", str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = tmp_path / "fleet-reports" / "4242"
    assert sorted(p.name for p in out.glob("node-*.json")) == ["node-0000.json", "node-0001.json"]
    summary = (out / "summary.md").read_text()
    assert "2 node(s) reported, 1 node type(s)" in summary
    assert "simnode" not in summary and not any("simnode" in p.read_text() for p in out.glob("node-*.json"))


def test_the_kubernetes_indexed_job_manifest_runs_its_command_per_index(tmp_path: Path) -> None:
    """The manifest's command and env, run once per completion index with the variable the Job controller sets."""
    job = yaml.safe_load((ROOT / "examples" / "kubernetes" / "fleet-indexed-job.yaml").read_text())
    spec = job["spec"]
    assert (job["kind"], spec["completionMode"]) == ("Job", "Indexed")
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["FWADVISOR_WORLD_SIZE"] == str(spec["completions"])
    command = container["command"]
    assert command[:3] == ["fwadvisor", "fleet", "node"]
    mount = container["volumeMounts"][0]["mountPath"]
    assert command[command.index("--out") + 1] == mount
    reports = tmp_path / "reports"
    local = [sys.executable, "-m", "advisor", *command[1:]]
    local[local.index(mount)] = str(reports)
    last = spec["completions"] - 1  # the last pod: its index must stay below the world size the manifest gives
    proc = subprocess.run([*local, *QUICK], env=_env({**env, "JOB_COMPLETION_INDEX": str(last)}),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [p.name for p in reports.iterdir()] == [f"node-{last:04d}.json"]
