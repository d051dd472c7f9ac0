"""Hearts' part of a server's configuration: the computers' pace, a dropped person's grace,
table leases between processes, the thinking processes, and the tables kept in memory.

Built in code (the tests' apps: computers think in process) or from the environment by
``heartsuit serve`` (:meth:`HeartsSettings.from_env`):

- ``HEARTSUIT_HEARTS_PACE_MS`` and ``HEARTSUIT_HEARTS_GRACE_MS`` (whole milliseconds, 0 or more)
  set how fast computers play and how long a dropped person keeps the seat; the browser tests
  run the real server with computers at once and a short grace;
- ``HEARTSUIT_HEARTS_NEXT_HAND_MS``: online, how long computers wait between hands for people
  who did not say "next hand";
- ``HEARTSUIT_HEARTS_LEASE_MS`` (with ``REDIS_URL``, several processes): how long a table's
  lease lasts unless renewed, so how soon another process takes over the tables of one that died;
- ``HEARTSUIT_HEARTS_THINKERS``: how many worker processes the computer players think in (each
  serving process has its own); unset, one per core; 0: in a thread of the serving process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from heartsuit.server.core.settings import SettingsError, env_ms

DEFAULT_PACE_MS: Final = 700
DEFAULT_GRACE_MS: Final = 30_000
DEFAULT_NEXT_HAND_MS: Final = 18_000
DEFAULT_LEASE_MS: Final = 5000
#: the most worker processes a serving process may think in
MAX_THINKERS: Final = 256
#: a lease renewed every third of its time must outlast a busy event loop's pauses
MIN_LEASE_MS: Final = 300


@dataclass(frozen=True, slots=True)
class HeartsSettings:
    """How a server runs its Hearts tables."""

    #: how long a computer player takes per card (0: at once, as in tests)
    pace_ms: int = DEFAULT_PACE_MS
    #: how long a person who dropped out of an online table keeps the seat to themselves
    #: before a computer plays for them (they take it back whenever they return)
    grace_ms: int = DEFAULT_GRACE_MS
    #: online, how long the computers wait between hands for people who did not say "next hand"
    next_hand_ms: int = DEFAULT_NEXT_HAND_MS
    #: several processes only: how long a process's lease on a table lasts unless renewed
    #: (renewed every third of it); a process that dies loses its tables after at most this
    lease_ms: int = DEFAULT_LEASE_MS
    #: worker processes the computer players think in (docs/site.md, "Computer players think
    #: in a pool of processes"); 0: a thread of this process. :meth:`from_env` (``heartsuit
    #: serve``) makes it one per core unless ``HEARTSUIT_HEARTS_THINKERS`` says otherwise
    thinkers: int = 0
    #: how many tables the service keeps replayed in memory
    live_tables: int = 2000

    def __post_init__(self) -> None:
        if self.pace_ms < 0 or self.grace_ms < 0 or self.next_hand_ms < 0:
            raise SettingsError("the Hearts pace and grace period cannot be negative")
        if not 0 <= self.thinkers <= MAX_THINKERS:
            raise SettingsError(
                f"the computer players think in 0..{MAX_THINKERS} processes, not {self.thinkers}"
            )
        if self.lease_ms < MIN_LEASE_MS:
            raise SettingsError(
                f"a table lease of {self.lease_ms} ms is too short (at least {MIN_LEASE_MS} ms)"
            )
        if self.live_tables < 1:
            raise SettingsError("the service must keep at least one table in memory")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HeartsSettings:
        """The settings ``heartsuit serve`` runs with: code defaults, changed by the
        environment, with one thinking process per core unless it says otherwise."""
        env = os.environ if env is None else env
        return cls(
            pace_ms=env_ms(env, "HEARTSUIT_HEARTS_PACE_MS", DEFAULT_PACE_MS),
            grace_ms=env_ms(env, "HEARTSUIT_HEARTS_GRACE_MS", DEFAULT_GRACE_MS),
            next_hand_ms=env_ms(env, "HEARTSUIT_HEARTS_NEXT_HAND_MS", DEFAULT_NEXT_HAND_MS),
            lease_ms=env_ms(env, "HEARTSUIT_HEARTS_LEASE_MS", DEFAULT_LEASE_MS),
            thinkers=_env_thinkers(env),
        )


def default_thinkers() -> int:
    """One thinking process per core: a decision is CPU work and nothing else."""
    return os.cpu_count() or 1


def _env_thinkers(env: Mapping[str, str]) -> int:
    """``HEARTSUIT_HEARTS_THINKERS`` (unset or blank: one per core)."""
    raw = env.get("HEARTSUIT_HEARTS_THINKERS", "").strip()
    if not raw:
        return default_thinkers()
    if not raw.isdigit() or not raw.isascii():
        raise SettingsError(f"HEARTSUIT_HEARTS_THINKERS must be a whole number, not {raw!r}")
    return int(raw)
