"""Judge one framework's package claims and facts against the file lists pip gave: drift, stale facts, unchecked."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from advisor.knowledge.schema import DistributionClaim, Framework, InstallClaim
from advisor.knowledge.verify import releases
from advisor.knowledge.verify.answers import FileList, PipFailed
from advisor.knowledge.verify.install import claimed_names, resolve
from advisor.knowledge.verify.lines import install_lines, parse_install_line
from advisor.knowledge.verify.results import Drift, DriftKind, FrameworkVerdict, NotChecked, Stale, Unchecked
from advisor.knowledge.verify.targets import Target, lowest_python, target

if TYPE_CHECKING:
    from advisor.knowledge.verify.check import Answers


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
        out += [(target(platform, tag, claim.requires_python), bool(tags)) for tag in (tags or absent)]
    return out


def _judge_distribution(claim: DistributionClaim, files: FileList, verdict: FrameworkVerdict) -> None:
    name = canonicalize_name(claim.name)
    plain = f"python -m pip index versions {name}"
    claimed = _version(claim.latest)
    pre = bool(claimed and claimed.is_prerelease)
    newest = releases.latest(files, pre)
    if newest is None:
        verdict.drift.append(Drift(DriftKind.LATEST, name, None, claim.latest, "no release on the configured indexes",
                                   plain))
        return
    if claimed != newest:
        verdict.drift.append(Drift(DriftKind.LATEST, name, None, claim.latest, str(newest), plain + " --pre"
                                   if pre else plain))
    for tgt, present in _targets(claim):
        there = releases.for_target(files, tgt, pre)
        at_latest = next((f for v, f in there if v == newest), None)
        if present and at_latest is None:
            seen = f"newest there {there[0][0]} ({there[0][1].filename})" if there else "no wheel"
            verdict.drift.append(Drift(DriftKind.WHEEL, name, tgt.label(), f"wheel at {newest}", seen,
                                       tgt.pip_command(name)))
        elif not present and at_latest is not None:
            verdict.drift.append(Drift(DriftKind.WHEEL, name, tgt.label(), f"no wheel at {newest}",
                                       at_latest.filename, tgt.pip_command(name)))
    known, found = releases.requires_python(releases.of_version(files, newest))
    if not known:
        verdict.not_checked.append(NotChecked(Unchecked.NO_REQUIRES_PYTHON, name, str(newest)))
        return
    want = claim.requires_python or ""
    try:
        same = SpecifierSet(want) == SpecifierSet(found or "")
    except InvalidSpecifier:
        same = want.replace(" ", "") == (found or "").replace(" ", "")
    if not same:
        verdict.drift.append(Drift(DriftKind.REQUIRES_PYTHON, name, None, want or "(none)", found or "(none)", plain))


def _judge_install(claim: InstallClaim, answers: Answers, verdict: FrameworkVerdict) -> None:
    try:
        line = parse_install_line(claim.line)
        reqs = tuple(Requirement(r) for r in line.requirements)
    except (ValueError, InvalidRequirement) as exc:
        verdict.not_checked.append(NotChecked(Unchecked.CANNOT_READ, claim.line, str(exc)))
        return
    tgt = target(claim.platform, claim.python, ">=3")
    opts = line.options

    def files(name: str) -> FileList:
        got = answers.files(name, opts)
        if isinstance(got, PipFailed) or got.unreachable or not all(got.reached(u) for u in _own_indexes(opts)):
            raise _OutOfReach(name)
        return got

    try:
        res = resolve(reqs, claimed_names(claim.resolves), tgt, "--pre" in opts, files,
                      lambda wheel: answers.metadata(wheel, opts), lambda names: answers.prefetch(names, opts))
    except _OutOfReach as exc:
        reason = Unchecked.VENDOR_INDEX if opts else Unchecked.NOT_ON_INDEX
        verdict.not_checked.append(NotChecked(reason, claim.line, f"{exc.args[0]}: its index is not reachable here"))
        return
    except PipFailed as exc:
        verdict.not_checked.append(NotChecked(Unchecked.CANNOT_READ, claim.line, exc.message))
        return
    label = tgt.label()
    pins = ", ".join(f"{d} {v}" for d, v in claim.resolves.items())
    shown = f"python -m pip install --dry-run {' '.join(line.requirements)} (for {label})"
    if res.error:
        verdict.drift.append(Drift(DriftKind.INSTALL, claim.line, label, pins, f"does not resolve: {res.error}",
                                   shown))
        return
    for dist, want in claim.resolves.items():
        got = res.installs.get(canonicalize_name(dist))
        if got is None or got != _version(want):
            verdict.drift.append(Drift(DriftKind.INSTALL, claim.line, label, f"{dist} {want}",
                                       f"{dist} {got or 'not installed by this line'}", shown))


def _own_indexes(options: tuple[str, ...]) -> list[str]:
    """The index URLs an install line names itself (-i, --index-url, --extra-index-url)."""
    return [options[i + 1] for i, o in enumerate(options[:-1]) if o in ("-i", "--index-url", "--extra-index-url")]


class _OutOfReach(Exception):
    """A requirement's index did not answer."""


