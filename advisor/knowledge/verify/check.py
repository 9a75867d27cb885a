"""`kb verify`: every package claim of the knowledge checked against the index through pip; drift per framework."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from advisor.errors import IndexUnreachableError, UsageError
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import DistributionClaim, Framework, InstallClaim
from advisor.knowledge.verify.lines import install_lines, parse_install_line
from advisor.knowledge.verify.pip import MIN_PIP, Pip, PipResult, redact
from advisor.knowledge.verify.targets import Target, host_platform, lowest_python, target

#: Documented in docs/knowledge.md ("kb verify --json").
JSON_SCHEMA_ID = "fwadvisor.kb_verify/1"

#: A job is what one pip call answers: (requirements, flags, with dependencies).
Job = tuple[tuple[str, ...], tuple[str, ...], bool]


@dataclass(frozen=True)
class Drift:
    """One claim the index contradicts."""

    kind: str  # latest | requires_python | wheel | install | install_line
    subject: str  # a distribution name or an install line
    target: str | None  # platform/python tag, where the claim is about one
    claimed: str
    found: str
    command: str  # the pip command that found it (URLs redacted)

    def to_json(self) -> dict[str, Any]:
        """JSON form (see docs/knowledge.md); an install line's own index URL is shown as `<url>`."""
        return dict(self.__dict__) | {"subject": redact(self.subject)}


