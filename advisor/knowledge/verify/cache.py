"""pip's answers to `kb verify`, kept an hour in the user cache folder (`--fresh` asks again).

One JSON file per question, named by a hash of everything that could change pip's answer: the
Python whose pip answers, the question, and every `PIP_*` variable (a changed pip.conf is not seen:
an answer lives an hour at most). Entries are read with the one checked reader and written with the
one atomic writer; an entry that is unreadable, of the wrong shape or too old is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from advisor.errors import AdvisorError

#: How long an answer is reused.
MAX_AGE_S = 3600.0
#: Bumped when the stored shape changes.
_FORMAT = 1
_LIMIT = 64 << 20
_T = TypeVar("_T", bound=BaseModel)


def cache_dir() -> Path:
    """FWADVISOR_CACHE_DIR/kb-verify, else the platform's user cache folder."""
    env = os.environ.get("FWADVISOR_CACHE_DIR")
    if env:
        return Path(env) / "kb-verify"
    import platformdirs  # deferred: only when the cache is touched

    return Path(platformdirs.user_cache_dir("fwadvisor", appauthor=False)) / "kb-verify"


def cache_key(python: str, question: list[str]) -> str:
    """The hash naming one question's entry."""
    pip_env = {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
    material = {"format": _FORMAT, "python": python, "question": question, "env": dict(sorted(pip_env.items()))}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]


def load(key: str, model: type[_T]) -> _T | None:
    """The stored answer, or None when there is none, it is too old or it cannot be read as `model`."""
    from advisor.inputs import read_input_text

    path = cache_dir() / f"{key}.json"
    try:
        data = json.loads(read_input_text(path, AdvisorError, limit=_LIMIT))
        age = time.time() - float(data["stored"])
        if not 0 <= age <= MAX_AGE_S or data.get("key") != key:
            return None
        return model.model_validate(data["answer"])
    except (AdvisorError, ValueError, KeyError, TypeError, ValidationError):
        return None


def store(key: str, answer: BaseModel) -> None:
    """Keep an answer; a cache that cannot be written is no error (the next run asks pip again)."""
    from advisor.atomic import atomic_write_text

    folder = cache_dir()
    try:
        now = time.time()
        if folder.is_dir():
            for old in folder.glob("*.json"):
                if not old.is_symlink() and now - old.stat().st_mtime > MAX_AGE_S:
                    old.unlink(missing_ok=True)
        path = folder / f"{key}.json"
        if path.is_symlink() or (path.exists() and not path.is_file()):
            return  # the writer would follow it: a planted link must not turn the cache into a file writer
        folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"key": key, "stored": now, "answer": answer.model_dump(mode="json")})
        atomic_write_text(path, text)
    except (OSError, AdvisorError):
        pass