def _dated_facts(fw: Framework) -> list[tuple[str, dt.date]]:
    facts = [("as_of", fw.as_of)] + [(f"scores.{k}", s.as_of) for k, s in fw.scores.items()]
    for hw, support in fw.hardware.items():  # routes and install lines: what moves with each release
        if support.as_of is not None:
            facts.append((f"hardware.{hw.value}", support.as_of))
        facts += [(f"hardware.{hw.value}.generations.{g}", gen.as_of) for g, gen in support.generations.items()]
        facts += [(f"hardware.{hw.value}.scores.{k}", s.as_of) for k, s in support.scores.items()]
    facts += [(f"platforms.{os_.value}", note.as_of) for os_, note in fw.platforms.items()]
    if fw.packages is not None:
        facts += [(f"packages.distributions.{d.name}", d.as_of) for d in fw.packages.distributions]
        facts += [(f"packages.installs[{i}]", c.as_of) for i, c in enumerate(fw.packages.installs)]
    return facts


def _currency(fw: Framework, answers: Answers, verdict: FrameworkVerdict) -> None:
    from advisor.knowledge.verify.check import questions

    facts = _dated_facts(fw)
    for name, options in questions(fw):
        got = answers.files(name, options)
        if options:  # a line's own index: judged with the configured indexes' answer, unless out of reach
            if isinstance(got, PipFailed) or not all(got.reached(u) for u in _own_indexes(options)):
                verdict.not_checked.append(NotChecked(Unchecked.VENDOR_INDEX, name,
                                                      f"the index of `pip install {name} {' '.join(options)}`"))
            continue
        if isinstance(got, PipFailed) or got.unreachable:
            verdict.not_checked.append(NotChecked(Unchecked.NOT_ON_INDEX, name, "no index answered"))
            continue
        newest = releases.latest(got)
        if newest is None:
            verdict.not_checked.append(NotChecked(Unchecked.NOT_ON_INDEX, name, "no configured index has it"))
            continue
        day = releases.released(releases.of_version(got, newest))
        if day is None:
            verdict.not_checked.append(NotChecked(Unchecked.NO_DATE, name, f"{newest}: the index gives no date"))
            continue
        older = tuple(where for where, as_of in facts if as_of < day)
        if older:
            verdict.stale.append(Stale(name, str(newest), day, older))


def judge_framework(fw: Framework, answers: Answers) -> FrameworkVerdict:
    """Drift of the framework's package claims, facts older than a newer release, and what was not checkable."""
    verdict = FrameworkVerdict(fw.id)
    claims = fw.packages
    known = install_lines(fw)
    if claims is not None:
        for dist in claims.distributions:
            verdict.checks += len(dist.wheels) + 2
            got = answers.files(dist.name)
            if isinstance(got, PipFailed):
                verdict.not_checked.append(NotChecked(Unchecked.CANNOT_READ, dist.name, got.message))
            else:
                _judge_distribution(dist, got, verdict)
        claimed_lines = {c.line.strip() for c in claims.installs}
        verdict.not_checked += [NotChecked(Unchecked.NO_CLAIM, line) for line in known if line not in claimed_lines]
        for inst in claims.installs:
            verdict.checks += 1
            if inst.line.strip() not in known:
                verdict.drift.append(Drift(DriftKind.INSTALL_LINE, inst.line, None,
                                           "a hardware install line of the knowledge",
                                           "no such line in the knowledge", ""))
                continue
            _judge_install(inst, answers, verdict)
    _currency(fw, answers, verdict)
    verdict.checks += 1
    return verdict
