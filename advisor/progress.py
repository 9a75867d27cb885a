"""Checklist progress: which item ids are ticked, per framework and former framework, in the user data folder.

One JSON file (`checklist-progress.json` in `advisor.paths.user_data_dir()`), rewritten atomically on
every change so a crash leaves the old file or the new one; each change reads, changes and writes it under
a file lock (`checklist-progress.json.lock`), so two runs at once cannot lose each other's ticks. A file
that cannot be read is reported as a `ProgressError` naming the file and line (the CLI prints it as one
line, exit code 2); it is never overwritten silently, because that would lose the user's ticks.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from advisor.atomic import atomic_write_text
from advisor.errors import AdvisorError
from advisor.inputs import read_input_text
from advisor.jsonio import json_text
from advisor.limits import MAX_REPORT_BYTES
from advisor.paths import user_data_dir

SCHEMA = "fwadvisor.progress/1"
FILE_NAME = "checklist-progress.json"
#: Seconds to wait for another fwadvisor that is changing ticks (each change takes milliseconds).
LOCK_TIMEOUT_S = 10.0


class ProgressError(AdvisorError):
    """The progress file exists but cannot be read or has the wrong shape."""


def progress_path() -> Path:
    """Where the progress file lives (FWADVISOR_DATA_DIR overrides the platform's data folder)."""
    return user_data_dir() / FILE_NAME


def progress_key(framework: str, from_framework: str | None) -> str:
    """The key of one checklist's progress: `jax` onboarded from `pytorch` is `jax:pytorch`; `jax:-` without."""
    return f"{framework}:{from_framework or '-'}"


class ProgressStore:
    """Read and change ticks; every change is written through at once."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else progress_path()

    def load(self) -> dict[str, dict[str, Any]]:
        """All checklists' progress: key -> {"framework", "from", "done": {item id: ISO time}}; {} if no file."""
        if not (self.path.exists() or self.path.is_symlink()):
            return {}
        text = read_input_text(self.path, ProgressError, limit=MAX_REPORT_BYTES)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProgressError(
                f"the checklist progress file is not valid JSON ({exc.msg}); fix it or delete it to start over",
                file=self.path,
                line=exc.lineno,
            ) from None
        if not isinstance(data, dict):
            raise ProgressError("the checklist progress file must hold a JSON object", file=self.path)
        schema = data.get("schema")
        if schema != SCHEMA:
            raise ProgressError(
                f"unsupported progress file schema {schema!r} (this fwadvisor reads {SCHEMA!r})",
                file=self.path,
                field="schema",
            )
        checklists = data.get("checklists", {})
        if not isinstance(checklists, dict):
            raise ProgressError("must be an object", file=self.path, field="checklists")
        for key, entry in checklists.items():
            done = entry.get("done") if isinstance(entry, dict) else None
            if not isinstance(done, dict) or not all(isinstance(k, str) for k in done):
                raise ProgressError(
                    "must be an object of item id -> time", file=self.path, field=f"checklists.{key}.done"
                )
        return checklists

    def done(self, framework: str, from_framework: str | None) -> dict[str, str]:
        """Ticked item ids of one checklist, with when they were ticked."""
        entry = self.load().get(progress_key(framework, from_framework))
        return dict(entry["done"]) if entry else {}

    def lock(self) -> Any:
        """An exclusive lock on the progress file, so two `checklist --done` at once both keep their tick."""
        from filelock import FileLock, Timeout  # deferred: only changing ticks needs it

        class _Lock(FileLock):
            def __enter__(self) -> _Lock:
                try:
                    return super().__enter__()  # type: ignore[return-value]
                except Timeout:
                    raise ProgressError(
                        f"another fwadvisor holds the lock for {LOCK_TIMEOUT_S:g} s; try again", file=self.lock_file
                    ) from None

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProgressError(f"cannot create the folder: {exc.strerror or exc}", file=self.path.parent) from None
        return _Lock(f"{self.path}.lock", timeout=LOCK_TIMEOUT_S)

    def set_done(self, framework: str, from_framework: str | None, item_id: str, done: bool = True) -> bool:
        """Tick (or untick) one item; returns whether anything changed (read, change and write under the lock)."""
        with self.lock():
            return self._set_done(framework, from_framework, item_id, done)

    def _set_done(self, framework: str, from_framework: str | None, item_id: str, done: bool) -> bool:
        checklists = self.load()
        key = progress_key(framework, from_framework)
        entry = checklists.setdefault(key, {"framework": framework, "from": from_framework, "done": {}})
        ticks: dict[str, str] = entry["done"]
        if done == (item_id in ticks):
            return False
        if done:
            ticks[item_id] = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        else:
            del ticks[item_id]
        if not ticks:
            del checklists[key]
        self._write(checklists)
        return True

    def _write(self, checklists: dict[str, dict[str, Any]]) -> None:
        atomic_write_text(self.path, json_text({"schema": SCHEMA, "checklists": checklists}, sort_keys=True))
