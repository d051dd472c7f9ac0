"""The kernel of a game kept as an event log, shared by every game's service.

A game (a Heart to Heart deal, a Hearts table) is its log: the store appends entries, each at
the next position, and a copy in memory is the log replayed. Every service needs the same five
things around that, and they live here so each is written once:

- :class:`Locks`: one :class:`asyncio.Lock` per key, so that one change at a time reads the
  copy, decides and appends. A lock lives while someone holds or waits for it, and while its
  key is *kept* (its game is in memory), and no longer: a server that saw a million players
  does not keep a million locks.
- :class:`LiveCache`: the copies in memory, the most recently used kept (a bound, oldest
  dropped first), the others replayed from the log when next used.
- :meth:`LiveCache.written`: a write to the log after the copy has already moved: if the write
  fails in any way (a conflict, an outage, a cancellation), the copy is dropped, because only
  a replay of the log can say where the game is now.
- :func:`retry_conflicts`: when an append finds its position taken (another process wrote
  first: :class:`~heartsuit.server.storage.db.MoveConflict`), catch up from the log and decide
  again, a few times; then the caller answers ``stale`` (the core's ``ErrorCode.STALE``, one
  code for every game) with the fresh state, which is the game's own.

What a game's copy is, how it replays and what an entry holds stay the game's own.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from typing import Final, Generic, TypeVar

from heartsuit.server.storage.db import MoveConflict

T = TypeVar("T")
V = TypeVar("V")

#: how many times a change is decided again after another writer got in first
CONFLICT_ATTEMPTS: Final = 3


class Locks:
    """One lock per key (a table, a player), made when first wanted."""

    def __init__(self) -> None:
        # a lock nobody holds, waits for or keeps goes with its last reference
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._kept: dict[str, asyncio.Lock] = {}

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` has a lock now (kept, held or waited for)."""
        return key in self._kept or key in self._locks

    def is_kept(self, key: str) -> bool:
        return key in self._kept

    def __call__(self, key: str) -> asyncio.Lock:
        lock = self._kept.get(key) or self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def keep(self, key: str) -> None:
        """Keep ``key``'s lock (if it has one) while its game is in memory: a copy and the
        lock that guards it must not part, or two changes could read one copy at once."""
        lock = self._locks.get(key)
        if lock is not None:
            self._kept[key] = lock

    def let_go(self, key: str | None = None) -> None:
        """No longer keep ``key``'s lock (None: every lock); one still held lives on."""
        if key is None:
            self._kept.clear()
        else:
            self._kept.pop(key, None)

    def idle(self, key: str) -> bool:
        """Whether ``key``'s lock is kept and nobody holds it: its copy is whole (every change
        of it logged) and may be read without waiting."""
        lock = self._kept.get(key)
        return lock is not None and not lock.locked()

    def held(self, key: str) -> bool:
        """Whether a change of ``key`` is under way (its lock is held)."""
        lock = self._kept.get(key) or self._locks.get(key)
        return lock is not None and lock.locked()


class LiveCache(Generic[V]):
    """The copies in memory by key, the most recently used first to stay, at most ``limit``.

    ``dropped(key)`` is called for each copy dropped (by the bound, :meth:`drop` or
    :meth:`clear`), so a service can let go of what it keeps beside it."""

    def __init__(self, limit: int, dropped: Callable[[str], None] | None = None) -> None:
        if limit < 1:
            raise ValueError("a cache keeps at least one copy")
        self.limit = limit
        self._dropped = dropped
        self._items: OrderedDict[str, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._items))

    def __getitem__(self, key: str) -> V:
        return self._items[key]

    def get(self, key: str) -> V | None:
        """The copy of ``key``, if in memory (its place in the order is unchanged)."""
        return self._items.get(key)

    def put(self, key: str, value: V) -> None:
        """Keep ``value`` as the copy of ``key``, the most recently used; drop the oldest
        beyond the bound."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.limit:
            gone, _ = self._items.popitem(last=False)
            self._tell(gone)

    def touch(self, key: str) -> None:
        """``key``'s copy was used: it is the last to be dropped."""
        if key in self._items:
            self._items.move_to_end(key)

    def drop(self, key: str) -> None:
        """Forget ``key``'s copy (the next use replays the log)."""
        if self._items.pop(key, None) is not None:
            self._tell(key)

    def clear(self) -> None:
        for key in list(self._items):
            self.drop(key)

    async def written(self, key: str, write: Awaitable[T]) -> T:
        """Await ``write``, an append to ``key``'s log after its copy already moved; if it
        fails in any way, drop the copy (only a replay of the log says where it is now)."""
        try:
            return await write
        except BaseException:
            self.drop(key)
            raise

    def _tell(self, key: str) -> None:
        if self._dropped is not None:
            self._dropped(key)


async def retry_conflicts(
    attempt: Callable[[], Awaitable[T]],
    caught_up: Callable[[], Awaitable[object]] | None = None,
    *,
    attempts: int = CONFLICT_ATTEMPTS,
) -> T | None:
    """Run ``attempt`` until it does not meet a :class:`MoveConflict` (another writer logged
    first), at most ``attempts`` times, awaiting ``caught_up`` (the copy read again from the
    log) after each conflict; None when every attempt conflicted (the caller answers
    ``stale``, with the state as it now is)."""
    for _ in range(attempts):
        try:
            return await attempt()
        except MoveConflict:
            if caught_up is not None:
                await caught_up()
    return None
