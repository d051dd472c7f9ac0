"""A notice answered in the publisher's call: when a followed channel is idle (nothing queued,
nothing being handled) and its session can answer at once (``now``), the bus hands it the
notice inside ``publish``, without the queue and the task wake-up; otherwise, the queued way.

A toy game follows one channel per table with both ways and records which one answered each
notice; the sockets are TestClient's, with frames written at once as under ``heartsuit serve``
(``tests.server_support.SendNow``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from heartsuit.server.core.bus import LocalBus, Notice, notice
from heartsuit.server.core.connection import serve_socket
from heartsuit.server.core.game_service import Context, GameService
from heartsuit.server.core.player import Player
from heartsuit.server.core.protocol import ClientMessage, Reply
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.storage.db import Database
from tests.server_support import FakeClock, Peer, SendNow


class Follow(ClientMessage):
    type: Literal["toy.follow"]
    table: str


class Move(ClientMessage):
    """The socket's own intent: it changes the table ``times`` times (each one published on
    the table's channel, which this socket follows) before it is answered."""

    type: Literal["toy.move"]
    table: str
    times: int = 1


class Done(Reply):
    type: Literal["toy.done"] = "toy.done"


class Moved(Reply):
    type: Literal["toy.moved"] = "toy.moved"
    version: int


@notice("toy.direct_changed")
@dataclass(frozen=True, slots=True)
class Changed(Notice):
    table: str
    version: int


@dataclass
class Behaviour:
    """How the toy sessions answer (shared by the test and the server's loop)."""

    #: each answer: ("now", version), ("queued", version) or ("start", version)
    calls: list[tuple[str, int]] = field(default_factory=list)
    decline: bool = False
    fail: bool = False
    #: closed: the queued way waits for it before it answers (a busy listener)
    gate: asyncio.Event | None = None
    versions: dict[str, int] = field(default_factory=dict)


class ToySession:
    def __init__(self, context: Context, behaviour: Behaviour, bus: LocalBus) -> None:
        self.context = context
        self.behaviour = behaviour
        self.bus = bus

    async def hello(self, player: Player) -> Mapping[str, BaseModel]:
        return {}

    async def handle(self, player: Player, message: ClientMessage, req: int | None) -> None:
        behaviour = self.behaviour
        if isinstance(message, Follow):

            async def queued(notice: Notice) -> None:
                assert isinstance(notice, Changed)
                behaviour.calls.append(("start", notice.version))
                if behaviour.gate is not None:
                    await behaviour.gate.wait()
                behaviour.calls.append(("queued", notice.version))
                await self.context.send(Moved(version=notice.version))

            def now(notice: Notice) -> bool:
                assert isinstance(notice, Changed)
                if behaviour.fail:
                    raise RuntimeError("a bug in answering at once")
                if behaviour.decline:
                    return False
                if not self.context.send_now(Moved(version=notice.version)):
                    return False
                behaviour.calls.append(("now", notice.version))
                return True

            await self.context.follow(f"table:{message.table}", queued, now)
            await self.context.send(Done(), req)
        elif isinstance(message, Move):
            for _ in range(message.times):
                version = behaviour.versions.get(message.table, 0) + 1
                behaviour.versions[message.table] = version
                await self.bus.publish(f"table:{message.table}", Changed(message.table, version))
            await asyncio.sleep(0)  # the reply is not made at once: others may run meanwhile
            await self.context.send(Done(), req)

    async def notice(self, notice: Notice) -> None:
        pass

    async def close(self) -> None:
        pass


@dataclass
class ToyGame:
    behaviour: Behaviour
    bus: LocalBus
    messages: tuple[type[ClientMessage], ...] = (Follow, Move)

    def session(self, context: Context) -> ToySession:
        return ToySession(context, self.behaviour, self.bus)


@dataclass
class Toy:
    client: TestClient
    bus: LocalBus
    behaviour: Behaviour
    send_now: SendNow

    def publish(self, table: str, version: int) -> None:
        """Publish from a task of the server's loop that is no socket's."""
        self.client.portal.call(self.bus.publish, f"table:{table}", Changed(table, version))  # type: ignore[union-attr]

    def wait_for(self, call: tuple[str, int]) -> None:
        for _ in range(500):
            if call in self.behaviour.calls:
                return
            time.sleep(0.002)
        raise AssertionError(f"{call} never came: {self.behaviour.calls}")


@contextmanager
def toy_site(tmp_path: Path, queue_size: int = 64) -> Iterator[Toy]:
    db = Database(sqlite_url(tmp_path / "toy.sqlite3"))
    bus = LocalBus(queue_size)
    players = PlayerService(SqlPlayersStore(db), bus=bus, clock=FakeClock())
    behaviour = Behaviour()
    games: list[GameService] = [ToyGame(behaviour, bus)]

    async def ws(socket: WebSocket) -> None:
        await serve_socket(socket, players, games, bus, 16 * 1024)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await db.open()
        behaviour.gate = asyncio.Event()
        behaviour.gate.set()
        yield
        await db.close()

    send_now = SendNow()
    send_now.app = Starlette(routes=[WebSocketRoute("/ws", ws)], lifespan=lifespan)
    with TestClient(send_now) as client:
        yield Toy(client, bus, behaviour, send_now)


