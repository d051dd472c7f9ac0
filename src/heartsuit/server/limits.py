"""What one client may take of the site: sockets per address, tabs per player, and how often an
address may say ``hello`` or start a game.

One :class:`Limits` per app, in memory (each process counts its own clients). Counters are
keyed by the client's address as the socket sees it (or as a trusted proxy says, see
``Settings.forwarded_allow_ips``) and by player id. The connection asks before it accepts a
socket, before ``hello`` takes a player, and before a message of a limited type reaches its game;
a refusal is an ``error`` reply with its own code, and nothing changes.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

Monotonic = Callable[[], float]

#: how many addresses a rate keeps buckets for; past it, full buckets are forgotten
_MAX_BUCKETS = 50_000


class Rate:
    """A token bucket per key: ``per_minute`` at once, refilled at ``per_minute`` a minute."""

    def __init__(self, per_minute: int, clock: Monotonic = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.refill_per_s = per_minute / 60.0
        self.clock = clock
        #: key -> (tokens, when they were counted)
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """Spend one token of ``key``: 0 if allowed, else the seconds until one is back."""
        now = self.clock()
        tokens, then = self._buckets.get(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - then) * self.refill_per_s)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.refill_per_s if self.refill_per_s > 0 else float("inf")
        self._buckets[key] = (tokens - 1, now)
        if len(self._buckets) > _MAX_BUCKETS:
            self._forget_full(now)
        return 0.0

    def _forget_full(self, now: float) -> None:
        for key, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * self.refill_per_s >= self.capacity:
                del self._buckets[key]


@dataclass
class Limits:
    """The site's counters; see the module's docstring."""

    connections_per_address: int
    tabs_per_player: int
    hellos: Rate
    #: message type -> the rate it is limited by (new games: ``solitaire.new``, ``hearts.create``)
    messages: Mapping[str, Rate]

    def __post_init__(self) -> None:
        self._connections: Counter[str] = Counter()
        self._tabs: Counter[str] = Counter()

    def connect(self, address: str) -> bool:
        """Count a new socket of ``address``; False (and not counted) past the limit."""
        if self._connections[address] >= self.connections_per_address:
            return False
        self._connections[address] += 1
        return True

    def disconnect(self, address: str) -> None:
        self._connections[address] -= 1
        if self._connections[address] <= 0:
            del self._connections[address]

    def open_tab(self, player: str) -> bool:
        """Count a socket of ``player``; False (and not counted) past the limit."""
        if self._tabs[player] >= self.tabs_per_player:
            return False
        self._tabs[player] += 1
        return True

    def close_tab(self, player: str) -> None:
        self._tabs[player] -= 1
        if self._tabs[player] <= 0:
            del self._tabs[player]


def site_limits(
    *,
    connections_per_address: int,
    tabs_per_player: int,
    hellos_per_minute: int,
    new_games_per_minute: int,
    new_game_types: tuple[str, ...],
    lookups_per_minute: int | None = None,
    lookup_types: tuple[str, ...] = (),
    clock: Monotonic = time.monotonic,
) -> Limits:
    """The limits of one site; every type in ``new_game_types`` shares one rate per address,
    and every type in ``lookup_types`` another (``lookups_per_minute``)."""
    new_games = Rate(new_games_per_minute, clock)
    messages = dict.fromkeys(new_game_types, new_games)
    if lookups_per_minute is not None:
        messages.update(dict.fromkeys(lookup_types, Rate(lookups_per_minute, clock)))
    return Limits(
        connections_per_address,
        tabs_per_player,
        Rate(hellos_per_minute, clock),
        messages,
    )
