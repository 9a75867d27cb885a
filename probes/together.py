"""Run several probe scripts one after another in one child, so that a framework is imported once for all of them.

Runs as `python -m probes.together probes.fw_tensorflow probes.fw_keras`; standard library only.
Keras 3 imports its backend (TensorFlow, JAX or PyTorch), which the backend's own probe has just
imported: probing both in one process saves a second multi-second import. Before each script it
emits `{"event": "section", "module": ...}`; each script's own events follow, ending with its
`done`. The parent splits the stream at those markers (`advisor.evidence.child.split_sections`).
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback

from probes._proto import emit, exit_now


def main(modules: list[str]) -> None:
    """Run each module's `main()` in turn; a script that raises is reported and the next one still runs."""
    for name in modules:
        emit("section", module=name, t=round(time.perf_counter(), 4))
        try:
            importlib.import_module(name).main()
        except Exception as exc:  # noqa: BLE001 - one script's fault must not cost the others their answer
            emit("section_failed", module=name, error=f"{type(exc).__name__}: {exc}"[:1000],
                 traceback=traceback.format_exc(limit=3)[-2000:])
    emit("sections_end", t=round(time.perf_counter(), 4))


if __name__ == "__main__":
    main([m for m in sys.argv[1:] if m.startswith("probes.")])
    exit_now()  # the results are out; skip the frameworks' slow teardown