@contextmanager
def following(toy: Toy, table: str = "t") -> Iterator[Peer]:
    with toy.client.websocket_connect("/ws") as socket:
        peer = Peer(socket)
        peer.hello()
        assert peer.ask("toy.follow", table=table)["type"] == "toy.done"
        yield peer


def moved(peer: Peer, count: int) -> list[int]:
    return [int(peer.socket.receive_json()["version"]) for _ in range(count)]


def test_an_idle_channel_answers_a_notice_inside_the_publish(tmp_path: Path) -> None:
    with toy_site(tmp_path) as toy, following(toy) as one, following(toy) as two:
        written = toy.send_now.written
        toy.publish("t", 1)
        # both frames were written before publish returned: no task ran in between
        assert toy.send_now.written == written + 2
        assert toy.behaviour.calls == [("now", 1), ("now", 1)]
        assert moved(one, 1) == [1] == moved(two, 1)


def test_a_declined_notice_and_one_that_cannot_be_written_at_once_go_the_queued_way(
    tmp_path: Path,
) -> None:
    with toy_site(tmp_path) as toy, following(toy) as peer:
        toy.behaviour.decline = True
        toy.publish("t", 1)
        toy.wait_for(("queued", 1))
        toy.behaviour.decline = False
        toy.send_now.refuse = True  # a full outgoing buffer
        toy.publish("t", 2)
        toy.wait_for(("queued", 2))
        toy.send_now.refuse = False
        toy.publish("t", 3)
        assert moved(peer, 3) == [1, 2, 3]
        assert toy.behaviour.calls == [
            ("start", 1),
            ("queued", 1),
            ("start", 2),
            ("queued", 2),
            ("now", 3),
        ]


def test_while_a_notice_is_being_handled_the_next_ones_queue_behind_it_in_order(
    tmp_path: Path,
) -> None:
    with toy_site(tmp_path) as toy, following(toy) as peer:
        gate = toy.behaviour.gate
        assert gate is not None
        toy.client.portal.call(gate.clear)  # type: ignore[union-attr]
        toy.behaviour.decline = True
        toy.publish("t", 1)
        toy.wait_for(("start", 1))  # the listening task is busy with it
        toy.behaviour.decline = False
        toy.publish("t", 2)
        toy.publish("t", 3)
        assert ("now", 2) not in toy.behaviour.calls
        toy.client.portal.call(gate.set)  # type: ignore[union-attr]
        assert moved(peer, 3) == [1, 2, 3]
        assert [c for c in toy.behaviour.calls if c[0] != "start"] == [
            ("queued", 1),
            ("queued", 2),
            ("queued", 3),
        ]
        toy.publish("t", 4)  # idle again: at once
        assert moved(peer, 1) == [4] and toy.behaviour.calls[-1] == ("now", 4)


def test_a_notice_of_the_socket_s_own_intent_comes_after_the_reply_to_it(
    tmp_path: Path,
) -> None:
    with toy_site(tmp_path) as toy, following(toy) as actor, following(toy) as other:
        actor.socket.send_json({"type": "toy.move", "req": 50, "table": "t"})
        assert actor.socket.receive_json() == {"type": "toy.done", "req": 50}
        assert actor.socket.receive_json() == {"type": "toy.moved", "version": 1}
        # the other socket heard it inside the publish, the actor only after its reply
        assert moved(other, 1) == [1]
        assert sorted(toy.behaviour.calls) == [("now", 1), ("now", 1)]


def test_notices_kept_until_the_reply_are_bounded_as_a_queue_is(tmp_path: Path) -> None:
    with toy_site(tmp_path, queue_size=3) as toy, following(toy) as actor:
        actor.socket.send_json({"type": "toy.move", "req": 7, "table": "t", "times": 5})
        assert actor.socket.receive_json() == {"type": "toy.done", "req": 7}
        # a slow listener keeps the newest notices; losing the others is harmless by design
        assert moved(actor, 3) == [3, 4, 5]
        toy.publish("t", 6)
        assert moved(actor, 1) == [6]


def test_a_failure_in_answering_at_once_closes_that_socket_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with toy_site(tmp_path) as toy, following(toy, "a") as broken, following(toy, "b") as fine:
        toy.behaviour.fail = True
        toy.publish("a", 1)  # the publisher is not hurt: it returns
        with pytest.raises(WebSocketDisconnect) as closed:
            broken.socket.receive_json()
        assert closed.value.code == 1011
        assert "closing a WebSocket after an unexpected error" in caplog.text
        toy.behaviour.fail = False
        toy.publish("b", 1)
        assert moved(fine, 1) == [1]
