"""Team mode: merge several machines' reports (`merge`), or decide from several members' profiles (`decide`).

Decisions: `members` reads each member's profile, `aggregate` pools them (AIJ, AIP, Kendall's W),
`decide` scores the team and every member on the same evidence, `fragility` finds who could tip
the answer, `decision_doc`/`decision_schema`/`decision_markdown` render it, `session` is the
one call the CLI and the TUI share.

Merging:
Each member runs `fwadvisor report --json` on their own machine; `merge_reports` lines the machines up
side by side for the chosen framework: what each machine has, whether it can run the framework on an
accelerator, who needs a driver or Python upgrade, the benchmark figures each measured, and the
onboarding checklist fitted to each machine. Input is untrusted: a file that is not JSON, or JSON
that is not an fwadvisor report, is named and skipped; a report from another schema or knowledge
version, or one missing sections, is used for what it has and warned about. Nothing here raises
for one bad file; only "no usable report at all" and unknown ids are errors.
"""

from advisor.team.merge import accelerator_verdict, merge_reports, seen_framework
from advisor.team.reading import (
    MAX_REPORT_BYTES,
    REPORT_SCHEMA_VERSION,
    classify,
    load_reports,
    read_json_file,
    read_report,
    report_warnings,
)
from advisor.team.saved_report import SavedKind, SavedReport, probe_section, saved_report
from advisor.team.summary import (
    SCHEMA,
    AcceleratorStatus,
    AcceleratorVerdict,
    MachineEntry,
    SeenFramework,
    Skipped,
    TeamSummary,
)

__all__ = [
    "MAX_REPORT_BYTES",
    "REPORT_SCHEMA_VERSION",
    "SCHEMA",
    "AcceleratorStatus",
    "AcceleratorVerdict",
    "MachineEntry",
    "SavedKind",
    "SavedReport",
    "SeenFramework",
    "Skipped",
    "TeamSummary",
    "accelerator_verdict",
    "classify",
    "load_reports",
    "merge_reports",
    "probe_section",
    "read_json_file",
    "read_report",
    "report_warnings",
    "saved_report",
    "seen_framework",
]
