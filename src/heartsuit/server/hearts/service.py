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
  loses its leases when they expire, and another takes its tables over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from heartsuit.hearts import IllegalMove
from heartsuit.hearts.actions import Action
from heartsuit.hearts.bots import LEVELS
from heartsuit.hearts.driver import BotError, computer_seed, decide
from heartsuit.server.core.bus import Bus, Notice, notice
from heartsuit.server.core.protocol import ErrorCode
from heartsuit.server.core.redis_bus import REDIS_FAILURES
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
from heartsuit.server.hearts.presence import Presence, SeatInUse
from heartsuit.server.hearts.protocol import HeartsCreate, HeartsError, HeartsErrorCode, Stale
from heartsuit.server.hearts.redis_leases import RedisTables
from heartsuit.server.hearts.stats import HeartsStats
from heartsuit.server.hearts.store import EntryConflict, TableStore
from heartsuit.server.hearts.thinking_pool import ThinkerLost, ThinkingPool
from heartsuit.server.storage.event_log import LiveCache, Locks, retry_conflicts

log = logging.getLogger("heartsuit.server.hearts")

T = TypeVar("T")
#: how many times a change is tried when another process keeps writing the table's next entry
#: first (each try catches up from the log); then the intent is answered ``stale``
CONFLICT_ATTEMPTS = 5

#: online, how long the computers wait between hands for people who have not said "next hand"
NEXT_HAND_MS = 18_000

#: the computers' pace at each setting, as a share of the server's pace (``pace_ms``)
PACE_FACTORS: dict[Pace, float] = {"slow": 1.8, "normal": 1.0, "fast": 0.45}

#: the level a computer plays at when none is chosen, and for a person who dropped out
#: the level that plays when a stronger one fails (a bug, logged)
FALLBACK_LEVEL = "easy"


@notice("hearts.table_changed")
@dataclass(frozen=True, slots=True)
class TableChanged(Notice):
    """Table ``table`` is at ``version`` (``presence``: only who is at the table changed).

    When the entry that made ``version`` is a card played (face up: every seat sees it at
    that version), the notice carries it — ``seat``, ``card`` and the entry's ``at_ms`` — so
    that a process whose copy is one version behind applies it without reading the log. No
    other entry travels (a pass names hidden cards, a rematch's seed deals every hand, a seat
    change carries a token's hash): ``card`` is then empty and the log is read."""

    table: str
    version: int
    presence: bool = False
    seat: int = -1
    card: str = ""
    at_ms: int = 0

    def entry(self) -> LogEntry | None:
        """The log entry that made ``version``, when the notice carries it."""
        if not self.card or self.seat < 0 or self.version < 1:
            return None
        data = {"type": "play", "seat": self.seat, "card": self.card}
        return LogEntry(self.version - 1, "action", data, self.at_ms)


@notice("hearts.seat_taken")
@dataclass(frozen=True, slots=True)
class SeatTaken(Notice):
    """A socket of process ``by`` took ``seat`` of ``table`` over (its holder elsewhere stops)."""

    table: str
    seat: int
    by: str


