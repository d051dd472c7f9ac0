"""The site's configuration: where it listens, where it stores, and its protocol limits.

One frozen value built from the command line and the environment, so the app factory, the
tests and ``heartsuit serve`` all describe a server the same way.

- ``DATABASE_URL`` (any SQLAlchemy async URL, e.g. ``postgresql+asyncpg://…``) wins over
- ``HEARTSUIT_DB`` (a SQLite file path), which wins over the default ``heartsuit.sqlite3`` in the
  current directory.
- ``HEARTSUIT_HEARTS_PACE_MS`` and ``HEARTSUIT_HEARTS_GRACE_MS`` (whole milliseconds, 0 or more)
  set how fast computers play at a Hearts table and how long a dropped person keeps the seat;
  the browser tests run the real server with computers at once and a short grace.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

DEFAULT_DB_FILE: Final = "heartsuit.sqlite3"
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
DEFAULT_HEARTS_PACE_MS: Final = 700
DEFAULT_HEARTS_GRACE_MS: Final = 30_000
#: the protocol's frame limit (contract: "frames over 16 KiB → an error reply")
MAX_FRAME_BYTES: Final = 16 * 1024
#: uvicorn's own limit sits well above ours so that an oversized frame still reaches the app and
#: gets a polite ``too_large`` reply instead of a closed socket; beyond this uvicorn closes it
TRANSPORT_MAX_BYTES: Final = 1024 * 1024


class SettingsError(ValueError):
    """A configuration value that cannot be used; the message says which and why."""


def sqlite_url(path: str | Path) -> str:
    """The SQLAlchemy async URL of a SQLite file."""
    return f"sqlite+aiosqlite:///{Path(path)}"


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a server needs to know before it starts."""

    database_url: str = sqlite_url(DEFAULT_DB_FILE)
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    max_frame_bytes: int = MAX_FRAME_BYTES
    #: how many random deals "winnable deals only" may try before settling for an unproven one
    winnable_attempts: int = 40
    #: how many games the service keeps replayed in memory (others are replayed from the log)
    live_games: int = 2000
    #: how long a computer player takes per card at a Hearts table (0: at once, as in tests)
    hearts_pace_ms: int = DEFAULT_HEARTS_PACE_MS
    #: how long a person who dropped out of an online table keeps the seat to themselves
    #: before a computer plays for them (they take it back whenever they return)
    hearts_grace_ms: int = DEFAULT_HEARTS_GRACE_MS
    #: how many Hearts tables the service keeps replayed in memory
    live_tables: int = 2000
    #: SQL echo, for debugging the store
    echo_sql: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise SettingsError(f"the port must be 0..65535, not {self.port}")
        if self.max_frame_bytes < 256:
            raise SettingsError(f"frames of {self.max_frame_bytes} bytes are too small to talk")
        if self.hearts_pace_ms < 0 or self.hearts_grace_ms < 0:
            raise SettingsError("the Hearts pace and grace period cannot be negative")
        if "://" not in self.database_url:
            raise SettingsError(
                f"{self.database_url!r} is not a database URL (e.g. sqlite+aiosqlite:///x.db)"
            )

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        db_path: str | Path | None = None,
        host: str | None = None,
        port: int | None = None,
    ) -> Settings:
        """Settings from the environment, with explicit arguments (the command line) on top.

        ``--db PATH`` beats ``HEARTSUIT_DB``; ``DATABASE_URL`` beats both, because a deployment
        that sets it means a shared database, never a local file.
        """
        env = os.environ if env is None else env
        url = env.get("DATABASE_URL", "").strip()
        if not url:
            path = db_path if db_path is not None else env.get("HEARTSUIT_DB") or DEFAULT_DB_FILE
            url = sqlite_url(path)
        settings = cls(
            database_url=url,
            hearts_pace_ms=_env_ms(env, "HEARTSUIT_HEARTS_PACE_MS", DEFAULT_HEARTS_PACE_MS),
            hearts_grace_ms=_env_ms(env, "HEARTSUIT_HEARTS_GRACE_MS", DEFAULT_HEARTS_GRACE_MS),
        )
        if host is not None:
            settings = replace(settings, host=host)
        if port is not None:
            settings = replace(settings, port=port)
        return settings

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


#: the longest pace or grace period the environment may ask for (a day): a typo such as an
#: extra digit should be refused, not make a table wait for weeks
MAX_ENV_MS: Final = 24 * 60 * 60 * 1000


def _env_ms(env: Mapping[str, str], name: str, default: int) -> int:
    """A duration in whole milliseconds from ``env[name]`` (unset or blank: ``default``)."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not raw.isascii():
        raise SettingsError(f"{name} must be a whole number of milliseconds, not {raw!r}")
    value = int(raw)
    if value > MAX_ENV_MS:
        raise SettingsError(f"{name} must be at most {MAX_ENV_MS} ms (a day), not {value}")
    return value