@dataclass
class FrameworkVerdict:
    """What `kb verify` found for one framework."""

    framework: str
    checks: int = 0
    drift: list[Drift] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # install lines of the knowledge that no claim covers
    notes: list[str] = field(default_factory=list)  # parts of claims that could not be checked from here

    def to_json(self) -> dict[str, Any]:
        """JSON form (see docs/knowledge.md)."""
        return {
            "checks": self.checks,
            "drift": [d.to_json() for d in self.drift],
            "unchecked_install_lines": list(self.unchecked),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class VerifyResult:
    """Drift for every framework with package claims."""

    pip_version: str
    frameworks: dict[str, FrameworkVerdict]

    @property
    def drift_count(self) -> int:
        """How many claims drifted, over all frameworks."""
        return sum(len(v.drift) for v in self.frameworks.values())

    def to_json(self) -> dict[str, Any]:
        """The documented `kb verify --json` shape."""
        return {
            "schema": JSON_SCHEMA_ID,
            "status": "drift" if self.drift_count else "ok",
            "pip_version": self.pip_version,
            "checks": sum(v.checks for v in self.frameworks.values()),
            "drift": self.drift_count,
            "frameworks": {k: v.to_json() for k, v in self.frameworks.items()},
        }


def _show(result: PipResult) -> str:
    return " ".join(result.command)


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _targets(claim: DistributionClaim) -> list[tuple[Target, bool]]:
    """(target, claimed present) for every platform/tag the claim names; an empty tag list claims absence."""
    out: list[tuple[Target, bool]] = []
    # Absence is checked for every CPython the package ships for elsewhere (its lowest Python if none).
    shipped = sorted({t for tags in claim.wheels.values() for t in tags if t.startswith("cp") and t[-1] != "t"})
    absent = shipped or ["cp" + lowest_python(claim.requires_python).replace(".", "")]
    for platform, tags in claim.wheels.items():
        present = bool(tags)
        out += [(target(platform, tag, claim.requires_python), present) for tag in (tags or absent)]
    return out


def _dist_jobs(claim: DistributionClaim) -> list[Job]:
    jobs: list[Job] = []
    for tgt, _ in _targets(claim):
        jobs.append(((claim.name,), tuple(tgt.pip_flags()), False))
    return jobs


def _judge_distribution(claim: DistributionClaim, results: dict[Job, PipResult]) -> list[Drift]:
    drift: list[Drift] = []
    found: list[tuple[Target, PipResult, Version | None, str]] = []
    absent: list[tuple[Target, PipResult]] = []
    for (tgt, present), job in zip(_targets(claim), _dist_jobs(claim), strict=True):
        res = results[job]
        if not present:
            absent.append((tgt, res))
            continue
        hit = res.get(claim.name) if res.ok else None
        if hit is None:
            found.append((tgt, res, None, res.error or "no wheel"))
        elif not tgt.accepts(hit.filename):
            found.append((tgt, res, None, f"only {hit.filename}"))
        else:
            found.append((tgt, res, _version(hit.version), hit.filename))
    versions = [v for _, _, v, _ in found if v is not None]
    claimed = _version(claim.latest)
    if not versions:
        first = found[0][1] if found else None
        drift.append(Drift("latest", claim.name, None, claim.latest, "no wheel on any claimed platform",
                           _show(first) if first else ""))
        return drift
    newest = max(versions)
    best = next(res for _, res, v, _ in found if v == newest)
    if claimed != newest:
        drift.append(Drift("latest", claim.name, None, claim.latest, str(newest), _show(best)))
    for tgt, res, v, what in found:
        if v != newest:
            seen = f"newest there {v} ({what})" if v is not None else what
            drift.append(Drift("wheel", claim.name, tgt.label(), f"wheel at {newest}", seen, _show(res)))
    for tgt, res in absent:  # "no wheel there": none at the newest release (older ones may exist)
        wheel = res.get(claim.name) if res.ok else None
        if wheel is not None and tgt.accepts(wheel.filename) and _version(wheel.version) == newest:
            drift.append(Drift("wheel", claim.name, tgt.label(), f"no wheel at {newest}", wheel.filename, _show(res)))
    hit = best.get(claim.name)
    if hit is not None:
        drift += _judge_requires_python(claim, hit.requires_python, best)
    return drift


def _judge_requires_python(claim: DistributionClaim, found: str | None, res: PipResult) -> list[Drift]:
    claimed = claim.requires_python or ""
    try:
        same = SpecifierSet(claimed) == SpecifierSet(found or "")
    except InvalidSpecifier:
        same = claimed.replace(" ", "") == (found or "").replace(" ", "")
    if same:
        return []
    return [Drift("requires_python", claim.name, None, claimed or "(none)", found or "(none)", _show(res))]


def _install_job(claim: InstallClaim) -> Job | str:
    """The pip call for an install claim, or why it cannot be checked."""
    try:
        line = parse_install_line(claim.line)
    except ValueError as exc:
        return str(exc)
    tgt = target(claim.platform, claim.python, ">=3")
    # pip evaluates dependency markers (platform_system == "Linux") for this machine, not for --platform:
    # another platform's dependencies cannot be resolved here, so only the named requirements are checked.
    deps = claim.platform is host_platform()
    return (line.requirements, (*tgt.pip_flags(), *line.options), deps)


def _named(requirements: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for req in requirements:
        try:
            out.add(canonicalize_name(Requirement(req).name))
        except InvalidRequirement:
            continue
    return out


def _judge_install(claim: InstallClaim, job: Job, res: PipResult, notes: list[str]) -> list[Drift]:
    label = f"{claim.platform.value}/{claim.python}"
    if not res.ok:
        return [Drift("install", claim.line, label, _pins(claim.resolves), f"does not resolve: {res.error}",
                      _show(res))]
    drift = []
    resolves = claim.resolves
    if not job[2]:
        named = _named(job[0])
        skipped = [d for d in resolves if canonicalize_name(d) not in named]
        if skipped:
            notes.append(f"{claim.line} on {label}: {', '.join(skipped)} not checked (dependencies of another "
                         "platform cannot be resolved on this machine)")
        resolves = {d: v for d, v in resolves.items() if canonicalize_name(d) in named}
    for dist, version in resolves.items():
        hit = res.get(dist)
        got = hit.version if hit else "not installed by this line"
        if hit is None or _version(hit.version) != _version(version):
            drift.append(Drift("install", claim.line, label, f"{dist} {version}", f"{dist} {got}", _show(res)))
    return drift


def _pins(resolves: dict[str, str]) -> str:
    return ", ".join(f"{d} {v}" for d, v in resolves.items())


def _framework_jobs(fw: Framework) -> list[Job]:
    claims = fw.packages
    if claims is None:
        return []
    jobs = [job for c in claims.distributions for job in _dist_jobs(c)]
    jobs += [j for c in claims.installs if not isinstance(j := _install_job(c), str)]
    return jobs


def _judge_framework(fw: Framework, results: dict[Job, PipResult]) -> FrameworkVerdict:
    verdict = FrameworkVerdict(fw.id)
    claims = fw.packages
    assert claims is not None
    for dist in claims.distributions:
        verdict.checks += len(dist.wheels) + 2
        verdict.drift += _judge_distribution(dist, results)
    known = install_lines(fw)
    claimed_lines = {c.line.strip() for c in claims.installs}
    verdict.unchecked = [redact(line) for line in known if line not in claimed_lines]  # no index host
    for inst in claims.installs:
        verdict.checks += 1
        if inst.line.strip() not in known:
            verdict.drift.append(Drift("install_line", inst.line, None, "a hardware install line of the knowledge",
                                       "no such line in the knowledge", ""))
            continue
        job = _install_job(inst)
        if isinstance(job, str):
            verdict.drift.append(Drift("install", inst.line, None, _pins(inst.resolves), f"cannot check: {job}", ""))
            continue
        verdict.drift += _judge_install(inst, job, results[job], verdict.notes)
    return verdict


def run_jobs(pip: Pip, jobs: Iterable[Job], workers: int, on_done: Callable[[int, int], None] | None = None
             ) -> dict[Job, PipResult]:
    """Each distinct job once, at most `workers` pip processes at a time."""
    unique = list(dict.fromkeys(jobs))
    results: dict[Job, PipResult] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="kb-verify") as pool:
        futures = {pool.submit(pip.dry_run, reqs, flags, deps=deps): (reqs, flags, deps)
                   for reqs, flags, deps in unique}
        for n, (future, job) in enumerate(futures.items(), 1):
            results[job] = future.result()
            if on_done is not None:
                on_done(n, len(unique))
    return results


def verify_knowledge(
    kb: KnowledgeBase,
    *,
    frameworks: Iterable[str] | None = None,
    pip: Pip | None = None,
    workers: int = 4,
    on_done: Callable[[int, int], None] | None = None,
) -> VerifyResult:
    """Check every package claim; raises IndexUnreachableError when pip reaches no index at all."""
    pip = pip or Pip()
    wanted = list(frameworks) if frameworks else list(kb.frameworks)
    for fid in wanted:
        if fid not in kb.frameworks:
            raise UsageError(f"unknown framework {fid!r}; known: {', '.join(kb.frameworks)}", field="framework")
    chosen = [kb.frameworks[f] for f in wanted if kb.frameworks[f].packages is not None]
    version = pip.version()
    if version is None:
        raise IndexUnreachableError(f"`{pip.python} -m pip` does not run; kb verify asks the index through pip")
    if version < MIN_PIP:
        raise IndexUnreachableError(f"pip {version} is too old for kb verify (needs pip {MIN_PIP} or newer)")
    results = run_jobs(pip, [j for fw in chosen for j in _framework_jobs(fw)], workers, on_done)
    if results and all(r.found_nothing for r in results.values()):
        first = next(iter(results.values()))
        raise IndexUnreachableError(
            f"pip reached no package index: none of {len(results)} queries found any version "
            f"(pip: {first.error or 'no answer'})"
        )
    return VerifyResult(str(version), {fw.id: _judge_framework(fw, results) for fw in chosen})
