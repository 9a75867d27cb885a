"""Fleet mode: one report per node through the cluster's own launcher (or Ray), and the fleet summary.

`launcher` reads where this process sits in a job (Slurm, Open MPI, PMIx, torchrun, SkyPilot, a
Kubernetes Indexed Job or JobSet) from an explicit environment mapping; `node` probes, benchmarks and
scores one node into a schema-valid report; `ray_run` runs the node command once per Ray node and
returns the reports in memory; `summary` groups the reports by node type and says what the fleet
means for the recommendation (`models` holds the typed `FleetSummary`). No UI here: the shell renders.
"""

from advisor.fleet.launcher import Launcher, LauncherEnv, LauncherError, detect_launcher, node_file_name
from advisor.fleet.models import FailedNode, FailureKind, Finding, FindingCode, FleetSummary
from advisor.fleet.node import FLEET_PRESET, NODE_PRESETS, NodeOptions, run_node
from advisor.fleet.summary import NodeInput, read_node_files, summarize

__all__ = [
    "FLEET_PRESET", "NODE_PRESETS", "FailedNode", "FailureKind", "Finding", "FindingCode", "FleetSummary",
    "Launcher", "LauncherEnv", "LauncherError", "NodeInput", "NodeOptions", "detect_launcher", "node_file_name",
    "read_node_files", "run_node", "summarize",
]
