"""Which tables this process plays, and who sits at them across processes: :class:`Ownership`.

A table's computer turns and timers (the grace of a dropped person, the wait between hands) are
played by one process at a time, its *owner*. On a site of one process that is always this one
(:class:`LocalOwnership`: it owns every table, and presence is this process's sockets). On a
site of several processes (``REDIS_URL``) the owner holds the table's lease in Redis
(:class:`SharedOwnership`, on :class:`~heartsuit.server.hearts.redis_leases.RedisTables`):

- a process that sees a table under way nobody owns claims it (:meth:`Ownership.ask_for`); the
  owner follows the table's channel (changes made elsewhere are its computers' cue), renews
  its leases every third of a lease, gives back those of finished tables, and claims orphans
  (their owner died) every lease (:meth:`SharedOwnership._coordinate`);
- who holds each seat is kept in Redis too, so every process shows the same people connected
  and away, and the owner runs the grace timers;
- a change whose notice was lost (its writer died between its commit and its notice) is
  announced by the owner, or for a lobby or finished table by a process whose sockets sit
  there (:meth:`SharedOwnership._check_followed`).

The service asks its ``ownership`` and never which kind it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final, Protocol

from heartsuit.server.core.redis_bus import REDIS_FAILURES
from heartsuit.server.hearts.live_table import LiveTable
from heartsuit.server.hearts.notices import TableChanged, table_channel
from heartsuit.server.hearts.protocol import HeartsError
from heartsuit.server.hearts.redis_leases import RedisTables

if TYPE_CHECKING:
    from heartsuit.server.hearts.service import HeartsService

log = logging.getLogger("heartsuit.server.hearts")


class Ownership(Protocol):
    """What the service asks about the tables it plays and the seats held on every process."""

    @property
    def process(self) -> str:
        """This process's id among the site's processes ("" when it is the only one)."""
        ...

    @property
    def local_presence(self) -> bool:
        """Whether who is at a table is this process's own sockets (one process): it is known
        without a read, and its grace timers run here."""
        ...

    def owns(self, table_id: str) -> bool:
        """Whether this process plays the table's computer turns and timers."""
        ...

    def ask_for(self, table_id: str) -> None:
        """A table that is not this process's needs its turns played: claim it if nobody does."""
        ...

    async def start(self, active: list[str]) -> None:
        """The service starts: take up the tables under way (``active``)."""
        ...

    def tasks(self) -> list[asyncio.Task[None]]:
        """The tasks to stop when the service stops."""
        ...

    async def close(self) -> None:
        """After those tasks ended: let go of the leases and connections."""
        ...

    def heard(self, table_id: str, version: int) -> None:
        """``version`` of the table was announced on its channel."""
        ...

    async def logged_version(self, table_id: str) -> int:
        """The version a copy of the table must reach before a socket is shown it."""
        ...

    async def hold_seat(
        self, table_id: str, seat: int, *, take_over: bool, held_here: bool
    ) -> str | None:
        """A socket here now holds ``seat``; the process that held it before, if another
        (its socket hears it was taken over). ``LookupError``: held elsewhere, and not taken."""
        ...

    def letting_go(self, table_id: str, seat: int) -> Callable[[], Awaitable[None]] | None:
        """What to do when the last socket here let go of ``seat`` (None: nothing)."""
        ...

    async def forget_seat(self, table_id: str, seat: int) -> None:
        """``seat`` went to a computer or back to the lobby: nobody holds it any more."""
        ...

    def connected(self, table_id: str) -> set[int]:
        ...

    def away(self, table_id: str) -> set[int]:
        ...

    async def refresh_presence(self, table_id: str) -> None:
        """Read who is at the table on every process."""
        ...

    def dropped(self, table_id: str) -> None:
        """The table left this process's memory."""
        ...


