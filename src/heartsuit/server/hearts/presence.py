"""Who is at each Hearts table right now: which socket holds each seat, and whose person dropped.

Presence is the one part of a table that is not in its log: it describes sockets, which a
restart ends anyway. A seat has at most one holder (a socket's session); a second socket is
refused unless it takes the seat over. When the holder goes away a grace period starts; when it
ends with nobody back, :class:`Presence` asks its owner (the service) what to do, and the
service marks the seat *away* on an online table, where a computer then plays it until its
person returns. Tables with nobody present and nothing pending are forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

GraceOver = Callable[[str, int], Awaitable[None]]
"""Called with (table, seat) when a dropped seat's grace period ends with nobody back."""


class SeatInUse(Exception):
    """Another socket holds the seat, and this one did not ask to take it over."""


@dataclass(slots=True)
class _Table:
    holders: dict[int, object] = field(default_factory=dict)
    away: set[int] = field(default_factory=set)
    grace: dict[int, asyncio.Task[None]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.holders or self.away or self.grace)


class Presence:
    """The holders, the away seats and the grace timers of every table in this process."""

    def __init__(self, grace_ms: int, on_grace_over: GraceOver, *, timers: bool = True) -> None:
        self.grace_ms = grace_ms
        self._on_grace_over = on_grace_over
        #: False on a site of several processes: there the table's owner runs the grace timers
        #: (from the presence every process shares), and this class only tracks local sockets
        self._timers = timers
        self._tables: dict[str, _Table] = {}
        self._closed = False

    def attach(self, table: str, seat: int, holder: object, *, take_over: bool) -> object | None:
        """``holder`` now holds ``seat``; returns the holder it displaced (or None).

        Raises :class:`SeatInUse` when another holder has the seat and ``take_over`` is false.
        """
        state = self._tables.setdefault(table, _Table())
        current = state.holders.get(seat)
        if current is not None and current is not holder and not take_over:
            raise SeatInUse(f"seat {seat} of {table} is held by another socket")
        state.holders[seat] = holder
        task = state.grace.pop(seat, None)
        if task is not None:
            task.cancel()
        state.away.discard(seat)
        return current if current is not holder else None

    def detach(self, table: str, seat: int, holder: object) -> bool:
        """``holder`` let go of ``seat`` (its socket closed); True if it was the holder, and
        then the seat's grace period starts."""
        state = self._tables.get(table)
        if state is None or state.holders.get(seat) is not holder:
            return False
        del state.holders[seat]
        if self._timers and not self._closed:
            state.grace[seat] = asyncio.get_running_loop().create_task(self._grace(table, seat))
        self._forget_if_empty(table)
        return True

    def release(self, table: str, seat: int) -> None:
        """The seat was given up or freed: forget its holder, its absence and its timer."""
        state = self._tables.get(table)
        if state is None:
            return
        state.holders.pop(seat, None)
        state.away.discard(seat)
        task = state.grace.pop(seat, None)
        if task is not None:
            task.cancel()
        self._forget_if_empty(table)

    def mark_away(self, table: str, seat: int) -> None:
        self._tables.setdefault(table, _Table()).away.add(seat)

    def holds(self, table: str, seat: int) -> bool:
        state = self._tables.get(table)
        return state is not None and seat in state.holders

    def connected(self, table: str) -> set[int]:
        state = self._tables.get(table)
        return set() if state is None else set(state.holders)

    def away(self, table: str) -> set[int]:
        state = self._tables.get(table)
        return set() if state is None else set(state.away)

    def tables(self) -> int:
        """How many tables have someone present or something pending (for tests and figures)."""
        return len(self._tables)

    def held_tables(self) -> list[str]:
        """The tables at which a socket of this process holds a seat."""
        return [table for table, state in self._tables.items() if state.holders]

    async def close(self) -> None:
        """Stop every grace timer (the server is stopping)."""
        self._closed = True
        tasks = [task for state in self._tables.values() for task in state.grace.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    async def _grace(self, table: str, seat: int) -> None:
        await asyncio.sleep(self.grace_ms / 1000)
        state = self._tables.get(table)
        if state is None:
            return
        state.grace.pop(seat, None)
        if seat not in state.holders:
            await self._on_grace_over(table, seat)
        self._forget_if_empty(table)

    def drop(self, table: str, seat: int) -> None:
        """Another process took the seat over: forget its holder here, with no grace timer."""
        state = self._tables.get(table)
        if state is not None:
            state.holders.pop(seat, None)
            self._forget_if_empty(table)

    def _forget_if_empty(self, table: str) -> None:
        state = self._tables.get(table)
        if state is not None and state.empty:
            del self._tables[table]
