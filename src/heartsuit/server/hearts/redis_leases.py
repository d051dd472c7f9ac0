"""Hearts tables on several processes: which process runs a table (its lease), and who is at it.

A site of one process needs none of this: the service then keeps presence in memory and runs
every table itself (:class:`~heartsuit.server.hearts.presence.Presence`). With ``REDIS_URL`` set
the site may be several processes, and :class:`RedisTables` shares two things through Redis:

- **Leases.** Key ``heartsuit:lease:<table>`` holds the id of the process that runs the table's
  computer turns, natural-pace delays and grace timers, with an expiry (``lease_ms``). The owner
  renews all its leases every third of that time in one script call; a process that dies stops
  renewing, its leases expire, and the next process to look (a claim when something happens at
  the table, or the periodic scan of tables under way) takes the table over by replaying its log.
- **Presence.** Hash ``heartsuit:seats:<table>`` maps a seat to the process whose socket holds
  it; set ``heartsuit:away:<table>`` lists the seats a computer plays because their person
  dropped out. Key ``heartsuit:alive:<process>`` (same expiry, renewed with the leases) says a
  process is alive: a seat held by a dead process counts as empty, so the owner's grace timer
  starts for it.

Why Redis and not a table in the database: a lease is a few seconds of state that must vanish
on its own when its holder stops, which is exactly a key with an expiry; Redis measures that
expiry on its own clock, so processes on machines whose clocks differ still agree on when a
lease ended; renewing hundreds of leases every couple of seconds would be a steady stream of
durable writes in the database for data nobody needs after a restart; and presence, which the
owner's grace decision needs, is the same kind of state. Redis is already required for a site of
several processes (the bus), and the single-process default needs neither.

A lease is not what keeps the log right: every entry is written at the (table, seq) key, so two
processes that both believe they own a table (a renewal lost to a network pause) append at most
one of any two entries; the other gets ``EntryConflict``, catches up from the log and, since a
computer's choice is deterministic, finds its turn already played. The lease is what makes one
process, not all of them, run the timers.

Nor does a lease make sure that everyone hears of every entry: a writer may commit an entry and
never publish its notice (killed in between, or, as the chaos bench found, an owner whose lease
ran out under load and whose computer turn's write was cancelled after it had committed). The
owner therefore keeps the highest version announced on each table's channel and announces the
logged version past it, when it takes a table over and in each round of renewals
(``HeartsService._coordinate``); losing a lease does not cancel a turn being written.

The scripts touch keys other than their ``KEYS`` (the holders' alive keys), which is fine on a
single Redis server (or a primary with replicas) but not on Redis Cluster.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Iterable
from typing import Any

from heartsuit.server.core.redis_bus import PREFIX, REDIS_FAILURES, RedisBusError, redis

log = logging.getLogger(__name__)

DEFAULT_LEASE_MS = 5000

# claim: take the lease if free (or ours), renewing it; else how long the other holder keeps it
_CLAIM = """
local out = {}
for i, key in ipairs(KEYS) do
  local cur = redis.call('GET', key)
  if (not cur) or cur == ARGV[1] then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    out[i] = -1
  else
    out[i] = redis.call('PTTL', key)
  end
end
return out
"""

# renew: extend the leases that are still ours; 1 for each kept, 0 for each lost
_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""

# release: delete the leases that are still ours
_RELEASE = """
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 0
"""

# hold: KEYS = seats hash, away set; ARGV = seat, me, take over (1/0), alive prefix, ttl s.
# {1, displaced process or ''}, or {0, holder} when a live other process holds the seat
_HOLD = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and cur ~= ARGV[2] and redis.call('EXISTS', ARGV[4] .. cur) == 1 then
  if ARGV[3] ~= '1' then return {0, cur} end
else
  cur = ''
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return {1, cur}
"""

# let go: KEYS = seats hash; ARGV = seat, me
_LET_GO = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""

#: presence keys outlive a quiet table by a day, then Redis drops them
PRESENCE_TTL_S = 24 * 60 * 60


