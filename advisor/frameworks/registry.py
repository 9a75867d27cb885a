"""Find framework adapters through the `fwadvisor.frameworks` entry-point group."""

from __future__ import annotations

import sys
from functools import cache
from importlib import metadata

from advisor.errors import UsageError
from advisor.frameworks.base import FrameworkAdapter
from advisor.sanitize import echo

GROUP = "fwadvisor.frameworks"


@cache
def adapters() -> dict[str, FrameworkAdapter]:
    """All adapters, built-ins first; a plugin that fails to load is skipped with a warning on stderr."""
    from advisor.frameworks.builtin import JaxAdapter, KerasAdapter, MlxAdapter, PyTorchAdapter, TensorFlowAdapter

    builtin = (PyTorchAdapter, JaxAdapter, TensorFlowAdapter, KerasAdapter, MlxAdapter)
    found: dict[str, FrameworkAdapter] = {a.id: a() for a in builtin}
    for ep in metadata.entry_points(group=GROUP):
        try:
            cls = ep.load()
            adapter = cls()
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop the advisor
            print(f"fwadvisor: warning: framework plugin {ep.name!r} failed to load: {exc}", file=sys.stderr)
            continue
        if isinstance(adapter, FrameworkAdapter):
            found.setdefault(adapter.id, adapter)
    return found


def get_adapter(framework: str) -> FrameworkAdapter:
    """The adapter for a framework id; a clear usage error if there is none."""
    table = adapters()
    if framework not in table:
        raise UsageError(f"no adapter for framework {echo(framework)}; known: {', '.join(table)}", field="--framework")
    return table[framework]
