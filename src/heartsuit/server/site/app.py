"""The application factory: the site's routes, static files, ``/ws``, and the app's lifetime.

``create_app(settings, games=…)`` wires the parts together and nothing more: one
:class:`~heartsuit.server.storage.db.Database` (on ``settings.database_url`` unless one is given,
as the tests do) is opened, and so migrated, when the app starts and closed when it stops;
players come from :class:`PlayerService`; messages between sockets go through a
:class:`~heartsuit.server.core.bus.Bus`; and each game is made from those parts by its package
(:func:`default_games`: Heart to Heart and Hearts) — a
:class:`~heartsuit.server.core.game_service.Game` with its pages, APIs and end of ``/ws``. This
is the one module that names the games.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from heartsuit.server.core.assets import Compression
from heartsuit.server.core.bus import Bus, LocalBus
from heartsuit.server.core.clock import Clock, wall_ms
from heartsuit.server.core.connection import client_parser, serve_socket
from heartsuit.server.core.game_service import Game
from heartsuit.server.core.headers import SecurityHeaders
from heartsuit.server.core.limits import site_limits
from heartsuit.server.core.redis_bus import RedisBus
from heartsuit.server.core.settings import Settings, allowed_hosts, allowed_origins
from heartsuit.server.hearts.game import hearts_game
from heartsuit.server.hearts.settings import HeartsSettings
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.site import pages
from heartsuit.server.solitaire.game import solitaire_game
from heartsuit.server.storage.db import Database


class GameMaker(Protocol):
    """How a game's package makes its :class:`Game` from the site's parts
    (``hearts.game.hearts_game(…)`` returns one)."""

    def __call__(
        self,
        *,
        settings: Settings,
        database: Database,
        players: PlayerService,
        bus: Bus,
        clock: Clock,
    ) -> Game: ...


def default_games(env: Mapping[str, str] | None = None) -> list[GameMaker]:
    """The site's games: Heart to Heart and Hearts, with code defaults, or (``env``, as
    ``heartsuit serve`` does) with what the environment sets."""
    hearts = HeartsSettings.from_env(env) if env is not None else HeartsSettings()
    return [solitaire_game(), hearts_game(hearts)]


#: the one WebSocket address
SOCKET_PATH = "/ws"

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


def create_app(
    settings: Settings | None = None,
    *,
    games: Sequence[GameMaker] | None = None,
    database: Database | None = None,
    bus: Bus | None = None,
    clock: Clock = wall_ms,
) -> Starlette:
    """The site as an ASGI app with ``games`` (by default :func:`default_games`)."""
    settings = settings or Settings.from_env()
    db = database or Database(settings.database_url, echo=settings.echo_sql)
    redis_bus: RedisBus | None = None
    if bus is None and settings.redis_url:
        bus = redis_bus = RedisBus(settings.redis_url)
    bus = bus if bus is not None else LocalBus()
    players = PlayerService(SqlPlayersStore(db), bus=bus, clock=clock)
    made: list[Game] = [
        make(settings=settings, database=db, players=players, bus=bus, clock=clock)
        for make in (games if games is not None else default_games())
    ]
    names = [game.name for game in made]
    if len(set(names)) != len(names):
        raise ValueError(f"two games share a name: {names}")
    endpoints = [game.endpoint for game in made]
    parser = client_parser(endpoints)
    limits = site_limits(
        connections_per_address=settings.max_connections_per_address,
        tabs_per_player=settings.max_tabs_per_player,
        hellos_per_minute=settings.hellos_per_minute,
        new_players_per_minute=settings.new_players_per_minute,
        address_share=settings.address_share,
        groups=[
            (
                settings.new_games_per_minute,
                tuple(t for game in made for t in game.new_game_messages),
            ),
            (settings.lookups_per_minute, tuple(t for game in made for t in game.lookup_messages)),
        ],
    )
    origins = allowed_origins(settings)
    hosts = allowed_hosts(settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            await db.open()
            stack.push_async_callback(db.close)
            if redis_bus is not None:
                await redis_bus.start()
                stack.push_async_callback(redis_bus.close)
            for game in made:
                # the last started stops first; a game that fails to start stops the others
                await game.start()
                stack.push_async_callback(game.stop)
            yield

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def ws(socket: WebSocket) -> None:
        # a page of another site must not play as the person visiting it (their cookies and
        # player come along), nor a rebound DNS name reach this server: only our own pages
        origin = socket.headers.get("origin")
        host = socket.headers.get("host", "").lower()
        if (origin is not None and origin.lower() not in origins) or host not in hosts:
            await socket.close(code=1008)  # before accepting: the browser sees a 403
            return
        await serve_socket(
            socket, players, endpoints, bus, settings.max_frame_bytes, parser, limits
        )

    async def ws_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await ws(WebSocket(scope, receive, send))

    routes: list[BaseRoute] = [
        *pages.routes,
        # content-hashed, precompressed, cached for a year (server/core/assets.py)
        Route("/static/{path:path}", pages.ASSETS.endpoint, name="static"),
        Route("/healthz", healthz),
        *(route for game in made for route in game.routes),
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
    app.state.games = made
    for game in made:
        setattr(app.state, game.name, game.service)
    app.state.bus = bus
    app.state.limits = limits
    return app
