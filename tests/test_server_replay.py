"""The move log is the truth: any play, replayed by a fresh service, gives the same game; a
failed log write leaves the game as the log says; concurrent tabs never tangle the log."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import update
from starlette.testclient import TestClient

from heartsuit.server.core.protocol import ProtocolError
from heartsuit.server.core.settings import Settings, sqlite_url
from heartsuit.server.hearts.game import hearts_game
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.site.app import create_app
from heartsuit.server.solitaire.game import solitaire_game
from heartsuit.server.solitaire.service import SolitaireService, _action_value
from heartsuit.server.solitaire.store import (
    GameRecord,
    MoveRecord,
    SqlSolitaireStore,
    Tally,
    snapshots,
)
from heartsuit.server.storage.db import Database
from heartsuit.solitaire import Game
from tests.server_support import TEST_ORIGINS, FakeClock, Peer, comparable, logged_actions

#: taps weighted towards the cards that are free early, so that games get somewhere
actions = st.lists(
    st.sampled_from(["stock", "stock", "waste", "undo", 25, 24, 23, 22, 21, 20, 19, 18, 1]),
    min_size=1,
    max_size=60,
)


def without_clock(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in snapshot.items() if k not in ("clock", "settings")}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plays=actions, number=st.integers(0, 40))
def test_replaying_the_log_rebuilds_the_same_game(
    tmp_path: Path, plays: list[int | str], number: int
) -> None:
    code = f"HH1-N-AAAAA{chr(65 + number // 26)}{chr(65 + number % 26)}"

    async def main() -> None:
        db = Database(sqlite_url(tmp_path / f"replay-{number}-{len(plays)}.sqlite3"))
        await db.open()
        store, players = SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db))
        try:
            clock = FakeClock()
            service = SolitaireService(store, players, clock=clock)
            player = (await players.hello(None)).id
            live = (await service.new_game(player, code)).live
            for action in plays:
                try:
                    if action == "undo":
                        await service.undo(player, live.record.id)
                    else:
                        await service.tap(player, live.record.id, action)
                except ProtocolError:
                    pass  # a finished game refuses; that must change nothing either
            fresh = SolitaireService(store, players, clock=FakeClock(clock.now))
            again = (await fresh.game_of(player, live.record.id)).live
            assert without_clock(again.game.to_dict()) == without_clock(live.game.to_dict())
            now = clock.now / 1000 + 5
            assert again.game.elapsed(now) == pytest.approx(live.game.elapsed(now))
            assert again.record == live.record
        finally:
            await db.close()

    asyncio.run(main())


class FailingOnce(SqlSolitaireStore):
    """A store whose next move-log write fails, as a full disk or a lost database would."""

    fail_next = False

    async def append_move(
        self,
        move: MoveRecord,
        summary: GameRecord,
        tally: Tally | None = None,
        snapshot: str | None = None,
    ) -> None:
        if self.fail_next:
            self.fail_next = False
            raise OSError("disk full")
        await super().append_move(move, summary, tally, snapshot)


def test_a_failed_log_write_closes_the_socket_and_the_log_stays_the_truth(
    tmp_path: Path,
) -> None:
    db = tmp_path / "site.sqlite3"
    database = Database(sqlite_url(db))
    store = FailingOnce(database)
    app = create_app(
        Settings(database_url=sqlite_url(db), origins=TEST_ORIGINS),
        games=[solitaire_game(store=store), hearts_game()],
        database=database,
        clock=FakeClock(),
    )
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as socket:
            peer = Peer(socket)
            player = peer.hello()
            game_id = peer.new_game("HH1-N-AAAAAAM")["id"]
            before = peer.tap(game_id, "stock")["game"]
            store.fail_next = True
            socket.send_text(json.dumps({"type": "solitaire.tap", "game": game_id,
                                         "target": "stock"}))
            closed = socket.receive()
            assert closed["type"] == "websocket.close" and closed["code"] == 1011
        assert logged_actions(db, game_id) == ["stock"]
        with client.websocket_connect("/ws") as socket:
            peer = Peer(socket)
            peer.hello(player)
            resumed = peer.ask("solitaire.resume")["game"]
            assert comparable(resumed) == comparable(before)
            assert peer.tap(game_id, "stock")["game"]["moves"] == 2


def test_two_tabs_tapping_at_once_keep_one_clean_log(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    app = create_app(Settings(database_url=sqlite_url(db), origins=TEST_ORIGINS), clock=FakeClock())
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as one, client.websocket_connect("/ws") as two:
            first, second = Peer(one), Peer(two)
            player = first.hello()
            second.hello(player)
            game_id = first.new_game("HH1-N-AAAAAAM")["id"]
            for req in range(100, 110):
                for socket in (one, two):
                    socket.send_text(json.dumps(
                        {"type": "solitaire.tap", "game": game_id, "target": "stock", "req": req}
                    ))
            moves = [peer.reply_to(req)["game"]["moves"] for req in range(100, 110)
                     for peer in (first, second)]
            assert sorted(moves) == list(range(1, 21))
            assert logged_actions(db, game_id) == ["stock"] * 20
            final = first.ask("solitaire.resume")["game"]
        with client.websocket_connect("/ws") as socket:
            third = Peer(socket)
            third.hello(player)
            assert comparable(third.ask("solitaire.resume")["game"]) == comparable(final)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plays=actions, number=st.integers(0, 40), every=st.integers(1, 9))
def test_a_resume_from_a_snapshot_is_the_game_the_whole_log_gives(
    tmp_path: Path, plays: list[int | str], number: int, every: int
) -> None:
    code = f"HH1-N-AAAAA{chr(65 + number // 26)}{chr(65 + number % 26)}"

    async def main() -> None:
        db = Database(sqlite_url(tmp_path / f"snap-{number}-{every}-{len(plays)}.sqlite3"))
        await db.open()
        store, players = SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db))
        try:
            clock = FakeClock()
            service = SolitaireService(store, players, clock=clock, snapshot_every=every)
            player = (await players.hello(None)).id
            live = (await service.new_game(player, code)).live
            for action in plays:
                try:
                    if action == "undo":
                        await service.undo(player, live.record.id)
                    else:
                        await service.tap(player, live.record.id, action)
                except ProtocolError:
                    pass
            game_id = live.record.id
            stored = await store.snapshot(game_id)
            length = live.record.log_length
            assert (stored is None) == (length < every)
            if stored is not None:
                assert stored[0] == length - length % every
            # a fresh server resumes from the snapshot; one that never snapshots, from the log
            fresh = SolitaireService(store, players, clock=FakeClock(clock.now))
            again = (await fresh.game_of(player, game_id)).live.game
            whole = Game.replay(
                code,
                [_action_value(m.action) for m in await store.moves(game_id)],
                # the engine runs on play time, 0 at the deal (each move logs its own)
                times=[(m.play_ms or 0) / 1000 for m in await store.moves(game_id)],
                start=0.0,
            )
            assert again.to_dict() == whole.to_dict()
            # (an ignored tap is not logged, but the live game saw its time)
            assert without_clock(again.to_dict()) == without_clock(live.game.to_dict())
        finally:
            await db.close()

    asyncio.run(main())


def test_a_damaged_snapshot_is_ignored_and_the_log_replayed(tmp_path: Path) -> None:
    async def main() -> None:
        db = Database(sqlite_url(tmp_path / "damaged.sqlite3"))
        await db.open()
        store, players = SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db))
        try:
            clock = FakeClock()
            service = SolitaireService(store, players, clock=clock, snapshot_every=2)
            player = (await players.hello(None)).id
            live = (await service.new_game(player, "HH1-N-AAAAAAM")).live
            for tap in ("stock", "stock", "stock", 25):
                await service.tap(player, live.record.id, tap)
            async with db.writing() as conn:
                await conn.execute(
                    update(snapshots).values(state='{"version": 1, "code": "HH1-N-AAAAAAB"}')
                )
            fresh = SolitaireService(store, players, clock=FakeClock(clock.now))
            again = (await fresh.game_of(player, live.record.id)).live.game
            assert again.to_dict() == live.game.to_dict() and again.selected == 25
        finally:
            await db.close()

    asyncio.run(main())
