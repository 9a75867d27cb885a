"""What may be recorded: the one allow-list of environment variables and the one scrubber of names and paths.

Everything fwadvisor writes (probe, bench and report JSON, Markdown, the TUI's exports) takes its
environment variables from `recorded_env` and passes through `scrub` unless the user asked for
`--identify`. Names are exact, never prefixes: a prefix such as `TF_` also matches Terraform's
`TF_VAR_db_password` and `TF_TOKEN_*`, and `JAX_` matches whatever a user calls `JAX_SECRET_KEY`.
See docs/security.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

#: Recorded always: settings that change how a framework runs or what it sees; none holds a path or a secret.
RECORDED_ENV: dict[str, str] = {
    "CUDA_VISIBLE_DEVICES": "which NVIDIA GPUs CUDA programs see (changes every GPU figure)",
    "CUDA_DEVICE_ORDER": "how CUDA numbers the GPUs (PCI bus order or fastest first)",
    "NVIDIA_VISIBLE_DEVICES": "the GPUs a container runtime exposes",
    "HIP_VISIBLE_DEVICES": "which AMD GPUs HIP programs see",
    "ROCR_VISIBLE_DEVICES": "which AMD GPUs the ROCm runtime exposes",
    "ZE_AFFINITY_MASK": "which Intel GPUs Level Zero exposes",
    "ASCEND_VISIBLE_DEVICES": "which Ascend NPUs are visible",
    "TPU_ACCELERATOR_TYPE": "the TPU type (e.g. v5litepod-8)",
    "PJRT_DEVICE": "the PJRT device PyTorch/XLA uses",
    "XLA_FLAGS": "XLA compiler flags (host device count, dumps); paths in it are scrubbed",
    "XLA_PYTHON_CLIENT_PREALLOCATE": "whether JAX preallocates GPU memory",
    "XLA_PYTHON_CLIENT_MEM_FRACTION": "the share of GPU memory JAX preallocates",
    "JAX_PLATFORMS": "the backends JAX may use (cpu, cuda, tpu)",
    "JAX_ENABLE_X64": "whether JAX computes in 64-bit by default",
    "TF_CPP_MIN_LOG_LEVEL": "TensorFlow's C++ log level",
    "TF_ENABLE_ONEDNN_OPTS": "whether TensorFlow uses oneDNN kernels on CPU (changes CPU figures)",
    "TF_FORCE_GPU_ALLOW_GROWTH": "whether TensorFlow grows GPU memory instead of taking it all",
    "KERAS_BACKEND": "the backend Keras 3 runs on",
    "PYTORCH_ENABLE_MPS_FALLBACK": "whether PyTorch falls back to the CPU for ops MPS lacks",
    "OMP_NUM_THREADS": "the OpenMP thread pool size (changes every CPU figure)",
    "MKL_NUM_THREADS": "the MKL thread pool size",
    "OPENBLAS_NUM_THREADS": "the OpenBLAS thread pool size",
    "OPENBLAS_CORETYPE": "the CPU kernel OpenBLAS is forced to use",
}
#: Recorded only with --identify: paths that name the user or the host.
IDENTIFYING_ENV: dict[str, str] = {
    "CUDA_HOME": "the CUDA toolkit folder",
    "CUDA_PATH": "the CUDA toolkit folder",
    "LD_LIBRARY_PATH": "where shared libraries are looked up",
    "VIRTUAL_ENV": "the active virtual environment",
    "CONDA_PREFIX": "the active conda environment",
    "CONDA_DEFAULT_ENV": "the conda environment's name",
    "PYTHONPATH": "extra import folders",
    "TPU_NAME": "the TPU's name (often the host's)",
}
#: Keys that identify the machine or its user; dropped from recorded evidence unless --identify.
IDENTIFYING_KEYS = frozenset({"hostname", "host", "node", "nodename", "fqdn", "user", "username", "login", "uid",
                              "home"})


def recorded_env(environ: Mapping[str, str] | None = None, *, identify: bool = False) -> dict[str, str]:
    """The environment variables a report may hold: exact names from the allow-lists above, sorted."""
    env = os.environ if environ is None else environ
    names: Iterable[str] = (*RECORDED_ENV, *(IDENTIFYING_ENV if identify else ()))
    return {name: scrub_text(env[name]) if not identify else env[name] for name in sorted(names) if name in env}


def _safe(fn: Callable[[], str]) -> str | None:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - no user name in some containers
        return None


def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    import getpass
    import platform

    # Read each time (cheap), compiled once per distinct value: tests and long sessions may change HOME.
    return _compiled(os.path.expanduser("~"), _safe(getpass.getuser), platform.node())


@lru_cache(maxsize=8)
def _compiled(home: str, user: str | None, host: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    pairs: list[tuple[re.Pattern[str], str]] = []
    if home not in ("", "/", "~"):
        pairs.append((re.compile(re.escape(home.rstrip("/")) + r"(?=/|\b|$)"), "~"))
    # Anyone's home folder names a user, not only ours (a report may quote a colleague's path).
    pairs.append((re.compile(r"/(?:home|Users)/[^/\s'\"]+"), "/home/<user>"))
    names = [(user, "<user>"), (host, "<host>")]
    if host and "." in host:
        names.append((host.split(".", 1)[0], "<host>"))  # the short name of a fully qualified host
    pairs.extend(_name_pattern(value, label) for value, label in names if _hideable(value))
    return tuple(pairs)


def _hideable(value: str | None) -> bool:
    # A one- or two-letter name would blank out ordinary words, and "root"/"localhost" identify nobody.
    # A name that is one of the tool's own words (a user `pytorch`, a host `gpu` or `team`) identifies
    # nobody either, and hiding it would rewrite framework ids and schema codes: the advice itself.
    return (bool(value) and len(value or "") >= 3 and value not in ("root", "localhost")
            and (value or "").lower() not in own_words())


@lru_cache(maxsize=1)
def own_words() -> frozenset[str]:
    """Every id and code the tool writes: the shipped knowledge's ids and names, and the schemas' literal values."""
    import json
    from pathlib import Path

    from advisor.knowledge import load_knowledge

    words: set[str] = set()

    def literals(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("enum", "const"):
                    words.update(str(v) for v in (value if isinstance(value, list) else [value]))
                else:
                    literals(value)
        elif isinstance(node, list):
            for item in node:
                literals(item)

    for schema in (Path(__file__).resolve().parent / "schemas").glob("*.schema.json"):
        literals(json.loads(schema.read_text(encoding="utf-8")))
    kb = load_knowledge(include_user=False)
    for table in (kb.frameworks, kb.criteria, kb.domains, kb.targets, kb.serving, kb.scenarios, kb.concepts):
        words.update(table)
        words.update(str(getattr(entry, "name", "")) for entry in table.values())
    from advisor.knowledge.schema import Hardware, Os, Support

    words.update(member.value for enum in (Hardware, Os, Support) for member in enum)
    # The parts of an id too (`gpu` of `intel_gpu`): the sentences about hardware are made of them.
    parts = {part for w in words for part in re.split(r"[_\-\s]+", w)}
    return frozenset(w.lower() for w in words | parts if w)


def _name_pattern(value: str | None, label: str) -> tuple[re.Pattern[str], str]:
    # Bounded by letters and digits only: `alice_runs/`, `report-bighost.json` and `bighost.lan` name them too.
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(value or "") + r"(?![A-Za-z0-9])", re.IGNORECASE), label


def scrub_text(text: str, hide: Iterable[str] = ()) -> str:
    """`text` with the home folder as `~` and any home folder, this user's and this host's names hidden.

    `hide`: more names to hide as `<host>` (the rendezvous hosts and job id of a multi-node run).
    """
    for pattern, label in (*_patterns(), *(_name_pattern(v, "<host>") for v in hide if _hideable(v))):
        text = pattern.sub(label, text)
    return text


def allowed_env(env: Mapping[Any, Any], *, identify: bool = False) -> dict[str, str]:
    """An `env` mapping read from a file, cut to what a live run would record: allow-listed names, text values."""
    names = {*RECORDED_ENV, *(IDENTIFYING_ENV if identify else ())}
    return {k: v for k, v in env.items() if k in names and isinstance(v, str)}


def allowed_evidence(value: Any, *, identify: bool = False) -> Any:
    """Saved evidence (a report's probe or benchmarks) with every `env` mapping cut as a live run would record it.

    Re-scoring a report from another machine must not carry its other variables forward, with or without
    `--identify`: a foreign report may hold anything under any `env`, whatever its value types.
    """
    if isinstance(value, dict):
        return {k: allowed_env(v, identify=identify) if k == "env" and isinstance(v, dict)
                else allowed_evidence(v, identify=identify) for k, v in value.items()}
    if isinstance(value, list):
        return [allowed_evidence(v, identify=identify) for v in value]
    return value


def scrub(value: Any, *, drop_keys: bool = True, hide: tuple[str, ...] = ()) -> Any:
    """Scrub every string in a JSON-like value; with `drop_keys`, drop identifying keys (host, user) too.

    An `env` mapping (probe `software.env`, bench `environment.env`) keeps only `RECORDED_ENV` names, so a report
    saved by an older fwadvisor that recorded by prefix does not carry `TF_VAR_*` on when it is re-scored.
    """
    if isinstance(value, dict):
        return {scrub_text(k, hide) if isinstance(k, str) else k:
                scrub(allowed_env(v) if k == "env" and isinstance(v, dict) else v, drop_keys=drop_keys, hide=hide)
                for k, v in value.items() if not (drop_keys and str(k).lower() in IDENTIFYING_KEYS)}
    if isinstance(value, list | tuple):
        return [scrub(v, drop_keys=drop_keys, hide=hide) for v in value]
    if isinstance(value, str):
        return scrub_text(value, hide)
    return value