class RedisTables:
    """Leases and shared presence of Hearts tables in Redis (see the module's text)."""

    def __init__(self, url: str, *, lease_ms: int = DEFAULT_LEASE_MS, prefix: str = PREFIX):
        if redis is None:
            raise RedisBusError(
                "REDIS_URL is set but the redis client is not installed: "
                "pip install 'heartsuit[redis]'"
            )
        try:
            self._redis: Any = redis.from_url(url)
        except ValueError as exc:
            raise RedisBusError(f"REDIS_URL is not a Redis URL: {exc}") from None
        self.lease_ms = lease_ms
        self.process = secrets.token_hex(8)
        self._prefix = prefix
        self._alive_prefix = f"{prefix}alive:"
        #: the tables whose lease this process holds (as of its last claim or renewal)
        self.held: set[str] = set()
        #: False: :meth:`close` leaves leases and presence to expire, as a killed process does
        self.release_on_close = True
        self._claim = self._redis.register_script(_CLAIM)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        self._hold = self._redis.register_script(_HOLD)
        self._let_go = self._redis.register_script(_LET_GO)

    # ------------------------------------------------------------------ lifetime

    async def start(self) -> None:
        try:
            await self._alive()
        except REDIS_FAILURES as exc:
            raise RedisBusError(f"Redis does not answer at REDIS_URL: {exc}") from None

    async def close(self) -> None:
        if self.release_on_close:
            with contextlib.suppress(*REDIS_FAILURES):
                await self.release(list(self.held))
                await self._redis.delete(self._alive_key(self.process))
        self.held.clear()
        with contextlib.suppress(*REDIS_FAILURES):
            await self._redis.aclose()

    # ------------------------------------------------------------------ leases

    def owns(self, table: str) -> bool:
        return table in self.held

    async def claim(self, tables: Iterable[str]) -> dict[str, int]:
        """Try to take each table's lease: ``-1`` for a table now held here, else the
        milliseconds its current holder keeps it."""
        wanted = list(dict.fromkeys(tables))
        if not wanted:
            return {}
        answers = await self._claim(
            keys=[self._lease_key(t) for t in wanted], args=[self.process, self.lease_ms]
        )
        out = {t: int(a) for t, a in zip(wanted, answers, strict=True)}
        self.held.update(t for t, a in out.items() if a == -1)
        return out

    async def renew(self) -> list[str]:
        """Extend every lease held and say this process is alive; returns the tables lost."""
        await self._alive()
        held = sorted(self.held)
        if not held:
            return []
        kept = await self._renew(
            keys=[self._lease_key(t) for t in held], args=[self.process, self.lease_ms]
        )
        lost = [t for t, k in zip(held, kept, strict=True) if not int(k)]
        self.held.difference_update(lost)
        return lost

    async def release(self, tables: Iterable[str]) -> None:
        gone = [t for t in tables if t in self.held]
        self.held.difference_update(gone)
        if gone:
            await self._release(keys=[self._lease_key(t) for t in gone], args=[self.process])

    # ------------------------------------------------------------------ presence

    async def hold(self, table: str, seat: int, *, take_over: bool) -> str | None:
        """This process now holds ``seat``; returns the process it took the seat from (None if
        none). Raises :class:`LookupError` when another live process holds it and
        ``take_over`` is false."""
        ok, other = await self._hold(
            keys=[self._seats_key(table), self._away_key(table)],
            args=[seat, self.process, int(take_over), self._alive_prefix, PRESENCE_TTL_S],
        )
        other = other.decode() if isinstance(other, bytes) else str(other)
        if not int(ok):
            raise LookupError(other)
        return other or None

    async def let_go(self, table: str, seat: int) -> None:
        """This process no longer holds ``seat`` (unless another already took it)."""
        await self._let_go(keys=[self._seats_key(table)], args=[seat, self.process])

    async def mark_away(self, table: str, seat: int) -> None:
        away = self._away_key(table)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.sadd(away, seat)
            pipe.expire(away, PRESENCE_TTL_S)
            await pipe.execute()

    async def forget_seat(self, table: str, seat: int) -> None:
        """The seat changed hands: nobody holds it and nobody is away from it."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hdel(self._seats_key(table), seat)
            pipe.srem(self._away_key(table), seat)
            await pipe.execute()

    async def presence(self, tables: Iterable[str]) -> dict[str, tuple[set[int], set[int]]]:
        """For each table: the seats held by a live process, and the seats marked away."""
        wanted = list(dict.fromkeys(tables))
        if not wanted:
            return {}
        async with self._redis.pipeline(transaction=False) as pipe:
            for table in wanted:
                pipe.hgetall(self._seats_key(table))
                pipe.smembers(self._away_key(table))
            found = await pipe.execute()
        holders = [
            {int(seat): _text(proc) for seat, proc in found[2 * i].items()}
            for i in range(len(wanted))
        ]
        procs = sorted({p for h in holders for p in h.values()})
        alive: set[str] = set()
        if procs:
            flags = await self._redis.mget([self._alive_key(p) for p in procs])
            alive = {p for p, flag in zip(procs, flags, strict=True) if flag is not None}
        return {
            table: (
                {seat for seat, proc in holders[i].items() if proc in alive},
                {int(s) for s in found[2 * i + 1]},
            )
            for i, table in enumerate(wanted)
        }

    # ------------------------------------------------------------------ keys

    async def _alive(self) -> None:
        await self._redis.set(self._alive_key(self.process), 1, px=self.lease_ms)

    def _alive_key(self, process: str) -> str:
        return self._alive_prefix + process

    def _lease_key(self, table: str) -> str:
        return f"{self._prefix}lease:{table}"

    def _seats_key(self, table: str) -> str:
        return f"{self._prefix}seats:{table}"

    def _away_key(self, table: str) -> str:
        return f"{self._prefix}away:{table}"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


__all__ = ["DEFAULT_LEASE_MS", "RedisTables"]
