"""Where the run history lives: `$COGTUI_HISTORY_URL`, else `history.url` in config.yaml,
else `history.sqlite3` in the data folder (the default, as before).

A location is a file path, `sqlite://` followed by a path (`sqlite:///srv/h.sqlite3`),
or a `postgresql://` (or `postgres://`) URL for a shared database. Passwords
belong in `PGPASSWORD` or `~/.pgpass`; a URL is only ever shown with its
password replaced by `***`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from cogtui.core.history.records import HistoryConfigError
from cogtui.core.settings import locations as paths

HISTORY_URL_ENV = "COGTUI_HISTORY_URL"
POSTGRES_SCHEMES = ("postgresql", "postgres")
POSTGRES_EXTRA = "cogtui[postgres]"


def redact(url: str) -> str:
    """The URL with any password (in the authority or a `password=` parameter) replaced by ***."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.split(':', 1)[0]}:***@{host}"
        query = urlencode(
            [(k, "***" if k.lower() == "password" else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
            safe="/:*",
        )
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "<unparseable URL>"


def scrub(text: str, url: str) -> str:
    """A message about `url` with the URL's password taken out (a driver may echo parts of it)."""
    try:
        secrets = [urlsplit(url).password or ""]
        secrets += [v for k, v in parse_qsl(urlsplit(url).query) if k.lower() == "password"]
    except ValueError:
        return text.replace(url, "<URL>")
    text = text.replace(url, redact(url))
    for secret in filter(None, secrets):
        text = text.replace(secret, "***")
    return text


@dataclass(frozen=True)
class HistoryLocation:
    path: Path | None = None  # a SQLite file
    url: str | None = None  # a PostgreSQL URL (libpq syntax)

    @property
    def is_postgres(self) -> bool:
        return self.url is not None

    @property
    def display(self) -> Path | str:
        """What messages name: the file, or the URL without its password."""
        return redact(self.url) if self.url is not None else (self.path or Path())

    def check_driver(self) -> None:
        """Raise HistoryConfigError if this is a PostgreSQL history and its driver (the `postgres` extra:
        psycopg and psycopg-pool) cannot be imported: said before anything is run or written."""
        if self.url is None:
            return
        import importlib

        try:
            for name in ("psycopg", "psycopg_pool"):
                importlib.import_module(name)
        except ImportError as exc:
            raise HistoryConfigError(
                self.display,
                f"run history {self.display} is a PostgreSQL database, and this cogtui has no PostgreSQL support "
                f"({exc}); install it with the postgres extra: pip install '{POSTGRES_EXTRA}' (or pipx install "
                f"'{POSTGRES_EXTRA}', uv tool install '{POSTGRES_EXTRA}'), or unset {HISTORY_URL_ENV} and "
                "history.url to keep the history in a local file",
            ) from None

    def exists(self) -> bool:
        """False only for a SQLite file not created yet ("no runs yet" is a state, not an error)."""
        return self.url is not None or (self.path is not None and self.path.exists())


def parse_location(text: str, origin: str = HISTORY_URL_ENV) -> HistoryLocation:
    text = text.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        return HistoryLocation(path=Path(text).expanduser())
    if scheme.lower() == "sqlite":
        if not rest:
            raise HistoryConfigError(text, f"{origin}: sqlite:// needs a path, e.g. sqlite:///home/me/history.sqlite3")
        return HistoryLocation(path=Path(rest).expanduser())
    if scheme.lower() in POSTGRES_SCHEMES:
        return HistoryLocation(url=text)
    raise HistoryConfigError(
        redact(text),
        f"{origin}: {redact(text)} is not a history location cogtui knows; use a file path, "
        "sqlite:///path/to/history.sqlite3 or postgresql://user@host/dbname",
    )


def configured_url() -> tuple[str, str] | None:
    """(url, where it came from), or None for the default file."""
    env = os.environ.get(HISTORY_URL_ENV, "").strip()
    if env:
        return env, HISTORY_URL_ENV
    from cogtui.core.settings.config import load_config

    config = load_config()
    section = config.raw.get("history")
    url = section.get("url") if isinstance(section, dict) else None
    if isinstance(url, str) and url.strip():
        return url, f"{config.path}: history.url"
    return None


def default_location() -> HistoryLocation:
    configured = configured_url()
    if configured is None:
        return HistoryLocation(path=paths.history_path())
    return parse_location(*configured)