class LocalOwnership:
    """One process: it owns every table; presence is its own sockets."""

    process: Final = ""
    local_presence: Final = True

    def __init__(self, service: HeartsService) -> None:
        self.service = service

    def owns(self, table_id: str) -> bool:
        return True

    def ask_for(self, table_id: str) -> None:
        return None

    async def start(self, active: list[str]) -> None:
        for table_id in active:
            self.service.turns.resume(table_id)

    def tasks(self) -> list[asyncio.Task[None]]:
        return []

    async def close(self) -> None:
        return None

    def heard(self, table_id: str, version: int) -> None:
        return None

    async def logged_version(self, table_id: str) -> int:
        return 0  # this process wrote every entry: its copy is the log

    async def hold_seat(
        self, table_id: str, seat: int, *, take_over: bool, held_here: bool
    ) -> str | None:
        return None

    def letting_go(self, table_id: str, seat: int) -> Callable[[], Awaitable[None]] | None:
        return None

    async def forget_seat(self, table_id: str, seat: int) -> None:
        return None

    def connected(self, table_id: str) -> set[int]:
        return self.service.presence.connected(table_id)

    def away(self, table_id: str) -> set[int]:
        return self.service.presence.away(table_id)

    async def refresh_presence(self, table_id: str) -> None:
        return None

    def dropped(self, table_id: str) -> None:
        return None


