"""The report: an assessment as versioned JSON (schema in advisor/schemas/) and as Markdown.

The JSON Schema is generated from the pydantic models below; `advisor/schemas/report.schema.json`
and `docs/report.schema.json` are committed copies and a test fails when they drift. The report
holds no secrets: the probe's environment is its own allow-list, and the host name (and any home
directory path, which names the user) appears only with `identify=True`.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor import __version__
from advisor.errors import ReportError
from advisor.jsonio import json_text, read_json
from advisor.knowledge.base import KnowledgeBase
from advisor.privacy import scrub
from advisor.profile import profile_to_json
from advisor.report_evidence import BenchShape, ProbeShape
from advisor.sanitize import printable
from advisor.scoring.engine import Assessment
from advisor.scoring.evidence import BENCH_FULL_AT, BENCH_WEIGHT, HARDWARE_WEIGHT
from advisor.scoring.explain import display_parts

SCHEMA_VERSION: Literal["1.0"] = "1.0"
SCHEMA_ID = "https://fwadvisor.invalid/schemas/report-1.0.json"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "report.schema.json"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Tool(_M):
    """The advisor that wrote the report."""

    name: Literal["fwadvisor"] = "fwadvisor"
    version: str


class Pack(_M):
    """A knowledge pack that was loaded."""

    name: str
    version: str
    builtin: bool
    digest: str


class Knowledge(_M):
    """The knowledge base used."""

    version: str
    packs: list[Pack]


class Machine(_M):
    """The machine the evidence comes from (host name only with --identify)."""

    hostname: str | None = None
    os: str | None = None
    arch: str | None = None
    python: str | None = None
    cpu: str | None = None
    logical_cores: int | None = None
    usable_cores: int | None = None
    memory_total_bytes: int | None = None
    gpus: list[str] = Field(default_factory=list)
    hardware: dict[str, str] = Field(default_factory=dict, description="hardware ids found -> description")


class Ahp(_M):
    """Weights derived from pairwise judgements."""

    lambda_max: float
    consistency_index: float
    consistency_ratio: float | None
    missing_pairs: int


class ProfileSection(_M):
    """The profile as written and as resolved against the knowledge base."""

    source: str
    scenario: str | None
    weight_source: Literal["profile", "scenario", "scenario+profile", "pairwise", "equal"]
    weights: dict[str, float]
    normalized_weights: dict[str, float]
    constraints: dict[str, list[str]]
    policies: list[str]
    frameworks: list[str]
    as_written: dict[str, Any]
    ahp: Ahp | None = None


class ContributionModel(_M):
    """One criterion's share of a total (contributions add up exactly to the total)."""

    criterion: str
    name: str
    weight: float = Field(ge=0, le=1)
    score: float = Field(ge=0, le=5)
    knowledge_score: float = Field(ge=0, le=5)
    measured_score: float | None = Field(default=None, ge=0, le=5)
    evidence_weight: float = Field(ge=0, le=1)
    contribution: float = Field(ge=0, le=5)
    rationale: str
    sources: list[str]
    as_of: str
    evidence: str
    figures: list[dict[str, Any]]


class RankingEntry(_M):
    """A framework's place, total and explanation."""

    rank: int = Field(ge=1)
    framework: str
    name: str
    total: float = Field(ge=0, le=5)
    topsis: float = Field(ge=0, le=1)
    topsis_rank: int = Field(ge=1)
    status: str
    installed: bool | None
    notes: list[str]
    contributions: list[ContributionModel]


class ThresholdModel(_M):
    """The smallest change of one weight that changes the winner."""

    criterion: str
    current_weight: float
    threshold_weight: float
    change: float
    raw_factor: float | None
    new_winner: str


class MonteCarlo(_M):
    """The ranking under random weight perturbations."""

    draws: int
    spread: float
    seed: int
    win_share: dict[str, float]
    mean_rank: dict[str, float]
    gap_quantiles: dict[str, float]


