"""Read an install line of the knowledge (`pip install -U "jax[cuda13]"`) into pip requirements and options."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from advisor.knowledge.schema import Framework

_FLAGS = {"-U", "--upgrade", "--pre", "--no-cache-dir", "-q", "--quiet"}
_VALUED = {"-i", "--index-url", "--extra-index-url", "-f", "--find-links"}


@dataclass(frozen=True)
class InstallLine:
    """The requirements of one install line and the index options it names itself."""

    requirements: tuple[str, ...]
    options: tuple[str, ...]  # passed on to pip as the line gives them (e.g. a vendor's --index-url)


def parse_install_line(line: str) -> InstallLine:
    """Split a `[python -m] pip install ...` (or `pip3`) line, never via a shell; ValueError if it cannot be checked."""
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise ValueError(f"cannot split the line: {exc}") from None
    if len(words) >= 2 and words[0].startswith("python") and words[1] == "-m":
        words = words[2:]
    if words[:1] == ["pip3"]:
        words = ["pip", *words[1:]]  # the spelling PyTorch's own pages use (`pip3 install torch --index-url ...`)
    if words[:2] != ["pip", "install"]:
        raise ValueError("not a `pip install` line")
    reqs: list[str] = []
    opts: list[str] = []
    rest = iter(words[2:])
    for word in rest:
        if word.startswith(("(", "#")):
            break  # prose after the command ("pip install x (after installing the driver)")
        if word in _FLAGS:
            if word == "--pre":
                opts.append(word)
            continue
        name, eq, value = word.partition("=")
        if name in _VALUED:
            opts += [name, value if eq else next(rest, "")]
            continue
        if word.startswith("-"):
            raise ValueError(f"option {word} is not understood by kb verify")
        if any(ch in word for ch in ";|&<>`$"):
            raise ValueError(f"{word!r} is shell syntax, not a requirement")
        reqs.append(word)
    if not reqs:
        raise ValueError("the line names no requirement")
    return InstallLine(tuple(reqs), tuple(opts))


def install_lines(fw: Framework) -> list[str]:
    """Every install line the knowledge gives for a framework (one per line of `hardware.*.install`)."""
    out: list[str] = []
    for support in fw.hardware.values():
        for line in (support.install or "").splitlines():
            if line.strip() and not line.strip().startswith("#") and line.strip() not in out:
                out.append(line.strip())
    return out
