"""Heart to Heart as the site mounts it: its service on the store, its end of ``/ws``, its pages
and its two HTTP APIs (``/api/stats``, ``/api/examples``).

``solitaire_game(…)`` is what ``create_app`` is given; the site calls it with its parts and gets
a :class:`SolitaireGame`, a :class:`~heartsuit.server.core.game_service.Game`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from heartsuit.server.core.bus import Bus
from heartsuit.server.core.clock import Clock
from heartsuit.server.core.player import PLAYER_HEADER, header_player
from heartsuit.server.core.settings import Settings
from heartsuit.server.players.service import PlayerService
from heartsuit.server.solitaire import examples, pages
from heartsuit.server.solitaire.endpoint import SolitaireEndpoint
from heartsuit.server.solitaire.protocol import StatsRequest
from heartsuit.server.solitaire.service import Analyse, SolitaireService
from heartsuit.server.solitaire.settings import SolitaireSettings
from heartsuit.server.solitaire.stats import DEFAULT_PAGE
from heartsuit.server.solitaire.store import SolitaireStore, SqlSolitaireStore
from heartsuit.server.storage.db import Database

#: the messages that start a game, counted by the site's new-games limit
NEW_GAME_MESSAGES: Final = ("solitaire.new", "solitaire.restart")


class JSON(JSONResponse):
    """JSON that keeps "♥" readable instead of escaping it."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class SolitaireGame:
    """Heart to Heart games on one database and one bus."""

    name: Final = "solitaire"
    new_game_messages: Final = NEW_GAME_MESSAGES
    lookup_messages: Final = ()

    def __init__(
        self,
        options: SolitaireSettings,
        *,
        store: SolitaireStore | None,
        analyse: Analyse | None,
        database: Database,
        players: PlayerService,
        bus: Bus,
        clock: Clock,
    ) -> None:
        self.service: Final = SolitaireService(
            store or SqlSolitaireStore(database),
            players,
            bus=bus,
            clock=clock,
            analyse=analyse if analyse is not None else examples.deal_is_winnable,
            winnable_attempts=options.winnable_attempts,
            live_games=options.live_games,
        )
        self.endpoint: Final = SolitaireEndpoint(self.service)
        self._examples: list[dict[str, Any]] = []
        self._examples_lock = anyio.Lock()

    @property
    def routes(self) -> Sequence[BaseRoute]:
        return [
            *pages.routes,
            Route("/api/stats", self.api_stats),
            Route("/api/examples", self.api_examples),
        ]

    async def api_stats(self, request: Request) -> Response:
        """The player's results (the same body as the ``stats`` message), the per-deal list in
        pages: ``?offset=N&limit=M`` (1..100)."""
        player = header_player(request.headers.get(PLAYER_HEADER))
        try:
            page = StatsRequest(
                type="stats",
                offset=int(request.query_params.get("offset", "0")),
                limit=int(request.query_params.get("limit", str(DEFAULT_PAGE))),
            )
        except ValueError:
            return JSON(
                {"error": "offset is a whole number from 0, limit one from 1 to 100"},
                status_code=400,
            )
        reply = await self.service.stats(player, page.offset, page.limit)
        # one player's own figures: no cache keeps them
        return JSON(reply.model_dump(mode="json"), headers={"Cache-Control": "no-store"})

    async def api_examples(self, request: Request) -> Response:
        async with self._examples_lock:
            if not self._examples:
                # replaying and solving is CPU work: keep the event loop free while it runs
                self._examples.append(await anyio.to_thread.run_sync(examples.example_document))
        return JSON(self._examples[0], headers={"Cache-Control": "public, max-age=3600"})

    async def start(self) -> None:
        """Nothing to resume: a game waits for its player."""

    async def stop(self) -> None:
        """Nothing runs on its own."""


def solitaire_game(
    options: SolitaireSettings | None = None,
    *,
    store: SolitaireStore | None = None,
    analyse: Analyse | None = None,
) -> Callable[..., SolitaireGame]:
    """Heart to Heart for ``create_app``; ``store`` and ``analyse`` (the solver, by default the
    engine's) may be replaced, as tests do."""
    chosen = options if options is not None else SolitaireSettings()

    def make(
        *, settings: Settings, database: Database, players: PlayerService, bus: Bus, clock: Clock
    ) -> SolitaireGame:
        return SolitaireGame(
            chosen,
            store=store,
            analyse=analyse,
            database=database,
            players=players,
            bus=bus,
            clock=clock,
        )

    return make
