"""Hearts as the site mounts it: its service on the store, its end of ``/ws`` and its pages.

``hearts_game(settings)`` is what ``create_app`` is given; the site calls it with its parts (the
core settings, the database, the players, the bus and the clock) and gets a :class:`HeartsGame`,
a :class:`~heartsuit.server.core.game_service.Game`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from starlette.routing import BaseRoute

from heartsuit.server.core.bus import Bus
from heartsuit.server.core.clock import Clock
from heartsuit.server.core.player import PLAYER_HEADER
from heartsuit.server.core.settings import Settings
from heartsuit.server.hearts import pages
from heartsuit.server.hearts.endpoint import HeartsEndpoint
from heartsuit.server.hearts.redis_leases import RedisTables
from heartsuit.server.hearts.service import HeartsService
from heartsuit.server.hearts.settings import HeartsSettings
from heartsuit.server.hearts.stats import HeartsStats
from heartsuit.server.hearts.stats_store import SqlHeartsStatsStore
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.hearts.thinking_pool import ThinkingPool
from heartsuit.server.players.service import PlayerService
from heartsuit.server.storage.db import Database

#: the message that starts a table, counted by the site's new-games limit
NEW_GAME_MESSAGES: Final = ("hearts.create",)
#: the messages that look a table up by a short secret (an invite) or a table id
LOOKUP_MESSAGES: Final = ("hearts.invite", "hearts.replay", "hearts.hint")


class HeartsGame:
    """Hearts tables on one database, one bus and (with ``REDIS_URL``) shared leases."""

    name: Final = "hearts"
    new_game_messages: Final = NEW_GAME_MESSAGES
    lookup_messages: Final = LOOKUP_MESSAGES

    def __init__(
        self,
        hearts: HeartsSettings,
        *,
        settings: Settings,
        database: Database,
        players: PlayerService,
        bus: Bus,
        clock: Clock,
    ) -> None:
        # several processes: tables get leases and presence shared through Redis
        shared = (
            RedisTables(settings.redis_url, lease_ms=hearts.lease_ms)
            if settings.redis_url
            else None
        )
        self.service: Final = HeartsService(
            SqlTableStore(database),
            bus=bus,
            clock=clock,
            pace_ms=hearts.pace_ms,
            grace_ms=hearts.grace_ms,
            next_hand_ms=hearts.next_hand_ms,
            live_tables=hearts.live_tables,
            shared=shared,
            thinking=ThinkingPool(hearts.thinkers),
        )
        # the players' Hearts statistics, counted as matches end (server/hearts/stats.py)
        self.stats: Final = HeartsStats(SqlHeartsStatsStore(database), self.service.store)
        self.service.counting = self.stats
        self.endpoint: Final = HeartsEndpoint(self.service)

    @property
    def routes(self) -> Sequence[BaseRoute]:
        return [*pages.routes, *self.stats.routes(PLAYER_HEADER)]

    async def start(self) -> None:
        # tables under way when the server stopped go on: their computers play again
        await self.service.start()

    async def stop(self) -> None:
        await self.service.stop()


def hearts_game(hearts: HeartsSettings | None = None) -> Callable[..., HeartsGame]:
    """Hearts with ``hearts`` (code defaults: computers think in process) for ``create_app``."""
    chosen = hearts if hearts is not None else HeartsSettings()

    def make(
        *, settings: Settings, database: Database, players: PlayerService, bus: Bus, clock: Clock
    ) -> HeartsGame:
        return HeartsGame(
            chosen, settings=settings, database=database, players=players, bus=bus, clock=clock
        )

    return make