def table_channel(table_id: str) -> str:
    return f"table:{table_id}"


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
        #: per table, the (match, hand) whose wait between hands this process has sat out
        #: (its timer ran out here: the computers go on whatever the clock says)
        self._waited: dict[str, tuple[int, int]] = {}
        #: per table whose computer turns wait out the timer between hands, what wakes them
        #: (a change: "next hand", a card, a seat handed over) to look again at once
        self._wake: dict[str, asyncio.Event] = {}
        self.levels = levels
        #: the tables in memory, replayed from their logs (storage/event_log.py)
        self._live: LiveCache[LiveTable] = LiveCache(live_tables, dropped=self._dropped)
        #: each table's lock: kept for the tables in memory, and for any other as long as
        #: someone holds or waits for it (a table asked for once, or unknown, leaves nothing)
        self._locks = Locks()
        #: leases and shared presence when the site is several processes; None: one process
        self.shared = shared
        self.presence = Presence(grace_ms, self._grace_over, timers=shared is None)
        self._drivers: dict[str, asyncio.Task[None]] = {}
        # --- several processes only (see _coordinate)
        #: per table: the seats held on any live process, and the seats marked away
        self._remote: dict[str, tuple[set[int], set[int]]] = {}
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        #: the owner's grace timers, per (table, seat)
        self._graces: dict[tuple[str, int], asyncio.Task[None]] = {}
        #: per owned table, the task that follows its channel for changes made elsewhere
        self._watchers: dict[str, asyncio.Task[None]] = {}
        self._claims: dict[str, asyncio.Task[None]] = {}
        #: tables another process owns: when (time.monotonic()) its lease ends unless renewed
        self._others: dict[str, float] = {}
        #: per owned table, the highest version announced on its channel (by any process) as
        #: far as this process knows: the owner announces a logged version past it (_coordinate)
        self._told: dict[str, int] = {}
        #: tables this process follows but does not own whose copy the last round found behind
        #: the log, with the version logged then (_check_followed)
        self._behind: dict[str, int] = {}
        #: per table, the entry this process logged last (until it is announced): a card
        #: played travels with its notice (TableChanged.entry)
        self._appended: dict[str, LogEntry] = {}
        #: how many entries were caught up from a notice instead of the log (for tests, figures)
        self.caught_up_from_notices = 0
        self._coordinator: asyncio.Task[None] | None = None
        self._closing = False
        #: the states sent to the sockets, with what they share encoded once per version
        self.frames = StateFrames(next_hand_ms=next_hand_ms)

    # ------------------------------------------------------------------ lifetime

    @property
    def process_id(self) -> str:
        """This process's id among the site's processes ("" when it is the only one)."""
        return self.shared.process if self.shared is not None else ""

    async def start(self) -> None:
        """Resume the computer turns of every table under way (after a restart)."""
        self._closing = False
        await self.thinking.start()
        active = await self.store.active_tables()
        if self.shared is not None:
            await self.shared.start()
            self._coordinator = asyncio.get_running_loop().create_task(self._coordinate())
            await self._claim(active)  # in one script call; the tables nobody owns are ours
            return
        for table_id in active:
            self._kick(table_id)

    async def stop(self) -> None:
        self._closing = True
        await self.presence.close()
        tasks = [
            *self._drivers.values(),
            *self._graces.values(),
            *self._watchers.values(),
            *self._claims.values(),
            *self._refreshing.values(),
        ]
        if self._coordinator is not None:
            tasks.append(self._coordinator)
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
        self._drivers.clear()
        self._graces.clear()
        self._watchers.clear()
        self._claims.clear()
        self._told.clear()
        # after the drivers: none waits for a decision any more (a decision in flight is
        # given a moment, then its worker is stopped)
        await self.thinking.stop()
        if self.shared is not None:
            await self.shared.close()

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
        self._kick(live.record.id)
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
        if self.shared is None:
            return await self.table(table_id)
        logged = await self.store.versions([table_id])
        return await self.table(table_id, at_least=logged.get(table_id, 0))

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
            raise Stale(table_id)
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
        self._kick(table_id)
        return live

    async def leave(self, table_id: str, token: str) -> LiveTable:
        """The person gives up the seat: open again in a lobby, a computer's during a match."""

        async def change(live: LiveTable) -> LiveTable:
            await self._vacate(live, self.seat_of(live, token))
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self._kick(table_id)
        return live

    async def free(self, table_id: str, token: str, seat: int) -> LiveTable:
        """The host frees the seat of a person who is not at the table (a computer takes it)."""

        async def change(live: LiveTable) -> LiveTable:
            if self.seat_of(live, token) != _host(live):
                raise HeartsError(HeartsErrorCode.NOT_HOST, "only the host frees a seat")
            if not 0 <= seat < len(live.seats) or live.seats[seat].kind != "human":
                raise HeartsError(ErrorCode.BAD_MESSAGE, "only a person's seat can be freed")
            if self.shared is not None:
                await self.refresh_presence(table_id)
            if self.presence.holds(table_id, seat) or seat in self.connected(table_id):
                raise HeartsError(HeartsErrorCode.SEAT_BUSY, "that player is at the table")
            await self._vacate(live, seat)
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self._kick(table_id)
        return live

    async def _vacate(self, live: LiveTable, seat: int) -> None:
        if live.status == "lobby":
            new = SeatRecord(seat, "open", "")
        else:
            new = SeatRecord(seat, "computer", "", DEFAULT_LEVEL)
        await self._seat_change(live, new)
        self.presence.release(live.record.id, seat)
        if self.shared is not None:
            table_id = live.record.id
            held, away = self._remote.get(table_id, (set(), set()))
            self._remote[table_id] = (held - {seat}, away - {seat})
            try:
                await self.shared.forget_seat(table_id, seat)
            except REDIS_FAILURES as exc:
                log.warning(
                    "Redis unreachable, seat %s of %s not freed there: %s", seat, table_id, exc
                )

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
        self._kick(table_id)
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
                raise Stale(table_id)
            if seat not in live.awaiting():
                raise HeartsError(HeartsErrorCode.NOT_YOUR_TURN, "it is not your turn")
            # a conflict: replayed from the log, the intent is checked once more
            await self._append(live, "action", action.to_dict(), action=action)
            return live

        live = await self._change(table_id, change)
        await self._announce(live)
        self._kick(table_id)
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
        self._kick(table_id)
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
            raise Stale(table_id)
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
        elsewhere: str | None = None
        if self.shared is not None and not (self.presence.holds(table_id, seat) and not take_over):
            try:
                elsewhere = await self.shared.hold(table_id, seat, take_over=take_over)
            except LookupError:
                raise in_use from None
            except REDIS_FAILURES as exc:
                log.warning(
                    "Redis unreachable, seat %s of %s held here only: %s", seat, table_id, exc
                )
            held, away = self._remote.get(table_id, (set(), set()))
            self._remote[table_id] = (held | {seat}, away - {seat})
        try:
            displaced = self.presence.attach(table_id, seat, holder, take_over=take_over)
        except SeatInUse:
            raise in_use from None
        if self.shared is not None and elsewhere not in (None, self.shared.process):
            # the socket that held the seat on another process hears it was taken over
            await self.bus.publish(
                table_channel(table_id), SeatTaken(table_id, seat, self.shared.process)
            )
        self._spawn_announce(table_id)  # everyone sees the seat connected (and back, if away)
        if came_back:
            self._kick(table_id)
        return displaced

    def detach(self, table_id: str, seat: int, holder: object) -> None:
        """The holder's socket went away: after the grace period a computer plays the seat."""
        if self.presence.detach(table_id, seat, holder) and not self._closing:
            shared = self.shared
            if shared is None or self.presence.holds(table_id, seat):
                self._spawn_announce(table_id)
                return

            async def let_go() -> None:
                # the owner (maybe this process) starts the grace timer when it hears of it
                with contextlib.suppress(*REDIS_FAILURES):
                    await shared.let_go(table_id, seat)
                held, away = self._remote.get(table_id, (set(), set()))
                self._remote[table_id] = (held - {seat}, away)

            self._spawn_announce(table_id, before=let_go)

    def taken_elsewhere(self, table_id: str, seat: int) -> None:
        """A socket on another process took ``seat`` over: this process holds it no more."""
        self.presence.drop(table_id, seat)

    def connected(self, table_id: str) -> set[int]:
        local = self.presence.connected(table_id)
        if self.shared is None:
            return local
        return local | self._remote.get(table_id, (set(), set()))[0]

    def away(self, table_id: str) -> set[int]:
        if self.shared is None:
            return self.presence.away(table_id)
        return set(self._remote.get(table_id, (set(), set()))[1])

    async def refresh_presence(self, table_id: str) -> None:
        """Read who is at the table on every process (several processes only; one read at a
        time per table, which every socket of this process waiting for it shares)."""
        if self.shared is None:
            return
        task = self._refreshing.get(table_id)
        if task is None or task.done():
            task = asyncio.get_running_loop().create_task(self._read_presence([table_id]))
            self._refreshing[table_id] = task
        with contextlib.suppress(*REDIS_FAILURES):
            await asyncio.shield(task)
        if self._refreshing.get(table_id) is task and task.done():
            del self._refreshing[table_id]

    async def _read_presence(self, tables: list[str]) -> None:
        assert self.shared is not None
        self._remote.update(await self.shared.presence(tables))

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
            self._kick(table_id)

    # ------------------------------------------------------------------ computer turns

    def _computer_seats(self, live: LiveTable) -> list[int]:
        if live.status != "playing":
            return []
        away = self.away(live.record.id)
        return [
            seat for seat in live.awaiting() if live.seats[seat].kind == "computer" or seat in away
        ]

    def _kick(self, table_id: str) -> None:
        """Make sure the table's computer turns are being played."""
        if self._closing:
            return
        if self.shared is not None and not self.shared.owns(table_id):
            self._claim_soon(table_id)  # the owner, if another process, hears of it by notice
            return
        task = self._drivers.get(table_id)
        if task is not None and not task.done():
            wake = self._wake.get(table_id)
            if wake is not None:
                wake.set()  # it waits out the timer between hands: a change may end the wait
            return
        live = self._live.get(table_id)
        if live is not None and not self._computer_seats(live) and not self._locks_held(table_id):
            # nothing for a computer to do now (the driver would look and stop): every change
            # and every seat handed over kicks again; a table not in memory, or one being
            # changed right now, is looked at by the driver
            return
        self._drivers[table_id] = asyncio.get_running_loop().create_task(self._drive(table_id))

    def _locks_held(self, table_id: str) -> bool:
        return self._locks.held(table_id)

    async def _drive(self, table_id: str) -> None:
        try:
            while True:
                if self.shared is not None and not self.shared.owns(table_id):
                    return  # the lease was lost: the new owner plays on
                live = await self.table(table_id)
                if not self._computer_seats(live):
                    return
                hold = self._hold(live)
                if hold is None:
                    return  # the people have not seen the last hand yet: "next hand" kicks
                if hold > 0:
                    # online, the timer between hands (run by the table's owner: a restart or
                    # a new owner counts from the log's time of the hand's end); any change
                    # to the table meanwhile wakes it to look again
                    wake = self._wake[table_id] = asyncio.Event()
                    try:
                        await asyncio.wait_for(wake.wait(), hold)
                    except TimeoutError:
                        if live.match is not None:
                            self._waited[table_id] = (live.match_no, live.match.hand_number)
                    finally:
                        if self._wake.get(table_id) is wake:
                            del self._wake[table_id]
                    continue
                # a finished trick stays on the table a moment longer, so people can see it
                trick = live.match.hand.view(0).trick if live.match is not None else None
                fresh_trick = trick is not None and not trick.plays
                pace = self.pace_ms * PACE_FACTORS[live.pace]
                await asyncio.sleep(pace * (2 if fresh_trick else 1) / 1000)
                if self.shared is not None and not self.shared.owns(table_id):
                    return  # lost during the delay
                async with self._lock(table_id):
                    live = await self._load(table_id)
                    seats = self._computer_seats(live)
                    if not seats:
                        return
                    if self._hold(live) != 0:
                        continue  # a new hand began meanwhile: its wait first
                    # passes are simultaneous: every computer passes at once; plays one by one
                    if live.match is not None and live.match.hand.phase.value == "play":
                        seats = seats[:1]
                    try:
                        for seat in seats:
                            action = await self._choose(live, seat)
                            await self._append(live, "action", action.to_dict(), action=action)
                    except EntryConflict:
                        # another process logged this turn first (it believed it owned the
                        # table too, or a person's intent came first): catch up and look again
                        continue
                await self._announce(live)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("computer turns of table %s stopped", table_id)
        finally:
            if self._drivers.get(table_id) is asyncio.current_task():
                del self._drivers[table_id]

    def _hold(self, live: LiveTable) -> float | None:
        """How long the computers still wait before the hand goes on, in seconds: 0 not at
        all, None until a person says "next hand" (or plays on)."""
        waiting = live.waiting()
        match = live.match
        if not waiting or match is None:
            return 0
        if live.record.mode != "online":
            return None
        if self._waited.get(live.record.id) == (live.match_no, match.hand_number):
            return 0
        if not set(waiting) - self.away(live.record.id):
            return 0  # only people who dropped out are waited for: their computer goes on
        between = live.between
        assert between is not None
        return max(0, between.since_ms + self.next_hand_ms - self.clock()) / 1000

    async def _choose(self, live: LiveTable, seat: int) -> Action:
        assert live.match is not None
        level = live.seats[seat].level or DEFAULT_LEVEL
        key = f"{live.record.id}/{live.match_no}"
        # only the seat's view, the level and the seed go to the thinking worker; the table's
        # lock is held, so nothing else changes the match while it thinks, and the event loop
        # serves everyone else meanwhile
        view = live.match.view(seat)
        seed = computer_seed(key, live.match.version, seat)
        try:
            return await self.thinking.decide(view, level, seed)
        except (BotError, ThinkerLost):
            # a bot's bug, or workers that keep dying, must not stop a table: the simplest
            # level always has an answer, at once and in this process
            log.exception("the %s computer of table %s failed; easy plays", level, key)
            return decide(view, FALLBACK_LEVEL, seed)

    # ------------------------------------------------------------------ several processes

    def _claim_soon(self, table_id: str) -> None:
        """Try to take the table's lease (unless another process is known to hold it)."""
        task = self._claims.get(table_id)
        if (task is not None and not task.done()) or self._others.get(table_id, 0) > _now():
            return
        self._claims[table_id] = asyncio.get_running_loop().create_task(
            self._claim([table_id]), name=f"claim {table_id}"
        )

    async def _claim(self, tables: list[str]) -> None:
        assert self.shared is not None
        try:
            answers = await self.shared.claim(tables)
        except REDIS_FAILURES as exc:
            log.warning("Redis unreachable, no table leases taken: %s", exc)
            return
        finally:
            for table_id in tables:
                if self._claims.get(table_id) is asyncio.current_task():
                    del self._claims[table_id]
        for table_id, left_ms in answers.items():
            if left_ms == -1:
                self._took(table_id)
            else:
                self._others[table_id] = _now() + max(left_ms, 0) / 1000

    def _took(self, table_id: str) -> None:
        """This process now owns the table: follow its channel and play its turns."""
        self._others.pop(table_id, None)
        if self._closing:
            return
        task = self._watchers.get(table_id)
        if task is None or task.done():
            self._watchers[table_id] = asyncio.get_running_loop().create_task(
                self._watch(table_id), name=f"owner of {table_id}"
            )

    def _lose(self, table_id: str) -> None:
        """The lease is gone (expired, taken, or given back): stop the table's timers here.

        The computer turns' task is not cancelled: it may be writing a turn, and a write
        cancelled after its commit leaves an entry in the log that nobody announces (its
        people would wait for a turn already played). It stops by itself before its next turn
        (:meth:`_drive` checks the lease before each)."""
        self._told.pop(table_id, None)
        for task in (
            self._watchers.pop(table_id, None),
            *(self._graces.pop(key) for key in [k for k in self._graces if k[0] == table_id]),
        ):
            if task is not None and task is not asyncio.current_task():
                task.cancel()

    async def _watch(self, table_id: str) -> None:
        """The owner follows the table: a change made on any process may be a computer's cue,
        a presence change may start or stop a grace timer."""
        try:
            async with self.bus.listen(table_channel(table_id)) as queue:
                # the log may have grown while another process owned the table, by entries
                # nobody announced (their writer died between its commit and its notice)
                # (and presence: a grace timer of the old owner may have marked a seat away
                # in Redis and died before announcing it)
                self.forget(table_id)
                await self._announce(await self.table(table_id), presence=True)
                with contextlib.suppress(*REDIS_FAILURES):
                    await self._check_presence([table_id])
                self._kick(table_id)
                while True:
                    _stop_if_cancelled()
                    change = await queue.get()
                    if not isinstance(change, TableChanged):
                        continue
                    self._heard(table_id, change.version)
                    try:
                        await self.table(table_id, at_least=change.version, heard=change)
                    except HeartsError:
                        continue
                    if change.presence:
                        with contextlib.suppress(*REDIS_FAILURES):
                            await self._check_presence([table_id])
                    self._kick(table_id)
        except asyncio.CancelledError:
            raise
        except HeartsError:
            pass  # no such table (any more)
        except Exception:
            log.exception("the owner of table %s stopped following it", table_id)
        finally:
            if self._watchers.get(table_id) is asyncio.current_task():
                del self._watchers[table_id]

    async def _check_presence(self, tables: list[str]) -> None:
        """Start a grace timer for each seat of an owned online table whose person is on no
        process (and not yet away); stop the timers of seats whose person is back."""
        if self.shared is None or not tables:
            return
        await self._read_presence(tables)
        for table_id in tables:
            if not self.shared.owns(table_id):
                continue
            held, away = self._remote.get(table_id, (set(), set()))
            live = self._live.get(table_id)
            if live is None:
                try:
                    live = await self.table(table_id)
                except HeartsError:
                    continue
            timed = live.record.mode == "online" and live.status != "over"
            for seat in live.seats:
                key = (table_id, seat.seat)
                waiting = timed and seat.kind == "human"
                if not waiting or seat.seat in held or seat.seat in away:
                    task = self._graces.pop(key, None)
                    if task is not None:
                        task.cancel()
                elif key not in self._graces:
                    self._graces[key] = asyncio.get_running_loop().create_task(
                        self._grace_timer(table_id, seat.seat)
                    )

    async def _grace_timer(self, table_id: str, seat: int) -> None:
        shared = self.shared
        assert shared is not None
        try:
            await asyncio.sleep(self.grace_ms / 1000)
            await self._read_presence([table_id])
            held, away = self._remote[table_id]
            if seat in held or seat in away or not shared.owns(table_id):
                return
            live = await self.table(table_id)
            if live.record.mode == "online" and live.seats[seat].kind == "human":
                await shared.mark_away(table_id, seat)
                self._remote[table_id] = (held, away | {seat})
                await self._announce(live, presence=True)
                self._kick(table_id)
        except asyncio.CancelledError:
            raise
        except (HeartsError, *REDIS_FAILURES) as exc:
            log.warning("grace timer of seat %s of %s: %s", seat, table_id, exc)
        finally:
            if self._graces.get((table_id, seat)) is asyncio.current_task():
                del self._graces[(table_id, seat)]

    async def _coordinate(self) -> None:
        """Every third of a lease: renew the leases (and stop the timers of any lost), give
        back those of finished tables, look at presence for the grace timers; every lease,
        claim the tables under way that nobody owns (their owner died or stopped)."""
        shared = self.shared
        assert shared is not None
        beat = 0
        while True:
            await asyncio.sleep(shared.lease_ms / 3000)
            beat += 1
            try:
                for table_id in await shared.renew():
                    self._lose(table_id)
                held = sorted(shared.held)
                for table_id in held:
                    if table_id not in self._watchers:
                        self._took(table_id)  # its follower stopped (logged): follow it again
                # a change made elsewhere whose notice this process missed (a notice is only a
                # hint): the log's versions say which copies are behind; they catch up, and the
                # computer turns go on (even if their task had stopped on an error). A version
                # logged but never announced (its writer was killed or cancelled between its
                # commit and its notice) is announced now, or its people would wait for it
                logged = await self.store.versions(held)
                for table_id in held:
                    live = self._live.get(table_id)
                    version = logged.get(table_id, 0)
                    behind = live is not None and live.version < version
                    if behind or self._told.get(table_id, -1) < version:
                        with contextlib.suppress(HeartsError):
                            await self._tell(await self.table(table_id, at_least=version))
                    self._kick(table_id)
                await self._check_followed(held)
                finished = [
                    t for t in shared.held if (live := self._live.get(t)) and live.status == "over"
                ]
                if finished:
                    await shared.release(finished)
                    for table_id in finished:
                        self._lose(table_id)
                # only online tables hand a seat to a computer after the grace period
                await self._check_presence(
                    [
                        t
                        for t in sorted(shared.held)
                        if (live := self._live.get(t)) is None or live.record.mode == "online"
                    ]
                )
                if beat % 3 == 0:
                    now = _now()
                    for table_id in [t for t, end in self._others.items() if end <= now]:
                        del self._others[table_id]
                    orphans = [
                        t
                        for t in await self.store.active_tables()
                        if not shared.owns(t) and t not in self._others
                    ]
                    await self._claim(orphans)
            except asyncio.CancelledError:
                raise
            except REDIS_FAILURES as exc:
                _stop_if_cancelled()
                log.warning("Redis unreachable, table leases not renewed: %s", exc)
            except Exception:
                _stop_if_cancelled()
                log.exception("table leases: a round failed")

    async def _check_followed(self, owned: list[str]) -> None:
        """Announce what the log holds past this process's copy of the tables its sockets sit
        at and it does not own, when a round found it behind and the next still does.

        The owner announces an unannounced version of the tables it owns (above), but a lobby
        or a finished match may have no owner (a finished table's lease is given back, and
        only tables under way are taken over), so the entry that ends a match, a rematch, or a
        seat changing hands in a lobby, committed by a writer that died before announcing it,
        would reach nobody. Waiting one round lets a notice on its way arrive first (a copy
        behind for that moment is the normal case), so a duplicate is rare."""
        mine = set(owned)
        followed = [t for t in self.presence.held_tables() if t not in mine]
        suspects, self._behind = self._behind, {}
        if not followed:
            return
        logged = await self.store.versions(followed)
        for table_id in followed:
            live = self._live.get(table_id)
            version = logged.get(table_id, 0)
            if live is None or live.version >= version:
                continue
            before = suspects.get(table_id)
            if before is None or live.version >= before:
                self._behind[table_id] = version
                continue
            # presence too: the writer that died held seats, and nobody said they are gone
            with contextlib.suppress(HeartsError):
                await self._announce(await self.table(table_id, at_least=version), presence=True)
                log.info("table %s: announced version %s, which nobody had", table_id, version)

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
        self._remote.pop(table_id, None)
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
        self._heard(table_id, live.version)
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

    def _heard(self, table_id: str, version: int) -> None:
        """``version`` of the table was announced (kept for the tables this process owns)."""
        if self.shared is not None and self.shared.owns(table_id):
            self._told[table_id] = max(self._told.get(table_id, -1), version)

    async def _tell(self, live: LiveTable) -> None:
        """Announce the table's version unless it is known to have been announced already."""
        if self._told.get(live.record.id, -1) < live.version:
            await self._announce(live)

    def _spawn_announce(
        self, table_id: str, *, before: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        async def announce() -> None:
            if before is not None:
                await before()
            with contextlib.suppress(HeartsError):
                await self._announce(await self.table(table_id), presence=True)

        asyncio.get_running_loop().create_task(announce())


def _stop_if_cancelled() -> None:
    """Raise CancelledError if this task was cancelled: a client library may turn a
    cancellation that meets its own timeout into its own error (which a loop here logs and
    goes on from), and a loop that missed its cancellation would hold up the server's stop."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _now() -> float:
    return time.monotonic()


def _host(live: LiveTable) -> int | None:
    """The host is the first person's seat (the creator's, seat 0, unless they left)."""
    return next((s.seat for s in live.seats if s.kind == "human"), None)


__all__ = ["Created", "HeartsService", "SeatTaken", "TableChanged", "table_channel"]
