"""Play time beside intents: a repeated intent never starts or moves the clock by itself and is
never logged again; a move applied after a write conflict (another process wrote first) is
logged with its play time; a process that does not show the game neither stops nor restarts the
clock another process runs; and a game rebuilt from a snapshot keeps both its intents and its
play time. All on a scripted clock (time moves only when a test moves it)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.service import Played, SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database
from tests.server_support import START_MS, FakeClock

CODE = "HH1-N-AAAAAAM"
MINUTE = 60_000


@dataclass
class World:
    store: SqlSolitaireStore
    players: PlayerService
    clock: FakeClock
    player: str

    def service(self, snapshot_every: int = 200) -> SolitaireService:
        """A service on the shared database: another process, or the same one restarted."""
        return SolitaireService(
            self.store, self.players, clock=self.clock, snapshot_every=snapshot_every
        )


@asynccontextmanager
async def world(tmp_path: Path) -> AsyncIterator[World]:
    db = Database(sqlite_url(tmp_path / "clock.sqlite3"))
    await db.open()
    try:
        players = PlayerService(SqlPlayersStore(db))
        clock = FakeClock(START_MS, step=0)
        yield World(SqlSolitaireStore(db), players, clock, (await players.hello(None)).id)
    finally:
        await db.close()


def run(tmp_path: Path, body: Callable[[World], Awaitable[None]]) -> None:
    async def main() -> None:
        async with world(tmp_path) as w:
            await body(w)

    asyncio.run(main())


def clock_of(played: Played) -> tuple[int, bool]:
    assert played.view is not None
    return played.view.elapsed_ms, played.view.clock_running


async def logged(w: World, game_id: str) -> list[tuple[str, str | None, int | None]]:
    return [(m.action, m.intent, m.play_ms) for m in await w.store.moves(game_id)]


def test_a_repeated_intent_neither_starts_nor_moves_the_clock(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        service, tab = w.service(), object()
        gid = (await service.new_game(w.player, CODE, viewer=tab)).live.record.id
        w.clock.now += 2_000
        first = await service.tap(w.player, gid, "stock", intent="i-1", viewer=tab)
        assert not first.repeat and clock_of(first) == (2_000, True)
        await service.watch(tab, w.player, None)  # the page is hidden
        w.clock.now += 10 * MINUTE
        # sent again by a page that is not looked at: answered, nothing counted or logged
        again = await service.tap(w.player, gid, "stock", intent="i-1")
        assert again.repeat and not again.logged and clock_of(again) == (2_000, False)
        # the same after a restart (the intent read back from the log)
        restarted = w.service()
        later = await restarted.tap(w.player, gid, "stock", intent="i-1")
        assert later.repeat and clock_of(later) == (2_000, False)
        assert await logged(w, gid) == [("stock", "i-1", 2_000)]
        # a visible page that resends it is looked at again: the clock runs from now on, and
        # the repeat itself still writes nothing
        back = await restarted.tap(w.player, gid, "stock", intent="i-1", viewer=tab)
        assert back.repeat and clock_of(back) == (2_000, True)
        w.clock.now += 1_000
        moved = await restarted.tap(w.player, gid, "stock", intent="i-2", viewer=tab)
        assert not moved.repeat and clock_of(moved) == (3_000, True)
        assert await logged(w, gid) == [("stock", "i-1", 2_000), ("stock", "i-2", 3_000)]

    run(tmp_path, body)


def test_a_move_after_a_write_conflict_is_logged_with_its_play_time(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        one, two, tab = w.service(), w.service(), object()
        gid = (await one.new_game(w.player, CODE)).live.record.id
        await two.game_of(w.player, gid)  # two caches it at log length 0, its clock paused
        await one.watch(tab, w.player, gid)  # a page on process one shows it: the clock runs
        w.clock.now += 3_000
        await one.tap(w.player, gid, "stock", intent="a-1", viewer=tab)
        w.clock.now += 2_000
        # two's write of entry 0 is refused; it catches up (keeping the clock one runs) and
        # logs the move at the play time it was made
        played = await two.tap(w.player, gid, "stock", intent="b-1")
        assert played.kind == "flipped" and clock_of(played) == (5_000, True)
        assert await logged(w, gid) == [("stock", "a-1", 3_000), ("stock", "b-1", 5_000)]
        # and the clock still runs on one, as stored
        w.clock.now += 1_000
        third = await one.tap(w.player, gid, "stock", intent="a-2", viewer=tab)
        assert clock_of(third) == (6_000, True)
        row = await w.store.get_game(gid)
        assert row is not None and row.running_since_ms is not None

    run(tmp_path, body)


def test_a_process_with_an_older_copy_of_the_clock_leaves_it_running(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        one, two, tab = w.service(), w.service(), object()
        gid = (await one.new_game(w.player, CODE)).live.record.id
        await two.game_of(w.player, gid)  # cached with the clock paused
        await one.watch(tab, w.player, gid)  # started on one: no log entry, no notice
        w.clock.now += 4_000
        # two's copy is current in the log, not in the clock: the move is timed as stored
        played = await two.tap(w.player, gid, "stock", intent="b-1")
        assert clock_of(played) == (4_000, True)
        row = await w.store.get_game(gid)
        assert row is not None and row.running_since_ms == START_MS
        assert await logged(w, gid) == [("stock", "b-1", 4_000)]

    run(tmp_path, body)


def test_a_rebuild_from_a_snapshot_keeps_the_intents_and_the_play_time(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        service, tab = w.service(snapshot_every=4), object()
        gid = (await service.new_game(w.player, CODE, viewer=tab)).live.record.id
        for n in range(1, 7):  # a snapshot after entry 4, two entries after it
            w.clock.now += 1_000
            await service.tap(w.player, gid, "stock", intent=f"i-{n}", viewer=tab)
        assert (await w.store.snapshot(gid) or (0, ""))[0] == 4
        await service.watch(tab, w.player, None)
        w.clock.now += 30 * MINUTE  # away: not counted
        restarted = w.service(snapshot_every=4)
        # an intent logged before the snapshot and one after it: both repeats, nothing logged
        for intent in ("i-2", "i-6"):
            again = await restarted.tap(w.player, gid, "stock", intent=intent)
            assert again.repeat and clock_of(again) == (6_000, False)
        # the engine's clock from the snapshot is on play time: the next move continues it
        await restarted.watch(tab, w.player, gid)
        w.clock.now += 1_000
        moved = await restarted.tap(w.player, gid, "stock", intent="i-7", viewer=tab)
        assert not moved.repeat and clock_of(moved) == (7_000, True)
        plays = [play for _action, _intent, play in await logged(w, gid)]
        assert plays == [1_000 * n for n in range(1, 8)]
        fresh = w.service(snapshot_every=4)
        replayed = await fresh.game_of(w.player, gid)
        assert replayed.live.game.to_dict() == moved.live.game.to_dict()

    run(tmp_path, body)
