"""Hearts tables on the site: creating, seating, acting, computer turns and dropped players.

The service is the only writer of tables. Its rules of the house (DESIGN.md, "The server, grown
for tables"):

- An intent arrives with the version its page last saw. The service takes the table's lock,
  refuses a stale intent (:meth:`LiveTable.is_stale`) with the fresh state, checks the action
  with the engine, appends it to the table's log at the next seq, and only then tells anyone
  (a :class:`~heartsuit.server.core.bus.TableChanged` notice; each socket builds its own seat's
  view).
- A write that finds the seq taken means another writer was first: the table is replayed from
  the log and the intent checked once more.
- Live tables are a cache of the log; a table whose write failed is dropped and replayed.
- Computer seats, and people who dropped out of an online table for longer than the grace
  period, are played by the table driver (:mod:`heartsuit.hearts.driver`) at a natural pace; a
  computer's choice is seeded from (table, match, version, seat), so a replay or a restart makes
  the same choice. A process that starts resumes the computer turns of every table under way.
- On a site of several processes (``REDIS_URL``), one process at a time owns a table by its
  lease (:mod:`heartsuit.server.hearts.redis_leases`): it alone runs the table's computer turns and
  grace timers, deciding from the presence every process shares; the others only serve their
  sockets and hand each change to the owner through the table's channel. A process that dies
  loses its leases when they expire, and another takes its tables over
  (:mod:`heartsuit.server.hearts.ownership`; the computers' turns:
  :mod:`heartsuit.server.hearts.computer_turns`).

Why one module of this length: every change of a table (create, sit, start, act, next hand,
pace, leave, free, rematch) is a few lines of rules around the same lock, copy and log, and
reads best beside the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from heartsuit.hearts import IllegalMove
from heartsuit.hearts.actions import Action
from heartsuit.hearts.bots import LEVELS
from heartsuit.hearts.driver import BotError, computer_seed, decide
from heartsuit.server.core.bus import Bus
from heartsuit.server.core.protocol import ErrorCode, Stale
from heartsuit.server.hearts.computer_turns import FALLBACK_LEVEL, ComputerTurns
from heartsuit.server.hearts.frames import StateFrames
from heartsuit.server.hearts.live_table import (
    EntryKind,
    LiveTable,
    LogEntry,
    Pace,
    SeatRecord,
    hash_token,
    new_seed,
    new_token,
    normalize_invite,
)
from heartsuit.server.hearts.new_table import DEFAULT_LEVEL, clean_name, plan_table
from heartsuit.server.hearts.notices import SeatTaken, TableChanged, table_channel
from heartsuit.server.hearts.ownership import LocalOwnership, Ownership, SharedOwnership
from heartsuit.server.hearts.presence import Presence, SeatInUse
from heartsuit.server.hearts.protocol import HeartsCreate, HeartsError, HeartsErrorCode
from heartsuit.server.hearts.redis_leases import RedisTables
from heartsuit.server.hearts.stats import HeartsStats
from heartsuit.server.hearts.store import TableStore
from heartsuit.server.hearts.thinking_pool import ThinkerLost, ThinkingPool
from heartsuit.server.storage.event_log import LiveCache, Locks, retry_conflicts

log = logging.getLogger("heartsuit.server.hearts")

#: the detail of a stale intent's refusal (:class:`Stale` carries the table id to read again)
_MOVED_ON = "the table has moved on since that state"

T = TypeVar("T")
#: how many times a change is tried when another process keeps writing the table's next entry
#: first (each try catches up from the log); then the intent is answered ``stale``
CONFLICT_ATTEMPTS = 5

#: online, how long the computers wait between hands for people who have not said "next hand"
NEXT_HAND_MS = 18_000



@dataclass(slots=True)
class Created:
    live: LiveTable
    tokens: dict[int, str]


class HeartsService:
    """Tables, seats and their logs on top of a :class:`TableStore` and a :class:`Bus`."""

    def __init__(
        self,
        store: TableStore,
        *,
        bus: Bus,
        clock: Callable[[], int],
        pace_ms: int = 700,
        grace_ms: int = 30_000,
        next_hand_ms: int = NEXT_HAND_MS,
        live_tables: int = 2000,
        levels: tuple[str, ...] = tuple(LEVELS),
        shared: RedisTables | None = None,
        thinking: ThinkingPool | None = None,
    ) -> None:
        self.store = store
        #: the players' Hearts statistics, kept with the entries that end or leave a match
        #: (server/hearts/stats.py); None: not kept
        self.counting: HeartsStats | None = None
        #: where computers think (docs/site.md, "Computer players think in a pool of
        #: processes"); by default in a thread of this process
        self.thinking = thinking if thinking is not None else ThinkingPool(0)
        self.bus = bus
        self.clock = clock
        self.pace_ms = pace_ms
        self.grace_ms = grace_ms
        #: online, how long the computers wait between hands for people who have not said
        #: "next hand" (on a computer or shared-device table they wait for the person)
        self.next_hand_ms = next_hand_ms
        self.levels = levels
        #: the tables in memory, replayed from their logs (storage/event_log.py)
        self._live: LiveCache[LiveTable] = LiveCache(live_tables, dropped=self._dropped)
        #: each table's lock: kept for the tables in memory, and for any other as long as
        #: someone holds or waits for it (a table asked for once, or unknown, leaves nothing)
        self._locks = Locks()
        #: which tables this process plays and who sits at them on every process
        #: (hearts/ownership.py): all of them here, or by leases in Redis (``shared``)
        self.ownership: Ownership = (
            LocalOwnership(self) if shared is None else SharedOwnership(self, shared)
        )
        self.presence = Presence(grace_ms, self._grace_over, timers=self.ownership.local_presence)
        #: the computer players' turns (hearts/computer_turns.py)
        self.turns = ComputerTurns(self, pace_ms=pace_ms, next_hand_ms=next_hand_ms)
        #: per table, the entry this process logged last (until it is announced): a card
        #: played travels with its notice (TableChanged.entry)
        self._appended: dict[str, LogEntry] = {}
        #: how many entries were caught up from a notice instead of the log (for tests, figures)
        self.caught_up_from_notices = 0
        self.closing = False
        #: the states sent to the sockets, with what they share encoded once per version
        self.frames = StateFrames(next_hand_ms=next_hand_ms)

    # ------------------------------------------------------------------ lifetime

    @property
    def process_id(self) -> str:
        """This process's id among the site's processes ("" when it is the only one)."""
        return self.ownership.process

    @property
    def shared(self) -> RedisTables | None:
        """The leases in Redis when the site is several processes (for tests and figures)."""
        return self.ownership.tables if isinstance(self.ownership, SharedOwnership) else None

    async def start(self) -> None:
        """Resume the computer turns of every table under way (after a restart)."""
        self.closing = False
        await self.thinking.start()
        await self.ownership.start(await self.store.active_tables())

    async def stop(self) -> None:
        self.closing = True
        await self.presence.close()
        tasks = [*self.turns.tasks(), *self.ownership.tasks()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            # cancelled again each second until it ends: a client library can turn a
            # cancellation into an error of its own, which a loop here may log and go on from
            while not task.done():
                await asyncio.wait({task}, timeout=1.0)
                task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self.turns.drivers.clear()
        # after the drivers: none waits for a decision any more (a decision in flight is
        # given a moment, then its worker is stopped)
        await self.thinking.stop()
        await self.ownership.close()

    # ------------------------------------------------------------------ tables

    async def create(self, message: HeartsCreate, person_name: str) -> Created:
        """A new table as the message describes it; the creator holds seat 0 (and, on a
        shared device, every person's seat)."""
        plan = plan_table(message, person_name, self.levels, self.clock())
        live = LiveTable.replay(plan.record, plan.seats, [])
        log_entries: list[LogEntry] = []
        starts: list[tuple[EntryKind, dict[str, Any]]] = []
        if message.pace != live.pace:
            starts.append(("pace", {"pace": message.pace}))
        if message.hints and plan.record.mode == "online":
            starts.append(("hints", {"hints": True}))
        if plan.record.mode != "online":
            starts.append(("start", {}))
        for kind, data in starts:
            entry = live.entry(kind, data, plan.record.created_at_ms)
            live.apply(entry)
            log_entries.append(entry)
        await self.store.create_table(live.record, live.seats, log_entries)
        self._remember(live)
        self.turns.resume(live.record.id)
        return Created(live, plan.tokens)

    async def table(
        self, table_id: str, *, at_least: int = 0, heard: TableChanged | None = None
    ) -> LiveTable:
        """The table, at version ``at_least`` or later: a notice from another process says
        the log has grown past this process's copy, which then catches up from the log (or
        from the notice ``heard``, when it carries the one entry the copy lacks)."""
        live = self.table_now(table_id, at_least)
        if live is not None:
            return live
        async with self._lock(table_id):
            return await self._load(table_id, at_least=at_least, heard=heard)

    def table_now(self, table_id: str, at_least: int = 0) -> LiveTable | None:
        """The table as :meth:`table` gives it when that needs no waiting: in memory, at
        ``at_least`` or later, and nobody changing it (so all of it is logged); else None."""
        live = self._live.get(table_id)
        if live is None or live.version < at_least:
            return None
        if not self._locks.idle(table_id):
            return None
        # what the lock would give at once, without taking it
        self._live.touch(table_id)
        return live

    async def current(self, table_id: str) -> LiveTable:
        """The table as its log has it now. On a site of several processes a copy may be
        stale (this process stopped following the table: its sockets left or its lease went),
        so a socket that opens the table asks the log's version (after it follows the
        table's channel, so that nothing logged later goes unheard)."""
        return await self.table(table_id, at_least=await self.ownership.logged_version(table_id))

    async def by_invite(self, text: str) -> LiveTable:
        invite = normalize_invite(text) if isinstance(text, str) else None
        table_id = await self.store.table_by_invite(invite) if invite else None
        if table_id is None:
            raise HeartsError(HeartsErrorCode.BAD_INVITE, "no table has that invite code")
        return await self.table(table_id)

    def seat_of(self, live: LiveTable, token: str) -> int:
        seat = live.seat_of_token(token)
        if seat is None:
            raise HeartsError(
                HeartsErrorCode.BAD_TOKEN, "that seat token is not one of this table's"
            )
        return seat

    # ------------------------------------------------------------------ seats

    async def _change(self, table_id: str, change: Callable[[LiveTable], Awaitable[T]]) -> T:
        """Run ``change`` on the table under its lock; when its write finds the seq taken
        (another process wrote first), catch up from the log and run it again, a few times,
        then answer ``stale`` with the fresh state (the page decides again)."""
        async def attempt() -> T:
            async with self._lock(table_id):
                # after a conflict _append dropped the stale copy: this replays the log
                return await change(await self._load(table_id))

        done = await retry_conflicts(attempt, attempts=CONFLICT_ATTEMPTS)
        if done is None:
            raise Stale(table_id, _MOVED_ON)
        return done

    async def sit(self, table_id: str, seat: int, name: object) -> tuple[LiveTable, str]:
        async def change(live: LiveTable) -> tuple[LiveTable, str]:
            if live.record.mode != "online":
                raise HeartsError(HeartsErrorCode.SEAT_TAKEN, "only online tables take new players")
            if live.status != "lobby":
                raise HeartsError(HeartsErrorCode.TABLE_STARTED, "the match has already started")
            if not 0 <= seat < len(live.seats):
                raise HeartsError(ErrorCode.BAD_MESSAGE, f"there is no seat {seat}")
            if live.seats[seat].kind != "open":
                full = all(s.kind != "open" for s in live.seats)
                raise HeartsError(
                    HeartsErrorCode.TABLE_FULL if full else HeartsErrorCode.SEAT_TAKEN,
                    "that seat is taken",
                )
            token = new_token()
            await self._seat_change(
                live,
                SeatRecord(
                    seat, "human", clean_name(name, f"#{seat + 1}"), None, hash_token(token)
                ),
            )
            return live, token

        live, token = await self._change(table_id, change)
        await self._announce(live)
        return live, token

    async def start_match(self, table_id: str, token: str) -> LiveTable:
        async def change(live: LiveTable) -> LiveTable:
            seat = self.seat_of(live, token)
            if seat != _host(live):
                raise HeartsError(HeartsErrorCode.NOT_HOST, "only the host starts the match")
            if live.status != "lobby":
                raise HeartsError(HeartsErrorCode.TABLE_STARTED, "the match has already started")
            for s in live.seats:
                if s.kind == "open":
                    await self._seat_change(live, SeatRecord(s.seat, "computer", "", DEFAULT_LEVEL))
            await self._append(live, "start", {})
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self.turns.resume(table_id)
        return live

    async def leave(self, table_id: str, token: str) -> LiveTable:
        """The person gives up the seat: open again in a lobby, a computer's during a match."""

        async def change(live: LiveTable) -> LiveTable:
            await self._vacate(live, self.seat_of(live, token))
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self.turns.resume(table_id)
        return live

    async def free(self, table_id: str, token: str, seat: int) -> LiveTable:
        """The host frees the seat of a person who is not at the table (a computer takes it)."""

        async def change(live: LiveTable) -> LiveTable:
            if self.seat_of(live, token) != _host(live):
                raise HeartsError(HeartsErrorCode.NOT_HOST, "only the host frees a seat")
            if not 0 <= seat < len(live.seats) or live.seats[seat].kind != "human":
                raise HeartsError(ErrorCode.BAD_MESSAGE, "only a person's seat can be freed")
            await self.refresh_presence(table_id)
            if self.presence.holds(table_id, seat) or seat in self.connected(table_id):
                raise HeartsError(HeartsErrorCode.SEAT_BUSY, "that player is at the table")
            await self._vacate(live, seat)
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self.turns.resume(table_id)
        return live

    async def _vacate(self, live: LiveTable, seat: int) -> None:
        if live.status == "lobby":
            new = SeatRecord(seat, "open", "")
        else:
            new = SeatRecord(seat, "computer", "", DEFAULT_LEVEL)
        await self._seat_change(live, new)
        self.presence.release(live.record.id, seat)
        await self.ownership.forget_seat(live.record.id, seat)

    async def _seat_change(self, live: LiveTable, seat: SeatRecord) -> None:
        data: dict[str, Any] = {
            "seat": seat.seat,
            "kind": seat.kind,
            "name": seat.name,
            "level": seat.level,
        }
        if seat.token_hash is not None:
            data["token_hash"] = seat.token_hash
        await self._append(live, "seat", data, changed_seat=seat.seat)

    async def rematch(self, table_id: str, token: str) -> LiveTable:
        async def change(live: LiveTable) -> LiveTable:
            self.seat_of(live, token)
            if live.status != "over":
                raise HeartsError(
                    HeartsErrorCode.NOT_OVER, "a rematch comes after the match is over"
                )
            await self._append(live, "rematch", {"seed": new_seed(live.record.mode)})
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self.turns.resume(table_id)
        return live

    # ------------------------------------------------------------------ actions

    async def act(self, table_id: str, token: str, action: Action, version: int) -> LiveTable:
        """A person's pass or play, made on the state of ``version``."""

        async def change(live: LiveTable) -> LiveTable:
            seat = self.seat_of(live, token)
            if action.seat != seat:
                raise HeartsError(ErrorCode.BAD_MESSAGE, "act for your own seat")
            if live.match is None or live.status != "playing":
                raise HeartsError(HeartsErrorCode.WRONG_PHASE, "the match is not under way")
            if live.is_stale(version, action):
                raise Stale(table_id, _MOVED_ON)
            if seat not in live.awaiting():
                raise HeartsError(HeartsErrorCode.NOT_YOUR_TURN, "it is not your turn")
            # a conflict: replayed from the log, the intent is checked once more
            await self._append(live, "action", action.to_dict(), action=action)
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self.turns.resume(table_id)
        return live

    async def ready(self, table_id: str, token: str) -> LiveTable:
        """Between hands, the person of ``token`` says "next hand". Saying it when nobody
        waits for them (twice, after the timer, on another screen of the same device) changes
        nothing and is no error."""

        async def change(live: LiveTable) -> LiveTable:
            seat = self.seat_of(live, token)
            waiting = live.waiting()
            if waiting and live.record.mode != "online" and seat not in waiting:
                seat = waiting[0]  # one device: any of its people's "next hand" is everyone's
            if seat in waiting:
                await self._append(live, "ready", {"seat": seat})
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self.turns.resume(table_id)
        return live

    async def set_pace(self, table_id: str, token: str, pace: Pace) -> LiveTable:
        """How fast the computers play at this table from now on: any person at a computer or
        shared-device table may change it, only the host online (it is everyone's pace)."""

        async def change(live: LiveTable) -> LiveTable:
            seat = self.seat_of(live, token)
            if live.record.mode == "online" and seat != _host(live):
                raise HeartsError(HeartsErrorCode.NOT_HOST, "only the host sets the pace")
            if live.pace != pace:
                await self._append(live, "pace", {"pace": pace})
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        return live

    async def hint(self, table_id: str, token: str, version: int) -> tuple[LiveTable, int, Action]:
        """What the ``normal`` computer would do for the seat of ``token`` at ``version``
        (its seed as a computer's there, so the same question gets the same answer). Changes
        nothing; refused on an online table created without hints."""
        live = await self.table(table_id)
        seat = self.seat_of(live, token)
        if not live.hints:
            raise HeartsError(HeartsErrorCode.HINTS_OFF, "this table was created without hints")
        match = live.match
        phase = match.hand.phase.value if match is not None else ""
        if match is None or live.status != "playing" or phase not in ("pass", "play"):
            raise HeartsError(HeartsErrorCode.WRONG_PHASE, "there is nothing to play or pass now")
        if live.moved_since(version, seat, passing=phase == "pass"):
            raise Stale(table_id, _MOVED_ON)
        if seat not in live.awaiting():
            raise HeartsError(HeartsErrorCode.NOT_YOUR_TURN, "it is not your turn")
        view = match.view(seat)
        seed = computer_seed(f"{table_id}/{live.match_no}/hint", match.version, seat)
        try:
            action = await self.thinking.decide(view, "normal", seed)
        except (BotError, ThinkerLost):
            log.exception("a hint for table %s failed; easy answers", table_id)
            action = decide(view, FALLBACK_LEVEL, seed)
        return live, seat, action

    # ------------------------------------------------------------------ presence

    async def attach(self, table_id: str, seat: int, holder: object, *, take_over: bool) -> object:
        """``holder`` (a socket's session) now plays ``seat``; returns the one it displaced.

        A seat has one holder at a time, whichever process holds it: a second socket is refused
        (``in_use``) unless it asks to take the seat over, as a page does when its person says
        "play here".
        """
        in_use = HeartsError(
            HeartsErrorCode.IN_USE, "this seat is open in another tab or on another device"
        )
        came_back = seat in self.away(table_id)
        try:
            elsewhere = await self.ownership.hold_seat(
                table_id, seat, take_over=take_over, held_here=self.presence.holds(table_id, seat)
            )
            displaced = self.presence.attach(table_id, seat, holder, take_over=take_over)
        except (LookupError, SeatInUse):
            raise in_use from None
        if elsewhere is not None:
            # the socket that held the seat on another process hears it was taken over
            await self.bus.publish(
                table_channel(table_id), SeatTaken(table_id, seat, self.ownership.process)
            )
        self._spawn_announce(table_id)  # everyone sees the seat connected (and back, if away)
        if came_back:
            self.turns.resume(table_id)
        return displaced

    def detach(self, table_id: str, seat: int, holder: object) -> None:
        """The holder's socket went away: after the grace period a computer plays the seat."""
        if self.presence.detach(table_id, seat, holder) and not self.closing:
            self._spawn_announce(table_id, before=self.ownership.letting_go(table_id, seat))

    def taken_elsewhere(self, table_id: str, seat: int) -> None:
        """A socket on another process took ``seat`` over: this process holds it no more."""
        self.presence.drop(table_id, seat)

    def connected(self, table_id: str) -> set[int]:
        return self.ownership.connected(table_id)

    def away(self, table_id: str) -> set[int]:
        return self.ownership.away(table_id)

    async def refresh_presence(self, table_id: str) -> None:
        """Read who is at the table on every process (several processes only)."""
        await self.ownership.refresh_presence(table_id)

    async def _grace_over(self, table_id: str, seat: int) -> None:
        try:
            live = await self.table(table_id)
        except HeartsError:
            return
        # only online tables hand a dropped person's seat to a computer: on a computer or a
        # shared-device table the person is the only one waiting, and the game simply waits
        if live.record.mode == "online" and live.seats[seat].kind == "human":
            self.presence.mark_away(table_id, seat)
            await self._announce(live, presence=True)
            self.turns.resume(table_id)

    # ------------------------------------------------------------------ for the turns

    def cached(self, table_id: str) -> LiveTable | None:
        """The table's copy in memory, if any (as it is: maybe behind the log)."""
        return self._live.get(table_id)

    def changing(self, table_id: str) -> bool:
        """Whether a change of the table is under way (its lock is held)."""
        return self._locks.held(table_id)

    def lock(self, table_id: str) -> asyncio.Lock:
        """The table's lock: one change at a time reads, decides and appends."""
        return self._lock(table_id)

    async def load(self, table_id: str) -> LiveTable:
        """The table under its lock, caught up with the log."""
        return await self._load(table_id)

    async def append_action(self, live: LiveTable, action: Action) -> None:
        """Log a computer's action (under the table's lock)."""
        await self._append(live, "action", action.to_dict(), action=action)

    async def announce(self, live: LiveTable, *, presence: bool = False) -> None:
        """Tell every process following the table that it is at ``live.version``."""
        await self._announce(live, presence=presence)

    # ------------------------------------------------------------------ internals

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks(table_id)
        if table_id in self._live:
            self._locks.keep(table_id)
        return lock

    def _remember(self, live: LiveTable) -> None:
        self._live.put(live.record.id, live)
        self._locks.keep(live.record.id)

    def _dropped(self, table_id: str) -> None:
        """A table left memory for a more recently used one: let go of what goes with it."""
        self.ownership.dropped(table_id)
        self._appended.pop(table_id, None)
        self._locks.let_go(table_id)  # it lives on while someone holds it

    def forget(self, table_id: str | None = None) -> None:
        """Drop one table (or all) from memory; the next request replays its log."""
        if table_id is None:
            self._live.clear()
            self._appended.clear()
        else:
            self._live.drop(table_id)
            self._appended.pop(table_id, None)
        self._locks.let_go(table_id)

    async def _load(
        self, table_id: str, *, at_least: int = 0, heard: TableChanged | None = None
    ) -> LiveTable:
        live = self._live.get(table_id)
        if live is not None and live.version < at_least:
            # another process wrote on: apply what it logged since (a full replay if that
            # fails); a card played that the notice carries needs no read of the log
            entry = heard.entry() if heard is not None else None
            if entry is not None and entry.seq == live.version:
                newer = [entry]
                self.caught_up_from_notices += 1
            else:
                newer = await self.store.entries_after(table_id, live.version)
            try:
                for entry in newer:
                    live.apply(entry, replaying=True)
            except Exception:
                log.exception("table %s: catching up from its log failed; replaying", table_id)
                self._live.drop(table_id)
                live = None
        if live is None or live.version < at_least:
            found = await self.store.get_table(table_id)
            if found is None:
                raise HeartsError(HeartsErrorCode.UNKNOWN_TABLE, "there is no such table")
            record, seats, entries = found
            live = LiveTable.replay(record, seats, entries)
        self._remember(live)
        return live

    async def _append(
        self,
        live: LiveTable,
        kind: str,
        data: dict[str, Any],
        *,
        changed_seat: int | None = None,
        action: Action | None = None,
    ) -> None:
        """Apply an entry to the live table and log it; on any failure forget the table.
        (``action``: the action whose ``to_dict()`` is ``data``, of an ``action`` entry.)"""
        entry = live.entry(kind, data, self.clock())  # type: ignore[arg-type]
        try:
            live.apply(entry, action=action)
        except IllegalMove as err:
            raise HeartsError(HeartsErrorCode.ILLEGAL, str(err), reason=err.reason.value) from None
        changed = [live.seats[changed_seat]] if changed_seat is not None else []
        try:
            # the table already moved in memory: if the write fails, the copy is dropped;
            # the players' statistics change in the same transaction as the entry
            await self._live.written(live.record.id, self._log(live, entry, changed))
        except BaseException:
            self._locks.let_go(live.record.id)
            raise
        self._appended[live.record.id] = entry

    async def _log(self, live: LiveTable, entry: LogEntry, changed: list[SeatRecord]) -> None:
        counted = await self.counting.steps(live, entry) if self.counting else ()
        await self.store.append(live.record, entry, changed, counted)

    async def _announce(self, live: LiveTable, *, presence: bool = False) -> None:
        table_id = live.record.id
        self.ownership.heard(table_id, live.version)
        entry = self._appended.pop(table_id, None)
        if (
            entry is not None
            and entry.seq == live.version - 1
            and entry.kind == "action"
            and entry.data.get("type") == "play"
        ):
            # the card just played, face up: the other processes need not read it from the log
            change = TableChanged(
                table_id,
                live.version,
                presence,
                seat=int(entry.data["seat"]),
                card=str(entry.data["card"]),
                at_ms=entry.at_ms,
            )
        else:
            change = TableChanged(table_id, live.version, presence)
        await self.bus.publish(table_channel(table_id), change)

    def _spawn_announce(
        self, table_id: str, *, before: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        async def announce() -> None:
            if before is not None:
                await before()
            with contextlib.suppress(HeartsError):
                await self._announce(await self.table(table_id), presence=True)

        asyncio.get_running_loop().create_task(announce())


def _host(live: LiveTable) -> int | None:
    """The host is the first person's seat (the creator's, seat 0, unless they left)."""
    return next((s.seat for s in live.seats if s.kind == "human"), None)


__all__ = ["Created", "HeartsService", "SeatTaken", "TableChanged", "table_channel"]
