"""The application factory: routes, static files, the JSON API, ``/ws`` and the app's lifetime.

``create_app(settings)`` wires the parts together and nothing more: pages come from
:mod:`heartsuit.server.pages`; one :class:`~heartsuit.server.db.Database` (on
``settings.database_url`` unless one is given, as the tests do) is opened, and so migrated,
when the app starts and closed when it stops; each store takes that database; players come
from :class:`PlayerService`; the games are the :class:`~heartsuit.server.service.GameService`
list that ``/ws`` dispatches to, one line per game; messages between sockets go through a
:class:`~heartsuit.server.bus.Bus`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from heartsuit.server import examples, pages
from heartsuit.server.bus import Bus, LocalBus
from heartsuit.server.clock import Clock, wall_ms
from heartsuit.server.connection import client_parser, serve_socket
from heartsuit.server.db import Database
from heartsuit.server.players import PLAYER_ID, PlayerService
from heartsuit.server.players_store import SqlPlayersStore
from heartsuit.server.service import GameService
from heartsuit.server.settings import Settings
from heartsuit.server.solitaire_endpoint import SolitaireEndpoint
from heartsuit.server.solitaire_service import Analyse, SolitaireService
from heartsuit.server.solitaire_store import SolitaireStore, SqlSolitaireStore


class _JSON(JSONResponse):
    """JSON that keeps "♥" readable instead of escaping it."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def create_app(
    settings: Settings | None = None,
    *,
    database: Database | None = None,
    solitaire_store: SolitaireStore | None = None,
    bus: Bus | None = None,
    clock: Clock = wall_ms,
    analyse: Analyse | None = None,
) -> Starlette:
    """The site as an ASGI app. ``analyse`` (the solver) defaults to the engine's solver."""
    settings = settings or Settings.from_env()
    db = database or Database(settings.database_url, echo=settings.echo_sql)
    bus = bus if bus is not None else LocalBus()
    players = PlayerService(SqlPlayersStore(db), bus=bus, clock=clock)
    solitaire = SolitaireService(
        solitaire_store or SqlSolitaireStore(db),
        players,
        bus=bus,
        clock=clock,
        analyse=analyse if analyse is not None else examples.deal_is_winnable,
        winnable_attempts=settings.winnable_attempts,
        live_games=settings.live_games,
    )
    games: list[GameService] = [
        SolitaireEndpoint(solitaire),
    ]
    parser = client_parser(games)
    example_cache: list[dict[str, Any]] = []
    example_lock = anyio.Lock()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await db.open()
        try:
            yield
        finally:
            await db.close()

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def api_stats(request: Request) -> Response:
        player = request.query_params.get("player", "")
        # an absent or unknown id simply has no games yet: no error, and nothing to learn from
        if not PLAYER_ID.fullmatch(player):
            player = ""
        reply = await solitaire.stats(player)
        return _JSON(reply.model_dump(mode="json"))

    async def api_examples(request: Request) -> Response:
        async with example_lock:
            if not example_cache:
                # replaying and solving is CPU work: keep the event loop free while it runs
                example_cache.append(await anyio.to_thread.run_sync(examples.example_document))
        return _JSON(example_cache[0], headers={"Cache-Control": "public, max-age=3600"})

    async def ws(socket: WebSocket) -> None:
        await serve_socket(socket, players, games, bus, settings.max_frame_bytes, parser)

    routes: list[BaseRoute] = [
        *pages.routes,
        Mount("/static", StaticFiles(directory=pages.STATIC_DIR, check_dir=False), name="static"),
        Route("/healthz", healthz),
        Route("/api/stats", api_stats),
        Route("/api/examples", api_examples),
        WebSocketRoute("/ws", ws),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.settings = settings
    app.state.database = db
    app.state.players = players
    app.state.solitaire = solitaire
    app.state.bus = bus
    return app
