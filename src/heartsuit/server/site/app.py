"""The application factory: routes, static files, the JSON API, ``/ws`` and the app's lifetime.

``create_app(settings)`` wires the parts together and nothing more: pages come from
:mod:`heartsuit.server.site.pages`; one :class:`~heartsuit.server.storage.db.Database` (on
``settings.database_url`` unless one is given, as the tests do) is opened, and so migrated,
when the app starts and closed when it stops; each store takes that database; players come
from :class:`PlayerService`; the games are the
:class:`~heartsuit.server.core.game_service.GameService` list that ``/ws`` dispatches to, one line
per game; messages between sockets go through a :class:`~heartsuit.server.core.bus.Bus`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from heartsuit.server.core.assets import Compression
from heartsuit.server.core.bus import Bus, LocalBus
from heartsuit.server.core.clock import Clock, wall_ms
from heartsuit.server.core.connection import client_parser, serve_socket
from heartsuit.server.core.game_service import GameService
from heartsuit.server.core.headers import SecurityHeaders
from heartsuit.server.core.limits import site_limits
from heartsuit.server.core.redis_bus import RedisBus
from heartsuit.server.core.settings import Settings, allowed_hosts, allowed_origins
from heartsuit.server.hearts.endpoint import HeartsEndpoint
from heartsuit.server.hearts.redis_leases import RedisTables
from heartsuit.server.hearts.service import HeartsService
from heartsuit.server.hearts.stats import HeartsStats
from heartsuit.server.hearts.stats_store import SqlHeartsStatsStore
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.hearts.thinking_pool import ThinkingPool
from heartsuit.server.players.service import PLAYER_ID, PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.site import pages
from heartsuit.server.solitaire import examples
from heartsuit.server.solitaire.endpoint import SolitaireEndpoint
from heartsuit.server.solitaire.protocol import StatsRequest
from heartsuit.server.solitaire.service import Analyse, SolitaireService
from heartsuit.server.solitaire.stats import DEFAULT_PAGE
from heartsuit.server.solitaire.store import SolitaireStore, SqlSolitaireStore
from heartsuit.server.storage.db import Database

#: the one WebSocket address
SOCKET_PATH = "/ws"

#: the request header that carries the player's id to ``/api/stats``
PLAYER_HEADER = "x-heartsuit-player"
#: answers smaller than this go uncompressed (gzip's own framing would eat the gain)
GZIP_MINIMUM_BYTES = 500


class Site(Starlette):
    """Starlette, except that a WebSocket on :data:`SOCKET_PATH` goes straight to its
    endpoint: its frames then cross none of the layers made for HTTP (the error and exception
    middlewares, the security headers, compression, the router), each of which would wrap
    every frame's ``send`` in one more coroutine. Anything else takes the usual way."""

    def __init__(self, *, socket_endpoint: ASGIApp, **options: Any) -> None:
        super().__init__(**options)
        self.socket_endpoint = socket_endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "websocket"
            and scope["path"] == SOCKET_PATH
            and not scope.get("root_path")
        ):
            scope["app"] = self
            await self.socket_endpoint(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class _JSON(JSONResponse):
    """JSON that keeps "♥" readable instead of escaping it."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


#: the messages that start a game: one rate per player (and its ceiling per address)
NEW_GAME_TYPES = ("solitaire.new", "solitaire.restart", "hearts.create")
#: the messages that look a table up: another
LOOKUP_TYPES = ("hearts.invite", "hearts.replay")


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
    redis_bus: RedisBus | None = None
    if bus is None and settings.redis_url:
        bus = redis_bus = RedisBus(settings.redis_url)
    # several processes: Hearts tables get leases and presence shared through Redis
    shared = (
        RedisTables(settings.redis_url, lease_ms=settings.hearts_lease_ms)
        if settings.redis_url
        else None
    )
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
    hearts = HeartsService(
        SqlTableStore(db),
        bus=bus,
        clock=clock,
        pace_ms=settings.hearts_pace_ms,
        grace_ms=settings.hearts_grace_ms,
        live_tables=settings.live_tables,
        shared=shared,
        thinking=ThinkingPool(settings.hearts_thinkers),
    )
    # the players' Hearts statistics, counted as matches end (server/hearts/stats.py)
    hearts_stats = hearts.counting = HeartsStats(SqlHeartsStatsStore(db), hearts.store)
    games: list[GameService] = [
        SolitaireEndpoint(solitaire),
        HeartsEndpoint(hearts),
    ]
    parser = client_parser(games)
    limits = site_limits(
        connections_per_address=settings.max_connections_per_address,
        tabs_per_player=settings.max_tabs_per_player,
        hellos_per_minute=settings.hellos_per_minute,
        new_players_per_minute=settings.new_players_per_minute,
        address_share=settings.address_share,
        groups=[
            (settings.new_games_per_minute, NEW_GAME_TYPES),
            (settings.lookups_per_minute, LOOKUP_TYPES),
        ],
    )
    origins = allowed_origins(settings)
    hosts = allowed_hosts(settings)
    example_cache: list[dict[str, Any]] = []
    example_lock = anyio.Lock()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await db.open()
        if redis_bus is not None:
            await redis_bus.start()
        try:
            # tables under way when the server stopped go on: their computers play again
            await hearts.start()
            yield
        finally:
            await hearts.stop()
            if redis_bus is not None:
                await redis_bus.close()
            await db.close()

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def api_stats(request: Request) -> Response:
        # the id is the player's only credential: a header, never the URL (access logs keep URLs)
        player = request.headers.get(PLAYER_HEADER, "")
        # an absent or unknown id simply has no games yet: no error, and nothing to learn from
        if not PLAYER_ID.fullmatch(player):
            player = ""
        # the per-deal list comes in pages: ?offset=N&limit=M (1..100), as the stats message
        try:
            page = StatsRequest(
                type="stats",
                offset=int(request.query_params.get("offset", "0")),
                limit=int(request.query_params.get("limit", str(DEFAULT_PAGE))),
            )
        except ValueError:
            return _JSON(
                {"error": "offset is a whole number from 0, limit one from 1 to 100"},
                status_code=400,
            )
        reply = await solitaire.stats(player, page.offset, page.limit)
        # one player's own figures: no cache keeps them
        return _JSON(reply.model_dump(mode="json"), headers={"Cache-Control": "no-store"})

    async def api_examples(request: Request) -> Response:
        async with example_lock:
            if not example_cache:
                # replaying and solving is CPU work: keep the event loop free while it runs
                example_cache.append(await anyio.to_thread.run_sync(examples.example_document))
        return _JSON(example_cache[0], headers={"Cache-Control": "public, max-age=3600"})

    async def ws(socket: WebSocket) -> None:
        # a page of another site must not play as the person visiting it (their cookies and
        # player come along), nor a rebound DNS name reach this server: only our own pages
        origin = socket.headers.get("origin")
        host = socket.headers.get("host", "").lower()
        if (origin is not None and origin.lower() not in origins) or host not in hosts:
            await socket.close(code=1008)  # before accepting: the browser sees a 403
            return
        await serve_socket(socket, players, games, bus, settings.max_frame_bytes, parser, limits)

    async def ws_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await ws(WebSocket(scope, receive, send))

    routes: list[BaseRoute] = [
        *pages.routes,
        # content-hashed, precompressed, cached for a year (server/core/assets.py)
        Route("/static/{path:path}", pages.ASSETS.endpoint, name="static"),
        Route("/healthz", healthz),
        Route("/api/stats", api_stats),
        *hearts_stats.routes(PLAYER_HEADER),
        Route("/api/examples", api_examples),
        # reached through Site's short cut; the route names it (and serves under a root path)
        WebSocketRoute(SOCKET_PATH, ws),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        # gzip for pages and JSON; static files come compressed already
        Middleware(Compression, minimum_size=GZIP_MINIMUM_BYTES),
    ]
    app = Site(
        socket_endpoint=ws_endpoint,
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        # an unknown address gets the site's own page, in the reader's language
        exception_handlers={404: pages.not_found},
    )
    app.state.settings = settings
    app.state.database = db
    app.state.players = players
    app.state.solitaire = solitaire
    app.state.hearts = hearts
    app.state.bus = bus
    app.state.limits = limits
    return app
