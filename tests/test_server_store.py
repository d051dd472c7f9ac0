"""The stores: players and their preferences per game, solitaire games, the append-only move
log and the deal cache, on SQLite and (when ``HEARTSUIT_TEST_POSTGRES`` holds a
``postgresql+asyncpg://`` URL) on PostgreSQL.

The same checks run on both, through the :class:`PlayersStore` and :class:`SolitaireStore`
interfaces only.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.store import PlayerRecord, PlayersStore, SqlPlayersStore
from heartsuit.server.solitaire.store import (
    CodeTotals,
    DealAnalysis,
    GameRecord,
    GameStatus,
    MoveRecord,
    PlayerTotals,
    SolitaireStore,
    SqlSolitaireStore,
    Tally,
    TallyKind,
)
from heartsuit.server.storage.db import Database, MoveConflict, StoreError


@dataclass(frozen=True)
class Stores:
    """The stores of one database, as the services see them."""

    players: PlayersStore
    solitaire: SolitaireStore


Check = Callable[[Stores], Awaitable[None]]
POSTGRES_URL = os.environ.get("HEARTSUIT_TEST_POSTGRES", "")


def run_on(url: str, check: Check) -> None:
    async def main() -> None:
        db = Database(url)
        await db.open()
        try:
            await check(Stores(SqlPlayersStore(db), SqlSolitaireStore(db)))
        finally:
            await db.close()

    asyncio.run(main())


def fresh(prefix: str) -> str:
    # unique ids let the PostgreSQL run share a database with earlier runs
    return f"{prefix}-{secrets.token_hex(8)}"


async def players_keep_their_preferences_per_game(stores: Stores) -> None:
    store = stores.players
    pid = fresh("player")
    assert await store.get_player(pid) is None
    await store.create_player(PlayerRecord(pid, 5))
    assert await store.get_player(pid) == PlayerRecord(pid, 5)
    assert await store.preferences(pid, "solitaire") is None
    await store.save_preferences(pid, "solitaire", '{"move_errors":true}')
    await store.save_preferences(pid, "hearts", '{"speed":"fast"}')
    await store.save_preferences(pid, "solitaire", '{"move_errors":false}')
    assert await store.preferences(pid, "solitaire") == '{"move_errors":false}'
    assert await store.preferences(pid, "hearts") == '{"speed":"fast"}'


async def new_players_arriving_together_are_each_stored_once(stores: Stores) -> None:
    """Players made at once share commits: each is stored once, a second tab's "create if
    new" changes nothing, a second plain create of the same id is refused alone, and two tabs
    saving preferences at once leave one of their values."""
    from sqlalchemy.exc import IntegrityError

    store = stores.players
    ids = [fresh("crowd") for _ in range(20)]
    await asyncio.gather(
        *(store.create_player(PlayerRecord(p, n), exist_ok=True) for n, p in enumerate(ids)),
        *(store.create_player(PlayerRecord(p, 99), exist_ok=True) for p in ids[:5]),
    )
    for n, p in enumerate(ids):
        assert await store.get_player(p) == PlayerRecord(p, n)
    again = await asyncio.gather(
        store.create_player(PlayerRecord(ids[0], 7)),
        store.create_player(PlayerRecord(fresh("crowd"), 7)),
        return_exceptions=True,
    )
    assert isinstance(again[0], IntegrityError) and again[1] is None
    assert await store.get_player(ids[0]) == PlayerRecord(ids[0], 0)
    await asyncio.gather(
        store.save_preferences(ids[1], "solitaire", '{"tab":1}'),
        store.save_preferences(ids[1], "solitaire", '{"tab":2}'),
    )
    assert await store.preferences(ids[1], "solitaire") in ('{"tab":1}', '{"tab":2}')


async def a_new_game_abandons_the_open_ones(stores: Stores) -> None:
    store = stores.solitaire
    pid = fresh("player")
    await stores.players.create_player(PlayerRecord(pid, 0))
    first = GameRecord(fresh("g"), pid, "HH1-N-AAAAAAM", 100, moves=3)
    await store.start_game(first)
    assert await store.open_game(pid) == first
    assert await store.open_games(pid) == [first]
    second = GameRecord(fresh("g"), pid, "HH1-N-AAAAAAB", 200)
    left = GameRecord(first.id, pid, first.code, 100, GameStatus.ABANDONED, 3, 0, 200)
    await store.start_game(second, [left], [Tally(TallyKind.LOSS, left)])
    assert await store.open_game(pid) == second
    assert await store.get_game(first.id) == left
    assert [g.id for g in await store.player_games(pid)] == [first.id, second.id]
    assert await store.totals(pid) == PlayerTotals(games=1)
    assert await store.code_totals(pid, 0, 10) == (
        [CodeTotals("HH1-N-AAAAAAM", 1, 0, None, None, 200)],
        1,
    )


async def the_log_and_its_summary_move_together(stores: Stores) -> None:
    store = stores.solitaire
    pid = fresh("player")
    await stores.players.create_player(PlayerRecord(pid, 0))
    game = GameRecord(fresh("g"), pid, "HH1-N-AAAAAAM", 100)
    await store.start_game(game)
    after_one = GameRecord(game.id, pid, game.code, 100, moves=1, log_length=1)
    await store.append_move(MoveRecord(game.id, 0, "stock", 150), after_one)
    won = GameRecord(game.id, pid, game.code, 100, GameStatus.WON, 2, 20, 190, 90, log_length=2)
    await store.append_move(
        MoveRecord(game.id, 1, "25", 190), won, Tally(TallyKind.WIN, won), '{"a":1}'
    )
    assert await store.moves(game.id) == [
        MoveRecord(game.id, 0, "stock", 150),
        MoveRecord(game.id, 1, "25", 190),
    ]
    assert await store.moves(game.id, 1) == [MoveRecord(game.id, 1, "25", 190)]
    assert await store.snapshot(game.id) == (2, '{"a":1}')
    assert await store.totals(pid) == PlayerTotals(1, 1, 1, 1, 90, 2)
    assert await store.get_game(game.id) == won
    assert await store.open_game(pid) is None
    # a second writer of move 1 is refused, and neither the log nor the summary changes
    stale = GameRecord(game.id, pid, game.code, 100, moves=5, log_length=2)
    with pytest.raises(MoveConflict):
        await store.append_move(
            MoveRecord(game.id, 1, "undo", 200), stale, Tally(TallyKind.WIN, won), "{}"
        )
    assert await store.get_game(game.id) == won
    assert await store.snapshot(game.id) == (2, '{"a":1}')
    assert await store.totals(pid) == PlayerTotals(1, 1, 1, 1, 90, 2)
    assert len(await store.moves(game.id)) == 2
    with pytest.raises(StoreError):
        await store.append_move(MoveRecord(game.id, 2, "undo", 200), stale)


async def deal_verdicts_are_cached_once(stores: Stores) -> None:
    store = stores.solitaire
    code = f"HH1-N-{secrets.choice('ABC')}{secrets.token_hex(3).upper()}"
    assert await store.deal_analysis(code) is None
    await store.save_deal_analysis(DealAnalysis(code, True, 70))
    await store.save_deal_analysis(DealAnalysis(code, True, 70))  # a second writer is harmless
    assert await store.deal_analysis(code) == DealAnalysis(code, True, 70)


CHECKS: list[Check] = [
    players_keep_their_preferences_per_game,
    new_players_arriving_together_are_each_stored_once,
    a_new_game_abandons_the_open_ones,
    the_log_and_its_summary_move_together,
    deal_verdicts_are_cached_once,
]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_sqlite(tmp_path: Path, check: Check) -> None:
    run_on(sqlite_url(tmp_path / "store.sqlite3"), check)


@pytest.mark.skipif(not POSTGRES_URL, reason="set HEARTSUIT_TEST_POSTGRES to a postgres URL")
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_postgres(check: Check) -> None:
    pytest.importorskip("asyncpg")
    run_on(POSTGRES_URL, check)


def test_the_tables_survive_reopening(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "store.sqlite3")
    pid = fresh("player")

    async def write(stores: Stores) -> None:
        await stores.players.create_player(PlayerRecord(pid, 1))
        await stores.players.save_preferences(pid, "solitaire", "{}")

    async def read(stores: Stores) -> None:
        assert await stores.players.get_player(pid) == PlayerRecord(pid, 1)
        assert await stores.players.preferences(pid, "solitaire") == "{}"

    run_on(url, write)
    run_on(url, read)


def test_a_closed_store_says_so() -> None:
    store = SqlPlayersStore(Database(sqlite_url("unused.sqlite3")))
    with pytest.raises(StoreError, match="not open"):
        asyncio.run(store.get_player("x"))


@pytest.mark.skipif(not POSTGRES_URL, reason="set HEARTSUIT_TEST_POSTGRES to a postgres URL")
def test_postgres_site_continues_a_game_after_a_restart() -> None:
    pytest.importorskip("asyncpg")
    from starlette.testclient import TestClient

    from heartsuit.server.core.settings import Settings
    from heartsuit.server.site.app import create_app
    from tests.server_support import TEST_ORIGINS, Peer, comparable

    def site() -> TestClient:
        return TestClient(create_app(Settings(database_url=POSTGRES_URL, origins=TEST_ORIGINS)))

    with site() as client, client.websocket_connect("/ws") as socket:
        peer = Peer(socket)
        player = peer.hello()
        game_id = peer.new_game("HH1-N-AAAAAAM")["id"]
        for tap in ("stock", "stock", 25):
            last = peer.tap(game_id, tap)["game"]
    with site() as client, client.websocket_connect("/ws") as socket:
        peer = Peer(socket)
        peer.hello(player)
        resumed = peer.ask("solitaire.resume")["game"]
    assert comparable(resumed) == comparable(last)
