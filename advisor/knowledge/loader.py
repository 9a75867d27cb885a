"""Load, validate and merge knowledge packs: the shipped base first, then overlay packs in order.

Precedence (last wins): the shipped base < packs in the user config directory (alphabetical) <
`--kb DIR` packs in the order given. An entry replaces the entry with the same key (framework,
criterion, scenario, concept, target and policy by `id`; migrations by `from`/`to`; routes by
`target`/`framework`; onboarding by `framework`). `score_overrides` replace one score in place.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from advisor.errors import KnowledgeError, validation_words
from advisor.inputs import read_input_bytes
from advisor.knowledge.base import KnowledgeBase, Origin, PackInfo
from advisor.knowledge.consistency import derive_stewardship
from advisor.knowledge.schema import (
    ConceptsFile,
    CriteriaFile,
    DeploymentFile,
    DomainsFile,
    Framework,
    MigrationFile,
    PackFile,
    ScenariosFile,
    StewardshipFile,
)
from advisor.limits import MAX_YAML_BYTES
from advisor.paths import knowledge_dir, user_packs_dir
from advisor.yamlio import LineDict, line_of, load_yaml_file

M = TypeVar("M", bound=BaseModel)

#: Files a pack may hold, besides `frameworks/*.yaml`.
PACK_FILES: dict[str, type[BaseModel]] = {
    "pack.yaml": PackFile,
    "criteria.yaml": CriteriaFile,
    "concepts.yaml": ConceptsFile,
    "migration.yaml": MigrationFile,
    "deployment.yaml": DeploymentFile,
    "scenarios.yaml": ScenariosFile,
    "domains.yaml": DomainsFile,
    "stewardship.yaml": StewardshipFile,
}


def _field_path(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_file(path: Path, model: type[M]) -> tuple[M, Any]:
    """Load one YAML file into `model`; errors name the file, line and field path."""
    raw = load_yaml_file(path, KnowledgeError)
    if not isinstance(raw, dict):
        raise KnowledgeError("expected a mapping at the top of the file", file=path, line=getattr(raw, "line", 1))
    try:
        return model.model_validate(raw), raw
    except ValidationError as exc:
        # A misspelt key shows up as both "unknown" and "missing": name the misspelling first.
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        err = errors[0]
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        # pydantic reports enum-keyed dict errors as (field, key, "[key]"); keep what maps to the file.
        clean = [p for p in loc if not (isinstance(p, str) and p.startswith("["))]
        msg = validation_words(err)
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "missing":
            msg = "required field is missing"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise KnowledgeError(
            msg + more, file=path, line=line_of(raw, clean), field=_field_path(clean) or None
        ) from None


@dataclass
class _Entry:
    value: Any
    origin: Origin


@dataclass
class _Merged:
    packs: list[PackInfo] = field(default_factory=list)
    frameworks: dict[str, _Entry] = field(default_factory=dict)
    criteria: dict[str, _Entry] = field(default_factory=dict)
    concepts: dict[str, _Entry] = field(default_factory=dict)
    migrations: dict[tuple[str, str], _Entry] = field(default_factory=dict)
    onboarding: dict[str, _Entry] = field(default_factory=dict)
    targets: dict[str, _Entry] = field(default_factory=dict)
    routes: dict[tuple[str, str], _Entry] = field(default_factory=dict)
    engines: dict[str, _Entry] = field(default_factory=dict)
    scenarios: dict[str, _Entry] = field(default_factory=dict)
    policies: dict[str, _Entry] = field(default_factory=dict)
    overrides: list[_Entry] = field(default_factory=list)
    domains: dict[str, _Entry] = field(default_factory=dict)
    stewardship: dict[str, _Entry] = field(default_factory=dict)
    serving: dict[str, _Entry] = field(default_factory=dict)
    concept_sources: list[str] = field(default_factory=list)


def _items(raw: Any, key: str) -> list[Any]:
    value = raw.get(key) if isinstance(raw, dict) else None
    return value if isinstance(value, list) else []


def _origin(path: Path, raw: Any, key: str, index: int) -> Origin:
    return Origin(str(path), line_of(raw, (key, index)), raw[key][index] if _items(raw, key) else None)


def _add(
    into: dict[Any, _Entry], items: Sequence[Any], key: Callable[[Any], Any], path: Path, raw: Any, name: str
) -> None:
    """Put each item of one list of a file into `into` by its key (a later file's entry replaces an earlier one)."""
    for i, item in enumerate(items):
        into[key(item)] = _Entry(item, _origin(path, raw, name, i))


def _present(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _listing(directory: Path, pattern: str) -> list[Path]:
    # iterdir, not glob: glob hides an unreadable folder as an empty one.
    try:
        return [p for p in directory.iterdir() if fnmatch.fnmatch(p.name, pattern)]
    except OSError as exc:
        raise KnowledgeError(f"cannot list the folder: {exc.strerror or exc}", file=directory) from None


def _load_pack(directory: Path, merged: _Merged, *, base: bool) -> None:
    if not directory.is_dir():
        raise KnowledgeError("knowledge pack folder does not exist", file=directory)
    digest = hashlib.sha256()
    pack_path = directory / "pack.yaml"
    if not pack_path.is_file():
        raise KnowledgeError("a knowledge pack needs a pack.yaml (name, version)", file=pack_path)
    # Present means present: a FIFO, a dangling link or a link loop under a pack file's name is refused by the
    # reader with one line, never skipped silently or read into a hang.
    files = [directory / name for name in PACK_FILES if _present(directory / name)]
    fw_dir = directory / "frameworks"
    fw_files = sorted(_listing(fw_dir, "*.yaml")) if fw_dir.is_dir() else []
    known = set(PACK_FILES) | {"frameworks", "README.md"}
    for child in sorted(_listing(directory, "*")):
        if child.name.startswith(".") or child.name in known:
            continue
        if child.suffix in (".yaml", ".yml"):
            raise KnowledgeError(
                f"unexpected file in knowledge pack (expected one of: {', '.join(PACK_FILES)}, frameworks/*.yaml)",
                file=child,
            )
    pack: PackFile | None = None
    root = os.path.realpath(directory)
    for path in files + fw_files:
        # A link out of the pack would read any file (and quote its first line in the error, e.g. /etc/shadow).
        if os.path.commonpath([root, os.path.realpath(path)]) != root:
            raise KnowledgeError("is a symbolic link out of the knowledge pack; copy the file into the pack",
                                 file=path)
        digest.update(path.name.encode())
        digest.update(read_input_bytes(path, KnowledgeError, limit=MAX_YAML_BYTES))
        if path.parent == fw_dir:
            fw, raw = parse_file(path, Framework)
            merged.frameworks[fw.id] = _Entry(fw, Origin(str(path), getattr(raw, "line", 1), raw))
            continue
        model = PACK_FILES[path.name]
        parsed, raw = parse_file(path, model)
        if isinstance(parsed, PackFile):
            pack = parsed
            _add(merged.policies, parsed.policies, lambda x: x.id, path, raw, "policies")
            for i, ov in enumerate(parsed.score_overrides):
                merged.overrides.append(_Entry(ov, _origin(path, raw, "score_overrides", i)))
        elif isinstance(parsed, CriteriaFile):
            _add(merged.criteria, parsed.criteria, lambda x: x.id, path, raw, "criteria")
        elif isinstance(parsed, ConceptsFile):
            _add(merged.concepts, parsed.concepts, lambda x: x.id, path, raw, "concepts")
            merged.concept_sources.extend(str(s) for s in parsed.sources)
        elif isinstance(parsed, MigrationFile):
            _add(merged.migrations, parsed.migrations, lambda x: (x.from_, x.to), path, raw, "migrations")
            _add(merged.onboarding, parsed.onboarding, lambda x: x.framework, path, raw, "onboarding")
        elif isinstance(parsed, DeploymentFile):
            _add(merged.targets, parsed.targets, lambda x: x.id, path, raw, "targets")
            _add(merged.routes, parsed.routes, lambda x: (x.target, x.framework), path, raw, "routes")
            _add(merged.engines, parsed.engines, lambda x: x.id, path, raw, "engines")
        elif isinstance(parsed, ScenariosFile):
            _add(merged.scenarios, parsed.scenarios, lambda x: x.id, path, raw, "scenarios")
        elif isinstance(parsed, DomainsFile):
            _add(merged.domains, parsed.domains, lambda x: x.id, path, raw, "domains")
        elif isinstance(parsed, StewardshipFile):
            _add(merged.stewardship, parsed.frameworks, lambda x: x.framework, path, raw, "frameworks")
            _add(merged.serving, parsed.serving, lambda x: x.id, path, raw, "serving")
    assert pack is not None
    merged.packs.append(
        PackInfo(
            name=pack.name, version=pack.version, path=str(directory), builtin=base, digest=digest.hexdigest()[:16]
        )
    )


def _fail(origin: Origin, field_loc: Sequence[str | int], message: str) -> KnowledgeError:
    line = line_of(origin.raw, field_loc) if isinstance(origin.raw, LineDict) else origin.line
    return KnowledgeError(message, file=origin.file, line=line or origin.line, field=_field_path(field_loc) or None)


def _check(merged: _Merged) -> None:
    """Cross-file rules: references resolve, every framework is scored on every criterion."""
    criteria = set(merged.criteria)
    frameworks = set(merged.frameworks)
    targets = set(merged.targets)
    if not criteria:
        raise KnowledgeError("the knowledge base defines no criteria", file=merged.packs[0].path)
    for fid, entry in merged.frameworks.items():
        fw: Framework = entry.value
        for cid in fw.scores:
            if cid not in criteria:
                raise _fail(entry.origin, ("scores", cid), f"unknown criterion {cid!r}")
        missing = sorted(criteria - set(fw.scores))
        if missing:
            raise _fail(entry.origin, ("scores",), f"framework {fid!r} has no score for: {', '.join(missing)}")
        for hw, support in fw.hardware.items():
            for cid in support.scores:
                if cid not in criteria:
                    raise _fail(entry.origin, ("hardware", hw.value, "scores", cid), f"unknown criterion {cid!r}")
    for crit_entry in merged.criteria.values():
        scale = crit_entry.value.scale
        if 0 not in scale or 5 not in scale:
            raise _fail(crit_entry.origin, ("scale",), "the scale must say what 0 and 5 mean")
    for concept_entry in merged.concepts.values():
        for fid in concept_entry.value.terms:
            if fid not in frameworks:
                raise _fail(concept_entry.origin, ("terms", fid), f"unknown framework {fid!r}")
    for (src, dst), m_entry in merged.migrations.items():
        for key, fid in (("from", src), ("to", dst)):
            if fid not in frameworks:
                raise _fail(m_entry.origin, (key,), f"unknown framework {fid!r}")
        if src == dst:
            raise _fail(m_entry.origin, ("to",), "a migration must go to another framework")
    for ob_entry in merged.onboarding.values():
        if ob_entry.value.framework not in frameworks:
            raise _fail(ob_entry.origin, ("framework",), f"unknown framework {ob_entry.value.framework!r}")
    for r_entry in merged.routes.values():
        if r_entry.value.target not in targets:
            raise _fail(r_entry.origin, ("target",), f"unknown deployment target {r_entry.value.target!r}")
        if r_entry.value.framework not in frameworks:
            raise _fail(r_entry.origin, ("framework",), f"unknown framework {r_entry.value.framework!r}")
    for e_entry in merged.engines.values():
        for i, tid in enumerate(e_entry.value.targets):
            if tid not in targets:
                raise _fail(e_entry.origin, ("targets", i), f"unknown deployment target {tid!r}")
        for fid in e_entry.value.feeds:
            if fid not in frameworks:
                raise _fail(e_entry.origin, ("feeds", fid), f"unknown framework {fid!r}")
    constrained = [(e, ("constraints",)) for e in merged.scenarios.values()]
    constrained += [(e, ("constraints",)) for e in merged.policies.values()]
    for s_entry in merged.scenarios.values():
        for cid in s_entry.value.weights:
            if cid not in criteria:
                raise _fail(s_entry.origin, ("weights", cid), f"unknown criterion {cid!r}")
        if s_entry.value.weights and not any(w > 0 for w in s_entry.value.weights.values()):
            raise _fail(s_entry.origin, ("weights",), "at least one weight must be positive")
    for c_entry, loc in constrained:
        cons = c_entry.value.constraints
        for i, tid in enumerate(cons.must_deploy_to):
            if tid not in targets:
                raise _fail(c_entry.origin, (*loc, "must_deploy_to", i), f"unknown deployment target {tid!r}")
        for i, fid in enumerate(cons.exclude):
            if fid not in frameworks:
                raise _fail(c_entry.origin, (*loc, "exclude", i), f"unknown framework {fid!r}")
    for d_entry in merged.domains.values():
        for fid in d_entry.value.ecosystem:
            if fid not in frameworks:
                raise _fail(d_entry.origin, ("ecosystem", fid), f"unknown framework {fid!r}")
    for st_entry in merged.stewardship.values():
        if st_entry.value.framework not in frameworks:
            raise _fail(st_entry.origin, ("framework",), f"unknown framework {st_entry.value.framework!r}")
    for sv_entry in merged.serving.values():
        for i, fid in enumerate(sv_entry.value.frameworks):
            if fid not in frameworks:
                raise _fail(sv_entry.origin, ("frameworks", i), f"unknown framework {fid!r}")
    for o_entry in merged.overrides:
        ov = o_entry.value
        if ov.framework not in frameworks:
            raise _fail(o_entry.origin, ("framework",), f"unknown framework {ov.framework!r}")
        if ov.criterion not in criteria:
            raise _fail(o_entry.origin, ("criterion",), f"unknown criterion {ov.criterion!r}")


def default_pack_dirs(
    extra: Iterable[str | Path] = (), *, include_user: bool = True, base: Path | None = None
) -> list[Path]:
    """The packs to load, in precedence order (see module docstring); `base` replaces the shipped base (tests)."""
    dirs = [Path(base) if base is not None else knowledge_dir()]
    if include_user and not os.environ.get("FWADVISOR_NO_USER_PACKS"):
        user = user_packs_dir()
        if user.is_dir():
            dirs += sorted(p for p in user.iterdir() if p.is_dir() and (p / "pack.yaml").is_file())
    dirs += [Path(d) for d in extra]
    return dirs


def load_knowledge(
    packs: Iterable[str | Path] = (), *, include_user: bool = True, base: Path | None = None
) -> KnowledgeBase:
    """Load the shipped base (or `base`) plus overlay packs; raise `KnowledgeError` on the first problem."""
    dirs = default_pack_dirs(packs, include_user=include_user, base=base)
    merged = _Merged()
    for i, directory in enumerate(dirs):
        _load_pack(Path(directory), merged, base=(i == 0))
    _check(merged)
    frameworks = {k: e.value for k, e in merged.frameworks.items()}
    for o_entry in merged.overrides:
        ov = o_entry.value
        fw = frameworks[ov.framework]
        frameworks[ov.framework] = fw.model_copy(update={"scores": {**fw.scores, ov.criterion: ov.score}})
    return KnowledgeBase(
        packs=tuple(merged.packs),
        frameworks=frameworks,
        criteria={k: e.value for k, e in merged.criteria.items()},
        concepts={k: e.value for k, e in merged.concepts.items()},
        concept_sources=tuple(dict.fromkeys(merged.concept_sources)),
        migrations={k: e.value for k, e in merged.migrations.items()},
        onboarding={k: e.value for k, e in merged.onboarding.items()},
        targets={k: e.value for k, e in merged.targets.items()},
        routes={k: e.value for k, e in merged.routes.items()},
        engines={k: e.value for k, e in merged.engines.items()},
        scenarios={k: e.value for k, e in merged.scenarios.items()},
        policies={k: e.value for k, e in merged.policies.items()},
        origins={("framework", k): e.origin.where() for k, e in merged.frameworks.items()},
        domains={k: e.value for k, e in merged.domains.items()},
        # What stewardship.yaml leaves out (per-OS support, multi_backend) the framework file states once.
        stewardship={k: derive_stewardship(e.value, frameworks.get(k)) for k, e in merged.stewardship.items()},
        serving={k: e.value for k, e in merged.serving.items()},
    )


def validate_dirs(dirs: Sequence[str | Path]) -> KnowledgeBase:
    """`kb validate`: each dir is loaded on top of the shipped base (the base alone if none given)."""
    return load_knowledge(dirs, include_user=False)