class SharedOwnership:
    """Several processes: leases, presence and the missed notices through Redis."""

    local_presence: Final = False

    def __init__(self, service: HeartsService, tables: RedisTables) -> None:
        self.service = service
        #: the leases and the shared presence in Redis
        self.tables = tables
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
        self._coordinator: asyncio.Task[None] | None = None

    @property
    def process(self) -> str:
        return self.tables.process

    def owns(self, table_id: str) -> bool:
        return self.tables.owns(table_id)

    async def start(self, active: list[str]) -> None:
        await self.tables.start()
        self._coordinator = asyncio.get_running_loop().create_task(self._coordinate())
        await self._claim(active)  # in one script call; the tables nobody owns are ours

    def tasks(self) -> list[asyncio.Task[None]]:
        tasks = [
            *self._graces.values(),
            *self._watchers.values(),
            *self._claims.values(),
            *self._refreshing.values(),
        ]
        if self._coordinator is not None:
            tasks.append(self._coordinator)
        return tasks

    async def close(self) -> None:
        self._graces.clear()
        self._watchers.clear()
        self._claims.clear()
        self._told.clear()
        await self.tables.close()

    def heard(self, table_id: str, version: int) -> None:
        """``version`` of the table was announced (kept for the tables this process owns)."""
        if self.tables.owns(table_id):
            self._told[table_id] = max(self._told.get(table_id, -1), version)

    async def logged_version(self, table_id: str) -> int:
        # a copy here may be stale (this process stopped following the table: its sockets
        # left or its lease went): the log's version says how far it must catch up
        logged = await self.service.store.versions([table_id])
        return logged.get(table_id, 0)

    async def hold_seat(
        self, table_id: str, seat: int, *, take_over: bool, held_here: bool
    ) -> str | None:
        elsewhere: str | None = None
        if not (held_here and not take_over):
            try:
                elsewhere = await self.tables.hold(table_id, seat, take_over=take_over)
            except REDIS_FAILURES as exc:
                log.warning(
                    "Redis unreachable, seat %s of %s held here only: %s", seat, table_id, exc
                )
            held, away = self._remote.get(table_id, (set(), set()))
            self._remote[table_id] = (held | {seat}, away - {seat})
        return elsewhere if elsewhere not in (None, self.tables.process) else None

    def letting_go(self, table_id: str, seat: int) -> Callable[[], Awaitable[None]] | None:
        if self.service.presence.holds(table_id, seat):
            return None  # another socket here still holds it

        async def let_go() -> None:
            # the owner (maybe this process) starts the grace timer when it hears of it
            with contextlib.suppress(*REDIS_FAILURES):
                await self.tables.let_go(table_id, seat)
            held, away = self._remote.get(table_id, (set(), set()))
            self._remote[table_id] = (held - {seat}, away)

        return let_go

    async def forget_seat(self, table_id: str, seat: int) -> None:
        held, away = self._remote.get(table_id, (set(), set()))
        self._remote[table_id] = (held - {seat}, away - {seat})
        try:
            await self.tables.forget_seat(table_id, seat)
        except REDIS_FAILURES as exc:
            log.warning("Redis unreachable, seat %s of %s not freed there: %s", seat, table_id, exc)

    def connected(self, table_id: str) -> set[int]:
        local = self.service.presence.connected(table_id)
        return local | self._remote.get(table_id, (set(), set()))[0]

    def away(self, table_id: str) -> set[int]:
        return set(self._remote.get(table_id, (set(), set()))[1])

    async def refresh_presence(self, table_id: str) -> None:
        """One read at a time per table, which every socket of this process waiting for it
        shares."""
        task = self._refreshing.get(table_id)
        if task is None or task.done():
            task = asyncio.get_running_loop().create_task(self._read_presence([table_id]))
            self._refreshing[table_id] = task
        with contextlib.suppress(*REDIS_FAILURES):
            await asyncio.shield(task)
        if self._refreshing.get(table_id) is task and task.done():
            del self._refreshing[table_id]

    async def _read_presence(self, tables: list[str]) -> None:
        self._remote.update(await self.tables.presence(tables))

    def dropped(self, table_id: str) -> None:
        self._remote.pop(table_id, None)

    async def _announce_unless_told(self, live: LiveTable) -> None:
        """Announce the table's version unless it is known to have been announced already."""
        if self._told.get(live.record.id, -1) < live.version:
            await self.service.announce(live)

    # ------------------------------------------------------------------ leases

    def ask_for(self, table_id: str) -> None:
        """Try to take the table's lease (unless another process is known to hold it)."""
        task = self._claims.get(table_id)
        if (task is not None and not task.done()) or self._others.get(table_id, 0) > _now():
            return
        self._claims[table_id] = asyncio.get_running_loop().create_task(
            self._claim([table_id]), name=f"claim {table_id}"
        )

    async def _claim(self, tables: list[str]) -> None:
        try:
            answers = await self.tables.claim(tables)
        except REDIS_FAILURES as exc:
            log.warning("Redis unreachable, no table leases taken: %s", exc)
            return
        finally:
            for table_id in tables:
                if self._claims.get(table_id) is asyncio.current_task():
                    del self._claims[table_id]
        for table_id, left_ms in answers.items():
            if left_ms == -1:
                self._start_owning(table_id)
            else:
                self._others[table_id] = _now() + max(left_ms, 0) / 1000

    def _start_owning(self, table_id: str) -> None:
        """This process now owns the table: follow its channel and play its turns."""
        self._others.pop(table_id, None)
        if self.service.closing:
            return
        task = self._watchers.get(table_id)
        if task is None or task.done():
            self._watchers[table_id] = asyncio.get_running_loop().create_task(
                self._follow(table_id), name=f"owner of {table_id}"
            )

    def _stop_owning(self, table_id: str) -> None:
        """The lease is gone (expired, taken, or given back): stop the table's timers here.

        The computer turns' task is not cancelled: it may be writing a turn, and a write
        cancelled after its commit leaves an entry in the log that nobody announces (its
        people would wait for a turn already played). It stops by itself before its next turn
        (:meth:`ComputerTurns._drive` checks the lease before each)."""
        self._told.pop(table_id, None)
        for task in (
            self._watchers.pop(table_id, None),
            *(self._graces.pop(key) for key in [k for k in self._graces if k[0] == table_id]),
        ):
            if task is not None and task is not asyncio.current_task():
                task.cancel()

    async def _follow(self, table_id: str) -> None:
        """The owner follows the table: a change made on any process may be a computer's cue,
        a presence change may start or stop a grace timer."""
        try:
            async with self.service.bus.listen(table_channel(table_id)) as queue:
                # the log may have grown while another process owned the table, by entries
                # nobody announced (their writer died between its commit and its notice)
                # (and presence: a grace timer of the old owner may have marked a seat away
                # in Redis and died before announcing it)
                self.service.forget(table_id)
                await self.service.announce(await self.service.table(table_id), presence=True)
                with contextlib.suppress(*REDIS_FAILURES):
                    await self._check_presence([table_id])
                self.service.turns.resume(table_id)
                while True:
                    _stop_if_cancelled()
                    change = await queue.get()
                    if not isinstance(change, TableChanged):
                        continue
                    self.heard(table_id, change.version)
                    try:
                        await self.service.table(table_id, at_least=change.version, heard=change)
                    except HeartsError:
                        continue
                    if change.presence:
                        with contextlib.suppress(*REDIS_FAILURES):
                            await self._check_presence([table_id])
                    self.service.turns.resume(table_id)
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
        if not tables:
            return
        await self._read_presence(tables)
        for table_id in tables:
            if not self.tables.owns(table_id):
                continue
            held, away = self._remote.get(table_id, (set(), set()))
            live = self.service.cached(table_id)
            if live is None:
                try:
                    live = await self.service.table(table_id)
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
        shared = self.tables
        try:
            await asyncio.sleep(self.service.grace_ms / 1000)
            await self._read_presence([table_id])
            held, away = self._remote[table_id]
            if seat in held or seat in away or not shared.owns(table_id):
                return
            live = await self.service.table(table_id)
            if live.record.mode == "online" and live.seats[seat].kind == "human":
                await shared.mark_away(table_id, seat)
                self._remote[table_id] = (held, away | {seat})
                await self.service.announce(live, presence=True)
                self.service.turns.resume(table_id)
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
        shared = self.tables
        beat = 0
        while True:
            await asyncio.sleep(shared.lease_ms / 3000)
            beat += 1
            try:
                for table_id in await shared.renew():
                    self._stop_owning(table_id)
                held = sorted(shared.held)
                for table_id in held:
                    if table_id not in self._watchers:
                        # its follower stopped (logged): follow it again
                        self._start_owning(table_id)
                # a change made elsewhere whose notice this process missed (a notice is only a
                # hint): the log's versions say which copies are behind; they catch up, and the
                # computer turns go on (even if their task had stopped on an error). A version
                # logged but never announced (its writer was killed or cancelled between its
                # commit and its notice) is announced now, or its people would wait for it
                logged = await self.service.store.versions(held)
                for table_id in held:
                    live = self.service.cached(table_id)
                    version = logged.get(table_id, 0)
                    behind = live is not None and live.version < version
                    if behind or self._told.get(table_id, -1) < version:
                        with contextlib.suppress(HeartsError):
                            fresh = await self.service.table(table_id, at_least=version)
                            await self._announce_unless_told(fresh)
                    self.service.turns.resume(table_id)
                await self._check_followed(held)
                finished = [
                    t
                    for t in shared.held
                    if (live := self.service.cached(t)) and live.status == "over"
                ]
                if finished:
                    await shared.release(finished)
                    for table_id in finished:
                        self._stop_owning(table_id)
                # only online tables hand a seat to a computer after the grace period
                await self._check_presence(
                    [
                        t
                        for t in sorted(shared.held)
                        if (live := self.service.cached(t)) is None or live.record.mode == "online"
                    ]
                )
                if beat % 3 == 0:
                    now = _now()
                    for table_id in [t for t, end in self._others.items() if end <= now]:
                        del self._others[table_id]
                    orphans = [
                        t
                        for t in await self.service.store.active_tables()
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
        followed = [t for t in self.service.presence.held_tables() if t not in mine]
        suspects, self._behind = self._behind, {}
        if not followed:
            return
        logged = await self.service.store.versions(followed)
        for table_id in followed:
            live = self.service.cached(table_id)
            version = logged.get(table_id, 0)
            if live is None or live.version >= version:
                continue
            before = suspects.get(table_id)
            if before is None or live.version >= before:
                self._behind[table_id] = version
                continue
            # presence too: the writer that died held seats, and nobody said they are gone
            with contextlib.suppress(HeartsError):
                fresh = await self.service.table(table_id, at_least=version)
                await self.service.announce(fresh, presence=True)
                log.info("table %s: announced version %s, which nobody had", table_id, version)

    # ------------------------------------------------------------------ internals


def _stop_if_cancelled() -> None:
    """Raise CancelledError if this task was cancelled: a client library may turn a
    cancellation that meets its own timeout into its own error (which a loop here logs and
    goes on from), and a loop that missed its cancellation would hold up the server's stop."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _now() -> float:
    return time.monotonic()