class SensitivitySection(_M):
    """How stable the winner is."""

    winner: str
    runner_up: str | None
    gap: float
    verdict: Literal["clear", "likely", "tie", "single"]
    tied_with: list[str]
    smallest_change: ThresholdModel | None
    thresholds: list[ThresholdModel]
    no_threshold: list[str]
    monte_carlo: MonteCarlo
    method: dict[str, float]


class ExclusionModel(_M):
    """A framework left out, and why."""

    framework: str
    kind: Literal["constraint", "not_considered"]
    reasons: list[str]


class WarningModel(_M):
    """Something to know before trusting the result."""

    code: str
    message: str
    framework: str | None = None


class RecommendationSection(_M):
    """The advice."""

    framework: str | None
    name: str | None
    verdict: Literal["clear", "likely", "tie", "single", "none"]
    tied_with: list[str]
    summary: str
    next_steps: list[str]


class Method(_M):
    """How the ranking was computed (see docs/scoring.md)."""

    primary: Literal["weighted_sum"] = "weighted_sum"
    cross_check: Literal["topsis"] = "topsis"
    bench_weight: float = BENCH_WEIGHT
    bench_full_at: int = BENCH_FULL_AT
    hardware_weight: float = HARDWARE_WEIGHT
    reference: str = "docs/scoring.md"


class Report(_M):
    """A full fwadvisor report."""

    model_config = ConfigDict(extra="forbid", title="fwadvisor report")

    schema_version: Literal["1.0"] = SCHEMA_VERSION
    generated_at: str
    tool: Tool
    knowledge: Knowledge
    machine: Machine
    probe: ProbeShape | None = Field(description="the probe's JSON (schema fwadvisor.probe/1)")
    benchmarks: BenchShape | None = Field(description="the benchmark JSON (fwadvisor.bench/1); null if skipped")
    profile: ProfileSection
    method: Method
    ranking: list[RankingEntry]
    sensitivity: SensitivitySection | None
    exclusions: list[ExclusionModel]
    warnings: list[WarningModel]
    recommendation: RecommendationSection


def report_schema() -> dict[str, Any]:
    """The JSON Schema of the report, as generated from the models (what the committed file must equal)."""
    schema = Report.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(report_schema(), indent=2, sort_keys=True) + "\n"


