"""The play clock: a game's time counts only while a page shows it, visible and connected; it is
kept with the game (a restart, a second tab) and is what wins and best times are measured in.
All on a scripted clock (``step=0``: time moves only when a test moves it)."""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.store import GameRecord, GameStatus, SqlSolitaireStore
from heartsuit.server.storage.db import Database
from heartsuit.solitaire import Game
from heartsuit.solitaire.codes import deal_for_code
from heartsuit.solitaire.solver import solve
from tests.server_support import START_MS, FakeClock, game_row, running_site

WIN_CODE = "HH1-N-AAAAAAM"
MINUTE = 60_000


def win_taps(code: str) -> list[int | str]:
    """Taps that win ``code`` (any line: the solver's first)."""
    solution = solve(deal_for_code(code), optimal=False)
    assert solution.winnable
    return [tap for step in solution.steps for tap in step.taps()]


@dataclass
class World:
    service: SolitaireService
    store: SqlSolitaireStore
    players: PlayerService
    clock: FakeClock
    player: str

    def fresh(self) -> SolitaireService:
        """Another service on the same database, as after a restart."""
        return SolitaireService(self.store, self.players, clock=self.clock)


@asynccontextmanager
async def world(tmp_path: Path) -> AsyncIterator[World]:
    db = Database(sqlite_url(tmp_path / "clock.sqlite3"))
    await db.open()
    try:
        store, players = SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db))
        clock = FakeClock(START_MS, step=0)
        service = SolitaireService(store, players, clock=clock)
        yield World(service, store, players, clock, (await players.hello(None)).id)
    finally:
        await db.close()


def run(tmp_path: Path, body: Callable[[World], Awaitable[None]]) -> None:
    async def main() -> None:
        async with world(tmp_path) as w:
            await body(w)

    asyncio.run(main())


