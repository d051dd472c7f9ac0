"""What one person may take of the site, and what one address may: sockets, tabs, ``hello``,
new games and table lookups.

A limit counts what a person is, their player id, and only a ceiling counts where they connect
from: Indonesia's mobile carriers put hundreds of subscribers behind one public IPv4 address
(carrier-grade NAT), and limits per address locked such players out (docs/site.md, "Behind
carrier NAT"). So:

- per **player id**: tabs (sockets of one player), ``hello`` with that id, new games
  (``solitaire.new``, ``solitaire.restart``, ``hearts.create``) and table lookups
  (``hearts.invite``, ``hearts.replay``);
- per **address**: a ``hello`` that mints a new player id (the id is what the other limits
  count, so minting ids is what an address may not do without bound), the sockets open, and for
  every per-person rate a ceiling ``address_share`` times as large — an address may stand for
  many people, and a flood from one address still stops there.

One :class:`Limits` per app, in memory (each process counts its own clients). The connection
asks before it accepts a socket, before ``hello`` takes a player, and before a message of a
limited type reaches its game; a refusal is an ``error`` reply with its own code and, for a
rate, ``retry_after``: the whole seconds until the bucket that refused has a token again. A
refused request changes nothing, and spends nothing of the other bucket it was checked against.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

Monotonic = Callable[[], float]

#: how many keys a rate keeps buckets for; past it, full buckets are forgotten
_MAX_BUCKETS = 50_000


class Rate:
    """A token bucket per key: ``per_minute`` at once, refilled at ``per_minute`` a minute."""

    def __init__(self, per_minute: int, clock: Monotonic = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.refill_per_s = per_minute / 60.0
        self.clock = clock
        #: key -> (tokens, when they were counted)
        self._buckets: dict[str, tuple[float, float]] = {}

    def wait(self, key: str) -> float:
        """The seconds until ``key`` has a token (0: it has one now); spends nothing."""
        now = self.clock()
        tokens, then = self._buckets.get(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - then) * self.refill_per_s)
        if tokens >= 1:
            return 0.0
        return (1 - tokens) / self.refill_per_s if self.refill_per_s > 0 else float("inf")

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


@dataclass(frozen=True, slots=True)
class Limited:
    """A rate per person and its ceiling per address, checked together."""

    person: Rate
    address: Rate

    def take(self, person: str, address: str) -> float:
        """Spend a token of both buckets: 0 if both had one, else the seconds until the one
        that refused has one again (and nothing of either is spent)."""
        wait = max(self.person.wait(person), self.address.wait(address))
        if wait > 0:
            return wait
        self.person.take(person)
        self.address.take(address)
        return 0.0


@dataclass
class Limits:
    """The site's counters; see the module's docstring."""

    connections_per_address: int
    tabs_per_player: int
    #: ``hello`` with a known player id: per id, with its ceiling per address
    hellos: Limited
    #: ``hello`` that mints a new player id: per address
    new_players: Rate
    #: message type -> its rates (types of one kind share their buckets)
    messages: Mapping[str, Limited]
    _connections: Counter[str] = field(default_factory=Counter, init=False)
    _tabs: Counter[str] = field(default_factory=Counter, init=False)

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
    new_players_per_minute: int,
    address_share: int,
    groups: Sequence[tuple[int, tuple[str, ...]]],
    clock: Monotonic = time.monotonic,
) -> Limits:
    """The limits of one site. ``groups``: (a per-person rate a minute, the message types that
    share its buckets); each has a per-address ceiling ``address_share`` times as large."""

    def limited(per_minute: int) -> Limited:
        return Limited(Rate(per_minute, clock), Rate(per_minute * address_share, clock))

    messages: dict[str, Limited] = {}
    for per_minute, types in groups:
        shared = limited(per_minute)
        messages.update(dict.fromkeys(types, shared))
    return Limits(
        connections_per_address,
        tabs_per_player,
        limited(hellos_per_minute),
        Rate(new_players_per_minute, clock),
        messages,
    )