def anonymise(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """Drop identifying keys (host, user) and hide home folders, user and host names (`advisor.privacy.scrub`)."""
    return None if data is None else scrub(data)


def _machine(probe: dict[str, Any] | None, hardware: dict[str, str], hostname: str | None) -> Machine:
    p = probe or {}
    cpu, mem, sw = p.get("cpu") or {}, p.get("memory") or {}, p.get("software") or {}
    gpus = [str(d.get("name")) for d in (p.get("gpus") or {}).get("devices") or []]
    return Machine(
        hostname=hostname,
        os=sw.get("os"),
        arch=cpu.get("arch"),
        python=sw.get("python"),
        cpu=cpu.get("model"),
        logical_cores=cpu.get("logical_cores"),
        usable_cores=cpu.get("usable_cores"),
        memory_total_bytes=mem.get("total_bytes"),
        gpus=gpus,
        hardware=hardware,
    )


def build_report(
    assessment: Assessment,
    kb: KnowledgeBase,
    *,
    probe: dict[str, Any] | None,
    bench: dict[str, Any] | None,
    profile_source: str,
    identify: bool = False,
    hostname: str | None = None,
) -> dict[str, Any]:
    """The report as a JSON-ready dict (validated by the pydantic models on the way)."""
    r = assessment.resolved
    if identify and hostname is None:
        hostname = socket.gethostname()
    if not identify:
        hostname = None
        probe, bench = anonymise(probe), anonymise(bench)
    topsis_rank = {f: i + 1 for i, f in enumerate(assessment.topsis_order)}
    ranking = [
        RankingEntry(
            rank=i + 1,
            framework=b.framework,
            name=b.name,
            total=b.total,
            topsis=assessment.topsis[b.framework],
            topsis_rank=topsis_rank[b.framework],
            status=b.status,
            installed=b.installed,
            notes=b.notes,
            contributions=[ContributionModel(**c.to_json()) for c in b.contributions],
        )
        for i, b in enumerate(assessment.ranking)
    ]
    cons = r.constraints.model_dump(mode="json")
    report = Report(
        generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        tool=Tool(version=__version__),
        knowledge=Knowledge(version=kb.version, packs=[Pack(**p.to_json()) for p in kb.packs]),
        machine=_machine(probe, assessment.hardware, hostname),
        probe=None if probe is None else ProbeShape.model_validate(probe),
        benchmarks=None if bench is None else BenchShape.model_validate(bench),
        profile=ProfileSection(
            source=profile_source,
            scenario=r.scenario,
            weight_source=r.weight_source,  # type: ignore[arg-type]
            weights=r.weights,
            normalized_weights=r.normalized_weights,
            constraints=cons,
            policies=list(r.policies),
            frameworks=list(r.frameworks),
            as_written=profile_to_json(r.profile),
            ahp=Ahp(
                lambda_max=r.ahp.lambda_max,
                consistency_index=r.ahp.consistency_index,
                consistency_ratio=r.ahp.consistency_ratio,
                missing_pairs=r.ahp.missing_pairs,
            )
            if r.ahp
            else None,
        ),
        method=Method(),
        ranking=ranking,
        sensitivity=SensitivitySection(**assessment.sensitivity.to_json()) if assessment.sensitivity else None,
        exclusions=[ExclusionModel(**e.to_json()) for e in assessment.exclusions],
        warnings=[WarningModel(**w.to_json()) for w in assessment.warnings],
        recommendation=RecommendationSection(**assessment.recommendation.to_json()),
    )
    data = report.model_dump(mode="json")
    # Every string, not only the evidence: the profile's source path and warnings can name the home folder too.
    return data if identify else scrub(data, drop_keys=False)


def to_json_text(report: dict[str, Any]) -> str:
    """The report as strict JSON text (full float precision, so contributions add up; NaN/inf become null)."""
    return json_text(report)


def validate_report(data: Any, source: str = "<report>") -> None:
    """Check `data` against the shipped schema; `ReportError` names the first failing field."""
    import jsonschema  # deferred: only reading/validating reports needs it

    if not isinstance(data, dict):
        raise ReportError("a report must be a JSON object", file=source)
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ReportError(
            f"unsupported report schema_version {version!r} (expected {SCHEMA_VERSION!r})",
            file=source,
            field="schema_version",
        )
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in error.absolute_path).replace(".[", "[")
        raise ReportError(f"does not match the report schema: {error.message[:200]}", file=source, field=path or None)


def load_report(path: str | Path) -> dict[str, Any]:
    """Read and validate a saved report (`--from-json`, `compare`): a regular file, size- and depth-limited."""
    data = read_json(path, ReportError)
    validate_report(data, str(path))
    return data  # type: ignore[no-any-return]


