"""The adapter interface: a plugin package implements this to add a framework (e.g. PaddlePaddle).

An adapter names the framework's knowledge-base id, how to tell from package metadata whether it
is installed (without importing it), and which child scripts probe and benchmark it. A plugin
ships its own scripts (they must speak `probes/_proto.py`'s JSON-lines protocol) and returns
their folder from `script_root()`; it registers the class in the `fwadvisor.frameworks`
entry-point group.
"""

from __future__ import annotations

from abc import ABC
from importlib import metadata
from pathlib import Path
from typing import ClassVar

from advisor.paths import probes_root


class FrameworkAdapter(ABC):  # noqa: B024 - abstract by its class attributes, not methods
    """Describe one framework; subclasses set the class attributes."""

    id: ClassVar[str]  # knowledge-base framework id, e.g. "pytorch"
    display_name: ClassVar[str]
    import_name: ClassVar[str]  # the module the child imports, e.g. "torch"
    distributions: ClassVar[tuple[str, ...]]  # pip distributions that provide it; the first found wins
    probe_module: ClassVar[str]  # run as `python -m <probe_module>` inside script_root()
    bench_module: ClassVar[str | None] = None
    # A rough probe time (seconds) before this machine has measured one; used only to give the longest
    # probe the CPU first when there are more children than cores, never reported.
    typical_probe_s: ClassVar[float] = 1.0

    def script_root(self) -> Path:
        """The folder that holds the package of this adapter's scripts (cwd of the child)."""
        return probes_root()

    def probe_with(self) -> str | None:
        """The id of an adapter whose probe child this one's probe may share, because it imports that framework anyway.

        None (the default): a child of its own. Sharing saves a second import of a heavy framework;
        a wrong answer costs only that saving, never correctness (the script imports what it needs).
        """
        return None

    def installed(self) -> tuple[str, str] | None:
        """(distribution, version) from package metadata, or None; never imports the framework."""
        for dist in self.distributions:
            try:
                return dist, metadata.version(dist)
            except metadata.PackageNotFoundError:
                continue
        return None