def test_the_clock_counts_only_while_the_game_is_watched(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        live = (await w.service.new_game(w.player, WIN_CODE)).live
        tab = object()
        w.clock.now += 5 * MINUTE  # dealt, not yet shown: nothing counts
        assert w.service.play_ms(live) == 0
        await w.service.watch(tab, w.player, live.record.id)
        w.clock.now += 10_000
        await w.service.tap(w.player, live.record.id, "stock")
        assert w.service.play_ms(live) == 10_000
        await w.service.watch(tab, w.player, None)  # hidden
        w.clock.now += 16 * MINUTE
        assert w.service.play_ms(live) == 10_000 and not w.service.clock_running(live)
        await w.service.watch(tab, w.player, live.record.id)  # back
        assert w.service.clock_running(live)
        w.clock.now += 5_000
        assert w.service.play_ms(live) == 15_000
        # stored at each pause and start: another service reads the same time
        await w.service.watch(tab, w.player, None)
        again = (await w.fresh().game_of(w.player, live.record.id)).live
        assert again.record.played_ms == 15_000 and again.record.running_since_ms is None
        assert again.game.elapsed(15.0) == pytest.approx(live.game.elapsed(15.0))

    run(tmp_path, body)


def test_two_tabs_keep_one_clock_running_until_both_leave(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        live = (await w.service.new_game(w.player, WIN_CODE)).live
        first, second = object(), object()
        await w.service.watch(first, w.player, live.record.id)
        w.clock.now += 1_000
        await w.service.watch(second, w.player, live.record.id)
        w.clock.now += 1_000
        await w.service.watch(first, w.player, None)
        w.clock.now += 1_000
        assert w.service.clock_running(live) and w.service.play_ms(live) == 3_000
        await w.service.watch(second, w.player, None)
        w.clock.now += MINUTE
        assert w.service.play_ms(live) == 3_000

    run(tmp_path, body)


def test_a_win_is_timed_in_play_time_and_so_is_the_best_time(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        live = (await w.service.new_game(w.player, WIN_CODE)).live
        game_id, tab = live.record.id, object()
        taps = win_taps(WIN_CODE)
        await w.service.watch(tab, w.player, game_id)
        for number, target in enumerate(taps):
            w.clock.now += 1_000
            if number == len(taps) // 2:
                # the player looks away for an hour in the middle of the game
                await w.service.watch(tab, w.player, None)
                w.clock.now += 60 * MINUTE
                await w.service.watch(tab, w.player, game_id)
            await w.service.tap(w.player, game_id, target)
        assert live.game.outcome.value == "won"
        assert live.record.elapsed_ms == 1_000 * len(taps)
        stats = await w.service.stats(w.player)
        assert stats.overall.best_time_ms == 1_000 * len(taps)
        # the replay of the log gives the same time
        again = (await w.fresh().game_of(w.player, game_id)).live
        assert round(again.game.elapsed() * 1000) == 1_000 * len(taps)

    run(tmp_path, body)


def test_a_clock_left_running_by_a_stopped_server_is_paused_at_the_last_move(
    tmp_path: Path,
) -> None:
    async def body(w: World) -> None:
        live = (await w.service.new_game(w.player, WIN_CODE)).live
        await w.service.watch(object(), w.player, live.record.id)
        w.clock.now += 7_000
        await w.service.tap(w.player, live.record.id, "stock")
        # the server stops here, its tab never said goodbye; it comes back a day later
        w.clock.now += 24 * 60 * MINUTE
        again = await w.fresh().resume(w.player)
        assert again is not None
        assert again.live.record.running_since_ms is None
        assert again.live.record.played_ms == 7_000

    run(tmp_path, body)


def test_the_page_says_when_it_is_hidden_and_a_closed_socket_pauses(tmp_path: Path) -> None:
    clock = FakeClock(START_MS, step=0)
    with running_site(tmp_path / "site.sqlite3", clock=clock) as site:
        with site.peer() as home:
            # the home page asks whether there is a game: that starts no clock
            with site.peer(home.player) as page:
                game = page.new_game(WIN_CODE)  # a page that plays counts as looked at
                assert game["clock_running"] is True
            assert game_row(site.db_path, game["id"])["running_since_ms"] is None
            resumed = home.ask("solitaire.resume")["game"]
            assert resumed["clock_running"] is False
            assert game_row(site.db_path, game["id"])["running_since_ms"] is None
        with site.peer(home.player) as page:
            shown = page.ask("solitaire.visibility", visible=True)
            assert shown["type"] == "solitaire.none"  # this tab shows no game yet
            state = page.ask("solitaire.resume")["game"]
            assert state["clock_running"] is True
            clock.now += 4_000
            hidden = page.ask("solitaire.visibility", visible=False)["game"]
            assert hidden["clock_running"] is False and hidden["elapsed_ms"] == 4_000
            clock.now += 10 * MINUTE
            # hidden, it does not start the clock by being sent a state either
            assert page.ask("solitaire.resume")["game"]["clock_running"] is False
            back = page.ask("solitaire.visibility", visible=True)["game"]
            assert back["clock_running"] is True and back["elapsed_ms"] == 4_000
            clock.now += 1_000
            assert page.tap(game["id"], "stock")["game"]["elapsed_ms"] == 5_000
        row = game_row(site.db_path, game["id"])
        assert row["running_since_ms"] is None and row["played_ms"] == 5_000


def test_daily_and_a_code_together_are_refused(tmp_path: Path) -> None:
    with running_site(tmp_path / "site.sqlite3") as site, site.peer() as page:
        reply = page.ask("solitaire.new", code=WIN_CODE, daily=True)
        assert reply["type"] == "error" and reply["code"] == "bad_message"
        assert page.ask("solitaire.resume")["type"] == "solitaire.none"


def test_moves_are_logged_with_their_play_time(tmp_path: Path) -> None:
    clock = FakeClock(START_MS, step=0)
    with running_site(tmp_path / "site.sqlite3", clock=clock) as site, site.peer() as page:
        game = page.new_game(WIN_CODE)
        clock.now += 2_000
        page.tap(game["id"], "stock")
    with sqlite3.connect(site.db_path) as conn:
        rows = conn.execute("SELECT at_ms, play_ms FROM solitaire_moves").fetchall()
    assert rows == [(START_MS + 2_000, 2_000)]


@pytest.mark.parametrize("in_memory", [True, False])
def test_a_new_deal_pauses_the_left_game_at_its_last_move_without_replaying_it(
    tmp_path: Path, in_memory: bool
) -> None:
    """The game a new deal closes stops counting (its clock is stored paused, at its last move,
    as when it is read back with nobody watching), and is not rebuilt from its log for that;
    the same whether its copy in memory says when its last move was, or it is not in memory."""

    async def body(w: World) -> None:
        tab = object()
        first = (await w.service.new_game(w.player, WIN_CODE, viewer=tab)).live.record.id
        w.clock.now += 7_000
        await w.service.tap(w.player, first, "stock", viewer=tab)
        w.clock.now += 5_000  # looked at, but no move after the flip
        stored = await w.store.get_game(first)
        assert stored is not None and stored.running_since_ms is not None  # running
        if not in_memory:
            w.service.forget(first)

        rebuilt: list[str] = []
        rebuild = w.service._rebuild

        async def counted(record: GameRecord) -> tuple[Game, dict[str, str]]:
            rebuilt.append(record.id)
            return await rebuild(record)

        w.service._rebuild = counted  # type: ignore[method-assign]
        second = await w.service.new_game(w.player, WIN_CODE, leave=first, viewer=tab)
        closed = await w.store.get_game(first)
        assert closed is not None and closed.status is GameStatus.ABANDONED
        assert closed.running_since_ms is None and closed.played_ms == 7_000
        assert rebuilt == []
        if in_memory:
            assert w.service._live[first].record == closed  # kept, as stored
        else:
            assert first not in w.service._live  # not brought back for this
        assert second.view is not None and second.view.clock_running
        w.clock.now += 3_000
        await w.service.tap(w.player, second.live.record.id, "stock", viewer=tab)
        assert w.service.play_ms(second.live) == 3_000
        assert await w.store.get_game(first) == closed  # nothing more written to it
        again = await w.fresh().game_of(w.player, first)  # read back after a restart
        assert again.view is not None and again.view.elapsed_ms == 7_000

    run(tmp_path, body)


def test_a_new_deal_over_a_watched_game_is_one_read_and_one_write(tmp_path: Path) -> None:
    """What a new deal does to the clocks (the new game's starts, the left game's pauses) is
    written with the new game: the store is asked for the open games and told the new game
    with the closed one, nothing else (the players' store not at all: the open game says the
    player is stored)."""

    async def body(w: World) -> None:
        tab = object()
        first = (await w.service.new_game(w.player, WIN_CODE, viewer=tab)).live.record.id
        w.clock.now += 2_000
        await w.service.tap(w.player, first, "stock", viewer=tab)
        asked: list[str] = []
        for name in ("get_game", "open_games", "moves", "set_clock", "start_game", "intents"):
            method = getattr(w.store, name)

            def spy(*args: object, _name: str = name, _method: Any = method) -> Any:
                asked.append(_name)
                return _method(*args)

            setattr(w.store, name, spy)
        players_asked: list[str] = []
        ensure = w.players.ensure

        async def ensure_spy(player_id: str) -> None:
            players_asked.append(player_id)
            await ensure(player_id)

        w.players.ensure = ensure_spy  # type: ignore[method-assign]
        second = await w.service.new_game(w.player, WIN_CODE, leave=first, viewer=tab)
        assert asked == ["open_games", "start_game"] and players_asked == []
        assert second.view is not None and second.view.clock_running
        stored = await w.store.get_game(second.live.record.id)
        assert stored is not None and stored.running_since_ms == w.clock.now
        closed = await w.store.get_game(first)
        assert closed is not None and closed.running_since_ms is None
        assert closed.played_ms == 2_000

    run(tmp_path, body)


def test_a_watching_players_lock_is_kept_between_requests_and_let_go_after(
    tmp_path: Path,
) -> None:
    """One player's requests share one lock; while a page of theirs shows a game, the service
    holds on to it (no new lock per request), and forgets it once no page shows their games."""

    async def body(w: World) -> None:
        tab, other_tab = object(), object()
        game = (await w.service.new_game(w.player, WIN_CODE, viewer=tab)).live.record.id
        lock = weakref.ref(w.service._lock(w.player))
        gc.collect()
        await w.service.tap(w.player, game, "stock", viewer=tab)
        gc.collect()
        assert lock() is not None and w.service._lock(w.player) is lock()
        await w.service.watch(other_tab, w.player, game)
        await w.service.watch(tab, w.player, None)
        gc.collect()
        assert w.service._lock(w.player) is lock()  # still watched by the other tab
        await w.service.watch(other_tab, w.player, None)
        gc.collect()
        assert lock() is None and w.player not in w.service._locks  # let go
        assert w.service._pinned == {}

    run(tmp_path, body)