def _fmt_pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def to_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: recommendation, ranking, explanations, sensitivity, exclusions, warnings."""
    out: list[str] = ["# fwadvisor report", ""]
    rec = report["recommendation"]
    out += ["## Recommendation", "", f"**{rec['summary']}**", ""]
    out += [f"- {s}" for s in rec["next_steps"]] + [""]
    prof = report["profile"]
    out += [
        "## Profile",
        "",
        f"- Source: {prof['source']}",
        f"- Scenario: {prof['scenario'] or 'none'}",
        f"- Weights ({prof['weight_source']}): "
        + ", ".join(f"{k} {_fmt_pct(v)}" for k, v in prof["normalized_weights"].items() if v > 0),
    ]
    cons = {k: v for k, v in prof["constraints"].items() if v}
    out += [f"- Constraints: {json.dumps(cons) if cons else 'none'}", ""]
    out += ["## Ranking", "", "| # | Framework | Score (0-5) | TOPSIS | Status |", "|---|---|---|---|---|"]
    for e in report["ranking"]:
        out.append(
            f"| {e['rank']} | {e['name']} | {e['total']:.2f} | {e['topsis']:.2f} (#{e['topsis_rank']}) "
            f"| {e['status']} |"
        )
    out.append("")
    for e in report["ranking"]:
        parts, total = display_parts([c["contribution"] for c in e["contributions"]])
        out += [
            f"### {e['name']}: {total:.2f}",
            "",
            "| Criterion | Weight | Score | Contribution | Evidence |",
            "|---|---|---|---|---|",
        ]
        for c, shown in zip(e["contributions"], parts, strict=True):
            measured = (
                f" (knowledge {c['knowledge_score']:g}, measured {c['measured_score']:.2f})"
                if c["measured_score"] is not None
                else ""
            )
            out.append(
                f"| {c['name']} | {_fmt_pct(c['weight'])} | {c['score']:.2f}{measured} | {shown:.2f} "
                f"| {c['evidence']} |"
            )
        out.append(f"| **Total** | 100% | | **{total:.2f}** | |")
        out.append("")
    sens = report["sensitivity"]
    if sens:
        mc = sens["monte_carlo"]
        out += [
            "## Sensitivity",
            "",
            f"- Verdict: **{sens['verdict']}**"
            + (f" (tied with {', '.join(sens['tied_with'])})" if sens["tied_with"] else ""),
            f"- Lead over {sens['runner_up']}: {sens['gap']:.3f}" if sens["runner_up"] else "- Single candidate",
            f"- Monte Carlo ({mc['draws']} draws, weights x U(1 +/- {mc['spread']}), seed {mc['seed']}): win share "
            + ", ".join(f"{k} {_fmt_pct(v)}" for k, v in mc["win_share"].items() if v > 0),
        ]
        t = sens["smallest_change"]
        if t:
            out.append(
                f"- Smallest single-weight change that changes the winner: {t['criterion']} from "
                f"{_fmt_pct(t['current_weight'])} to {_fmt_pct(t['threshold_weight'])} -> {t['new_winner']}"
            )
        out.append("")
    if report["exclusions"]:
        out += ["## Exclusions", ""]
        out += [f"- {x['framework']}: {'; '.join(x['reasons'])}" for x in report["exclusions"]] + [""]
    if report["warnings"]:
        out += ["## Warnings", ""] + [f"- [{w['code']}] {w['message']}" for w in report["warnings"]] + [""]
    m = report["machine"]
    out += [
        "## Machine",
        "",
        f"- CPU: {m['cpu'] or 'unknown'} ({m['logical_cores'] or '?'} logical cores)",
        f"- GPUs: {', '.join(m['gpus']) or 'none found'}",
        f"- Hardware: {', '.join(m['hardware']) or 'unknown (no probe)'}",
    ]
    if m["hostname"]:
        out.append(f"- Host: {m['hostname']}")
    bench = report["benchmarks"]
    out.append(
        f"- Benchmarks: {len(bench.get('results') or [])} results ({bench.get('preset')})"
        if bench
        else "- Benchmarks: not run"
    )
    kb = report["knowledge"]
    out += [
        "",
        f"_fwadvisor {report['tool']['version']}, knowledge {kb['version']} "
        f"({', '.join(p['name'] + ' ' + p['version'] for p in kb['packs'])}), {report['generated_at']}_",
        "",
    ]
    return printable("\n".join(out))  # names and messages from input may carry ESC, BEL or NUL


def write_schema_files(root: Path | None = None) -> list[Path]:
    """Regenerate the committed schema files (the package copy and the one published in docs/)."""
    root = root or Path(__file__).resolve().parent.parent
    text = schema_text()
    targets = [SCHEMA_PATH, root / "docs" / "report.schema.json"]
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return targets


if __name__ == "__main__":  # `python -m advisor.report` regenerates the schema after a model change
    for written in write_schema_files():
        print(f"wrote {written}")
