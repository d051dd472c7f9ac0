"""The site's configuration: where it listens, where it stores, and its protocol limits.

One frozen value built from the command line and the environment, so the app factory, the
tests and ``heartsuit serve`` all describe a server the same way.

- ``DATABASE_URL`` (any SQLAlchemy async URL, e.g. ``postgresql+asyncpg://…``) wins over
- ``HEARTSUIT_DB`` (a SQLite file path), which wins over the default ``heartsuit.sqlite3`` in the
  current directory.
- ``REDIS_URL`` makes the site one of several processes (the bus and each game's shared state
  in Redis).

What each game needs besides is its own (``hearts/settings.py``, ``solitaire/settings.py``):
the core knows no game.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

DEFAULT_DB_FILE: Final = "heartsuit.sqlite3"
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
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
    #: Redis for the bus between several processes (``REDIS_URL``); empty: one process,
    #: the in-process bus
    redis_url: str = ""
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    max_frame_bytes: int = MAX_FRAME_BYTES
    #: SQL echo, for debugging the store
    echo_sql: bool = False
    # --- limits against abuse (docs/site.md, "Limits"); the transport's are in transport.py
    #: the largest request head (request line and headers) the server reads; larger: 400
    max_header_bytes: int = 16 * 1024
    #: how long an HTTP request may take to arrive whole, from its first byte
    request_timeout_s: float = 10.0
    #: a WebSocket's outgoing buffer; past it the app's sends wait for the reader
    ws_send_buffer_bytes: int = 64 * 1024
    #: a WebSocket whose outgoing buffer has not drained for this long is dropped
    ws_send_stall_s: float = 15.0
    #: how long a stopping server waits for open connections before it cancels them
    shutdown_timeout_s: float = 10.0
    # The limits count people (a player id) and only their ceilings count addresses: one
    # public address may be a mobile carrier's, standing for hundreds of people (docs/site.md,
    # "Limits" and "Behind carrier NAT").
    #: open WebSockets per client address (a flood ceiling, set for a carrier's address)
    max_connections_per_address: int = 1000
    #: open WebSockets (tabs) per player
    max_tabs_per_player: int = 12
    #: ``hello`` messages per player id and minute (also the burst allowed at once)
    hellos_per_minute: int = 60
    #: ``hello`` messages that make a new player id, per client address and minute
    new_players_per_minute: int = 120
    #: messages that start a game, per player and minute (each game names its own:
    #: ``Game.new_game_messages``)
    new_games_per_minute: int = 30
    #: messages that look something up by a short secret a stranger could guess (a Hearts
    #: invite), per player and minute (``Game.lookup_messages``; docs/site.md, "Secret match
    #: seeds")
    lookups_per_minute: int = 30
    #: each per-player rate above is also limited per client address, to this many times the
    #: player's: an address may stand for many people, and a flood from one still stops
    address_share: int = 20
    #: the origins whose pages may open ``/ws`` (``scheme://host[:port]``); empty: this
    #: server's own address and localhost, on its port
    origins: tuple[str, ...] = ()
    #: addresses of reverse proxies trusted to say who the client is (``X-Forwarded-For``);
    #: empty: none, every limit counts the socket's own address
    forwarded_allow_ips: str = ""

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise SettingsError(f"the port must be 0..65535, not {self.port}")
        if self.max_frame_bytes < 256:
            raise SettingsError(f"frames of {self.max_frame_bytes} bytes are too small to talk")
        counts = (
            self.max_connections_per_address,
            self.max_tabs_per_player,
            self.hellos_per_minute,
            self.new_players_per_minute,
            self.new_games_per_minute,
            self.lookups_per_minute,
            self.address_share,
        )
        if min(counts) < 1:
            raise SettingsError("every limit on connections, tabs and rates must be at least 1")
        if self.max_header_bytes < 1024 or min(self.request_timeout_s, self.ws_send_stall_s) <= 0:
            raise SettingsError("the header limit and the timeouts are too small to serve anyone")
        for origin in self.origins:
            if "://" not in origin or origin.endswith("/"):
                raise SettingsError(f"{origin!r} is not an origin (e.g. https://example.org)")
        if self.redis_url and not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise SettingsError(f"REDIS_URL must be a redis:// URL, not {self.redis_url!r}")
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
            redis_url=env.get("REDIS_URL", "").strip(),
        )
        if host is not None:
            settings = replace(settings, host=host)
        if port is not None:
            settings = replace(settings, port=port)
        return settings

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def allowed_origins(settings: Settings) -> frozenset[str]:
    """The origins whose pages may open ``/ws``: the configured ones, else this server's own
    address and localhost on its port (``http://``; behind TLS configure ``origins``)."""
    if settings.origins:
        return frozenset(o.lower() for o in settings.origins)
    port = settings.port
    hosts = {"localhost", "127.0.0.1", "[::1]"}
    if settings.host not in ("0.0.0.0", "::", ""):
        hosts.add(f"[{settings.host}]" if ":" in settings.host else settings.host.lower())
    netlocs = {h if port == 80 else f"{h}:{port}" for h in hosts}
    return frozenset(f"http://{n}" for n in netlocs)


def allowed_hosts(settings: Settings) -> frozenset[str]:
    """The ``Host`` headers ``/ws`` answers: those of :func:`allowed_origins`."""
    hosts = set()
    for origin in allowed_origins(settings):
        scheme, _, netloc = origin.partition("://")
        hosts.add(netloc)
        default = {"http": ":80", "https": ":443"}.get(scheme)
        if default is not None and not netloc.endswith("]") and ":" not in netloc:
            hosts.add(netloc + default)
    return frozenset(hosts)


#: the environment variables of the limits above, for ``heartsuit serve``
LIMIT_ENV: Final = {
    "HEARTSUIT_ORIGINS": "origins",
    "HEARTSUIT_FORWARDED_ALLOW_IPS": "forwarded_allow_ips",
    "HEARTSUIT_MAX_CONNECTIONS_PER_ADDRESS": "max_connections_per_address",
    "HEARTSUIT_MAX_TABS_PER_PLAYER": "max_tabs_per_player",
    "HEARTSUIT_HELLOS_PER_MINUTE": "hellos_per_minute",
    "HEARTSUIT_NEW_PLAYERS_PER_MINUTE": "new_players_per_minute",
    "HEARTSUIT_NEW_GAMES_PER_MINUTE": "new_games_per_minute",
    "HEARTSUIT_LOOKUPS_PER_MINUTE": "lookups_per_minute",
    "HEARTSUIT_ADDRESS_SHARE": "address_share",
}


#: what each limit of :data:`LIMIT_ENV` does, in a line (``heartsuit serve --help``)
LIMIT_HELP: Final = {
    "origins": "pages that may open /ws (scheme://host[:port], space or comma separated)",
    "forwarded_allow_ips": "proxies whose X-Forwarded-For is believed",
    "max_connections_per_address": "open WebSockets per address (set for a carrier's address)",
    "max_tabs_per_player": "open WebSockets (tabs) per player",
    "hellos_per_minute": "hello messages per player and minute",
    "new_players_per_minute": "new players (a hello without a kept id) per address and minute",
    "new_games_per_minute": "new games per player and minute",
    "lookups_per_minute": "invite lookups and replays per player and minute",
    "address_share": "each per-player rate, times this, is also the ceiling per address",
}


def limits_help() -> str:
    """Every limit's environment variable, its default and what it does (for ``--help``)."""
    defaults = Settings()
    lines = ["limits (environment variables; docs/site.md, \"Limits\"):"]
    for name, field in LIMIT_ENV.items():
        default = getattr(defaults, field)
        shown = "none" if default in ("", ()) else str(default)
        lines.append(f"  {name} (default {shown})")
        # wrapped here: the help keeps these lines as they are, within 80 columns
        lines.append(textwrap.fill(LIMIT_HELP[field], 78, initial_indent=" " * 6,
                                   subsequent_indent=" " * 6))
    return "\n".join(lines)


def limits_from_env(settings: Settings, env: Mapping[str, str] | None = None) -> Settings:
    """``settings`` with the limits the environment sets (``HEARTSUIT_ORIGINS`` is a
    space- or comma-separated list)."""
    env = os.environ if env is None else env
    changes: dict[str, object] = {}
    for name, field in LIMIT_ENV.items():
        text = env.get(name, "").strip()
        if not text:
            continue
        if field == "origins":
            changes[field] = tuple(text.replace(",", " ").split())
        elif field == "forwarded_allow_ips":
            changes[field] = text
        else:
            try:
                changes[field] = int(text)
            except ValueError:
                raise SettingsError(f"{name} must be a whole number, not {text!r}") from None
    return replace(settings, **changes)  # type: ignore[arg-type]


#: the longest duration the environment may ask for (a game's pace, say) (a day): a typo such as an
#: extra digit should be refused, not make a table wait for weeks
MAX_ENV_MS: Final = 24 * 60 * 60 * 1000


def env_ms(env: Mapping[str, str], name: str, default: int) -> int:
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
