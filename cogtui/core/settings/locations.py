"""Where cogtui keeps its files: run history, backups, configuration, caches.

Every function only computes a path. Nothing here creates a directory: the
code that writes (History, the backup writer, the config editor) creates what
it needs, so merely asking "where is the config?" never touches the disk.
Environment overrides exist so tests, CI and people with unusual layouts can
point cogtui somewhere else without a config file.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "cogtui"
DATA_DIR_ENV = "COGTUI_DATA_DIR"
CONFIG_FILE_ENV = "COGTUI_CONFIG_FILE"
CACHE_DIR_ENV = "COGTUI_CACHE_DIR"
STATE_DIR_ENV = "COGTUI_STATE_DIR"


def _env_path(name: str) -> Path | None:
    # An empty variable counts as unset: `COGTUI_DATA_DIR= cogn ...` is a
    # common way to "clear" a variable and must not mean the current directory.
    value = os.environ.get(name)
    return Path(value).expanduser() if value else None


def user_dir(kind: str) -> str:
    """The platform's per-user folder of `kind` ("data", "config", "cache" or "state") for cogtui, as platformdirs names it."""
    return str(getattr(platformdirs, f"user_{kind}_dir")(APP_NAME))


def data_dir() -> Path:
    """`$COGTUI_DATA_DIR`, else the platform's per-user data folder."""
    return _env_path(DATA_DIR_ENV) or Path(user_dir("data"))


def config_dir() -> Path:
    return Path(user_dir("config"))


def cache_dir() -> Path:
    """`$COGTUI_CACHE_DIR`, else the platform's per-user cache folder; anything in it may be deleted at any time."""
    return _env_path(CACHE_DIR_ENV) or Path(user_dir("cache"))


def state_dir() -> Path:
    """`$COGTUI_STATE_DIR`, else the platform's per-user state folder: what cogtui remembers between starts that is
    neither a setting nor data (a notice already said)."""
    return _env_path(STATE_DIR_ENV) or Path(user_dir("state"))


def config_file() -> Path:
    """`$COGTUI_CONFIG_FILE`, else config.yaml in the config folder."""
    return _env_path(CONFIG_FILE_ENV) or config_dir() / "config.yaml"


def history_path() -> Path:
    return data_dir() / "history.sqlite3"


def backups_dir() -> Path:
    return data_dir() / "backups"


def outbox_dir() -> Path:
    """Runs kept for a history that could not take them (core/history/outbox.py), one file per history."""
    return data_dir() / "outbox"
