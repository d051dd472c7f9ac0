"""Helpers for the server tests: a site on a temporary SQLite file, a scripted clock, a client.

Not a test module itself. Every helper runs the real app (``create_app``) in Starlette's
``TestClient``; the database is inspected with the standard ``sqlite3`` module, independently
of the store under test.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from starlette.testclient import TestClient
from starlette.testclient import WebSocketTestSession as Socket

from heartsuit.server.core.settings import Settings, sqlite_url
from heartsuit.server.core.transport import SEND_NOW
from heartsuit.server.hearts.game import hearts_game
from heartsuit.server.hearts.settings import HeartsSettings
from heartsuit.server.site.app import GameMaker, create_app
from heartsuit.server.solitaire.game import solitaire_game

#: the origin of TestClient's requests and sockets, which /ws must accept
TEST_ORIGINS = ("http://testserver",)

#: the fake clock's first reading: a real-looking epoch time in milliseconds
START_MS = 1_700_000_000_000


class FakeClock:
    """Wall-clock milliseconds that advance by ``step`` on every reading: time without sleeping."""

    def __init__(self, start: int = START_MS, step: int = 1000) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> int:
        self.now += self.step
        return self.now


@dataclass
class Peer:
    """One WebSocket connection that matches replies to requests by ``req``."""

    socket: Socket
    #: the player id the server gave this connection (after :meth:`hello`)
    player: str = ""
    next_req: int = 1
    #: messages the server pushed without being asked (states from another tab, settings)
    pushed: list[dict[str, Any]] = field(default_factory=list)

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a message of ``kind`` and return the reply to it."""
        req = self.next_req
        self.next_req += 1
        self.socket.send_text(json.dumps({"type": kind, "req": req, **fields}))
        return self.reply_to(req)

    def reply_to(self, req: int) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = self.socket.receive_json()
            if message.get("req") == req:
                return message
            self.pushed.append(message)

    def wait_for_push(self, kind: str, tries: int = 200) -> dict[str, Any]:
        """The first pushed message of ``kind``, waiting for it with round trips (pushes travel
        through the bus, so they may arrive after the reply to a later request)."""
        for _ in range(tries):
            for message in self.pushed:
                if message.get("type") == kind:
                    self.pushed.remove(message)
                    return message
            self.ask("stats")
            time.sleep(0.005)
        raise AssertionError(f"no {kind!r} push arrived; pushed: {self.pushed}")

    def raw(self, text: str) -> dict[str, Any]:
        """Send a frame as is; the next message must be its (req-less) reply."""
        self.socket.send_text(text)
        message: dict[str, Any] = self.socket.receive_json()
        return message

    def hello(self, player: str | None = None) -> str:
        reply = self.ask("hello", player=player)
        assert reply["type"] == "welcome", reply
        self.player = reply["player"]
        return self.player

    def new_game(self, code: str | None = None, **fields: Any) -> dict[str, Any]:
        reply = self.ask("solitaire.new", code=code, **fields)
        assert reply["type"] == "solitaire.state", reply
        game: dict[str, Any] = reply["game"]
        return game

    def tap(self, game_id: str, target: int | str) -> dict[str, Any]:
        return self.ask("solitaire.tap", game=game_id, target=target)


@dataclass
class Site:
    client: TestClient
    db_path: Path
    clock: FakeClock

    @contextmanager
    def peer(self, player: str | None = None, *, hello: bool = True) -> Iterator[Peer]:
        with self.client.websocket_connect("/ws") as socket:
            peer = Peer(socket)
            if hello:
                peer.hello(player)
            yield peer


class SendNow:
    """The :data:`~heartsuit.server.core.transport.SEND_NOW` extension uvicorn's protocol offers
    (``heartsuit serve``), for TestClient's sockets: a frame written at once goes into the same
    stream as the ASGI sends, so the client reads every frame in the order it was written.
    ``refuse``: it declines (as with a full outgoing buffer); ``written`` counts its frames."""

    def __init__(self) -> None:
        self.app: Any = None
        self.refuse = False
        self.written = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            stream = send.__self__  # TestClient's send is its memory stream's send

            def send_text(data: bytes) -> bool:
                if self.refuse:
                    return False
                stream.send_nowait({"type": "websocket.send", "text": data.decode()})
                self.written += 1
                return True

            extensions = {**scope.get("extensions", {}), SEND_NOW: {"send_text": send_text}}
            scope = {**scope, "extensions": extensions}
        await self.app(scope, receive, send)


@contextmanager
def running_site(
    db_path: Path,
    *,
    clock: FakeClock | None = None,
    analyse: Callable[[str], bool] | None = None,
    send_now: SendNow | None = None,
    **settings_fields: Any,
) -> Iterator[Site]:
    """The real app on ``db_path`` (created if new), started and stopped around the block;
    ``settings_fields`` change :class:`Settings`, those named ``hearts_…`` the
    :class:`HeartsSettings` (``hearts_pace_ms=0``: computers at once);
    ``send_now``: a :class:`SendNow` (its ``app`` is set here) offers frames written at once."""
    clock = clock or FakeClock()
    settings_fields.setdefault("origins", TEST_ORIGINS)
    # ``database_url=`` (e.g. a PostgreSQL one) replaces the SQLite file at ``db_path``
    settings_fields.setdefault("database_url", sqlite_url(db_path))
    # ``hearts_pace_ms=0`` and the like are Hearts' own settings (hearts/settings.py)
    hearts = {
        key.removeprefix("hearts_"): settings_fields.pop(key)
        for key in list(settings_fields)
        if key.startswith("hearts_")
    }
    settings = Settings(**settings_fields)
    games: list[GameMaker] = [
        solitaire_game(analyse=analyse or (lambda code: True)),
        hearts_game(HeartsSettings(**hearts)),
    ]
    app: Any = create_app(settings, games=games, clock=clock)
    if send_now is not None:
        send_now.app, app = app, send_now
    with TestClient(app) as client:
        yield Site(client, db_path, clock)


def logged_actions(db_path: Path, game_id: str) -> list[str]:
    """The move log of a game as the database holds it, read outside the app."""
    with closing(sqlite3.connect(db_path)) as db:
        rows = db.execute(
            "SELECT action FROM solitaire_moves WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
    return [str(row[0]) for row in rows]


def game_row(db_path: Path, game_id: str) -> dict[str, Any]:
    with closing(sqlite3.connect(db_path)) as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM solitaire_games WHERE id = ?", (game_id,)).fetchone()
    assert row is not None, game_id
    return dict(row)


def comparable(game: dict[str, Any]) -> dict[str, Any]:
    """A game view without its clock (reading and whether it runs) and its log length, for
    comparing positions reached at different times or by different tabs (an undo comes back to
    a position with a longer log)."""
    return {k: v for k, v in game.items() if k not in ("elapsed_ms", "clock_running", "log_length")}


def site_rows(site: Site, query: str) -> list[tuple[Any, ...]]:
    """Rows of a query on the site's database, read outside the app."""
    with closing(sqlite3.connect(site.db_path)) as db:
        return list(db.execute(query).fetchall())


@contextmanager
def scratch_database(server_url: str, prefix: str) -> Iterator[str]:
    """A URL of a new, empty database named ``<prefix>_<random>`` on the PostgreSQL server of
    ``server_url`` (whose user may create databases), dropped afterwards even if still in use."""
    name = f"{prefix}_{secrets.token_hex(6)}"

    async def admin(statement: str) -> None:
        engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                await conn.execute(text(statement))
        finally:
            await engine.dispose()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(admin(f'DROP DATABASE "{name}" WITH (FORCE)'))
