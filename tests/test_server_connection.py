"""The connection's seam for games: a second game registers, gets its own messages, adds to
``welcome``, and follows channels of its own, while Heart to Heart goes on as before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket

from heartsuit.server.core.bus import LocalBus, Notice, notice
from heartsuit.server.core.connection import client_parser, serve_socket
from heartsuit.server.core.game_service import Context, GameService
from heartsuit.server.core.player import Player
from heartsuit.server.core.protocol import ClientMessage, Reply
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.endpoint import SolitaireEndpoint
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database
from tests.server_support import FakeClock, Peer


class Sit(ClientMessage):
    type: Literal["toy.sit"]
    table: str


class Leave(ClientMessage):
    type: Literal["toy.leave"]
    table: str


class Seated(Reply):
    type: Literal["toy.seated"] = "toy.seated"
    table: str
    player: str


class Moved(Reply):
    type: Literal["toy.moved"] = "toy.moved"
    table: str
    version: int


class ToyPrefs(BaseModel):
    speed: str = "slow"


@notice("toy.table_changed")
@dataclass(frozen=True, slots=True)
class TableChanged(Notice):
    table: str
    version: int


class ToySession:
    def __init__(self, context: Context) -> None:
        self.context = context

    async def hello(self, player: Player) -> Mapping[str, BaseModel]:
        return {"toy": ToyPrefs()}

    async def handle(self, player: Player, message: ClientMessage, req: int | None) -> None:
        if isinstance(message, Sit):
            table = message.table

            async def moved(notice: Notice) -> None:
                if isinstance(notice, TableChanged):
                    await self.context.send(Moved(table=table, version=notice.version))

            await self.context.follow(f"table:{table}", moved)
            await self.context.send(Seated(table=table, player=player.id), req)
        elif isinstance(message, Leave):
            self.context.unfollow(f"table:{message.table}")
            await self.context.send(Seated(table="", player=player.id), req)

    async def notice(self, notice: Notice) -> None:
        pass

    async def close(self) -> None:
        pass


class ToyGame:
    messages: tuple[type[ClientMessage], ...] = (Sit, Leave)

    def session(self, context: Context) -> ToySession:
        return ToySession(context)


@contextmanager
def site_with_two_games(tmp_path: Path) -> Iterator[tuple[TestClient, LocalBus]]:
    db = Database(sqlite_url(tmp_path / "two.sqlite3"))
    bus = LocalBus()
    clock = FakeClock()
    players = PlayerService(SqlPlayersStore(db), bus=bus, clock=clock)
    solitaire = SolitaireService(SqlSolitaireStore(db), players, bus=bus, clock=clock)
    games: list[GameService] = [SolitaireEndpoint(solitaire), ToyGame()]

    async def ws(socket: WebSocket) -> None:
        await serve_socket(socket, players, games, bus, 16 * 1024)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await db.open()
        yield
        await db.close()

    app = Starlette(routes=[WebSocketRoute("/ws", ws)], lifespan=lifespan)
    with TestClient(app) as client:
        yield client, bus


def test_a_second_game_answers_its_messages_and_follows_its_channels(tmp_path: Path) -> None:
    with site_with_two_games(tmp_path) as (client, bus), client.websocket_connect("/ws") as ws:
        peer = Peer(ws)
        assert peer.ask("toy.sit", table="t1")["code"] == "no_player"
        welcome = peer.ask("hello")
        assert welcome["toy"] == {"speed": "slow"}
        assert set(welcome["settings"]) == {"move_errors", "placement_help", "winnable_only"}
        assert peer.ask("toy.sit", table="t1") == {
            "type": "toy.seated", "table": "t1", "player": welcome["player"], "req": 3
        }
        assert peer.ask("toy.sit")["code"] == "bad_message"
        assert peer.ask("toy.fly")["code"] == "unknown_type"
        # Heart to Heart goes on beside it
        assert peer.ask("solitaire.resume")["type"] == "solitaire.none"
        assert client.portal is not None
        client.portal.call(bus.publish, "table:t1", TableChanged("t1", 4))
        assert peer.wait_for_push("toy.moved") == {"type": "toy.moved", "table": "t1",
                                                   "version": 4}
        assert bus.subscriber_count("table:t1") == 1
        peer.ask("toy.leave", table="t1")
        for _ in range(100):
            if bus.subscriber_count("table:t1") == 0:
                break
            client.portal.call(asyncio.sleep, 0.01)
        assert bus.subscriber_count("table:t1") == 0


def test_two_games_cannot_own_one_message_type() -> None:
    class Again(ClientMessage):
        type: Literal["toy.sit"]

    class Clash:
        messages: tuple[type[ClientMessage], ...] = (Again,)

        def session(self, context: Context) -> ToySession:
            return ToySession(context)

    with pytest.raises(ValueError, match=r"toy\.sit"):
        client_parser([ToyGame(), Clash()])


def test_a_message_needs_a_literal_type() -> None:
    class Loose(ClientMessage):
        pass

    class Game:
        messages: tuple[type[ClientMessage], ...] = (Loose,)

        def session(self, context: Context) -> ToySession:
            return ToySession(context)

    with pytest.raises(TypeError, match="Literal"):
        client_parser([Game()])

