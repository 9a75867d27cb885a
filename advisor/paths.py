"""Where the shipped data (knowledge base, probe scripts) and the user's own files live."""

from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _data(name: str) -> Path:
    # In a wheel the data ships inside the package (advisor/_data/<name>, see pyproject's
    # force-include); in a source checkout or editable install it sits beside the package.
    packaged = _PKG / "_data" / name
    return packaged if packaged.is_dir() else _PKG.parent / name


def knowledge_dir() -> Path:
    """The shipped knowledge base."""
    return _data("knowledge")


def probes_root() -> Path:
    """The folder that holds the `probes` package (child processes run `python -m probes.X` there)."""
    return _data("probes").parent


def _platformdirs_user(kind: str) -> Path:
    # Deferred import: platformdirs is only needed when user files are touched, not for --help.
    import platformdirs

    if kind == "config":
        return Path(platformdirs.user_config_dir("fwadvisor", appauthor=False))
    return Path(platformdirs.user_data_dir("fwadvisor", appauthor=False))


def user_config_dir() -> Path:
    """The user's config folder (FWADVISOR_CONFIG_DIR overrides, for tests and fleets)."""
    env = os.environ.get("FWADVISOR_CONFIG_DIR")
    return Path(env) if env else _platformdirs_user("config")


def user_data_dir() -> Path:
    """The user's data folder: checklist progress, last profile (FWADVISOR_DATA_DIR overrides)."""
    env = os.environ.get("FWADVISOR_DATA_DIR")
    return Path(env) if env else _platformdirs_user("data")


def user_packs_dir() -> Path:
    """Overlay packs the user installed: one folder per pack."""
    return user_config_dir() / "packs"
