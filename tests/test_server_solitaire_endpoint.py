"""Heart to Heart's endpoint seen from one connection (no socket): what it asks of the service."""

from __future__ import annotations

import asyncio
from pathlib import Path

from heartsuit.server.core import messages
from heartsuit.server.core.game_service import NoticeNow, OnNotice
from heartsuit.server.core.player import Player
from heartsuit.server.core.protocol import Encoded, Reply, encode
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerChanged, PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.endpoint import SolitaireEndpoint
from heartsuit.server.solitaire.protocol import PlayerSettings, SettingsUpdate, SolitaireNew
from heartsuit.server.solitaire.service import GAME, SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database


class Tab:
    """The connection's side of a session: frames kept, no socket."""

    def __init__(self, player: Player) -> None:
        self._player = player
        self.frames: list[str] = []

    @property
    def player(self) -> Player | None:
        return self._player

    @property
    def lang(self) -> messages.Lang:
        return "en"

    async def send(self, message: Reply | Encoded, req: int | None = None) -> None:
        self.frames.append(encode(message, req))

    def send_now(self, message: Reply | Encoded) -> bool:
        return False

    async def follow(self, channel: str, on_notice: OnNotice, now: NoticeNow | None = None) -> None:
        return None

    def unfollow(self, channel: str) -> None:
        return None


def test_a_random_deal_follows_the_tabs_winnable_setting_without_reading_it_again(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        db = Database(sqlite_url(tmp_path / "endpoint.sqlite3"))
        await db.open()
        try:
            asked: list[str] = []

            def analyse(code: str) -> bool:
                asked.append(code)
                return True

            players = PlayerService(SqlPlayersStore(db))
            service = SolitaireService(SqlSolitaireStore(db), players, analyse=analyse)
            player = await players.hello(None)
            tab = Tab(player)
            session = SolitaireEndpoint(service).session(tab)
            await session.hello(player)
            read: list[str] = []
            preferences = service.preferences

            async def counted(player_id: str) -> PlayerSettings:
                read.append(player_id)
                return await preferences(player_id)

            service.preferences = counted  # type: ignore[method-assign]
            await session.handle(player, SolitaireNew(type="solitaire.new"), 1)
            assert asked == [] and read == []  # the setting is off: no solver
            await session.handle(player, SettingsUpdate(type="settings", winnable_only=True), 2)
            read.clear()
            first = tab.frames[0]
            await session.handle(player, SolitaireNew(type="solitaire.new", leave=None), 3)
            assert read == [] and len(asked) == 1  # the tab's setting, not a second read
            assert '"type":"solitaire.state"' in tab.frames[-1] and tab.frames[-1] != first
            # a message that says it overrides the setting
            await session.handle(player, SolitaireNew(type="solitaire.new", winnable_only=False), 4)
            assert len(asked) == 1
            # another tab's change reaches this one through the player's notice
            await players.save_preferences(player.id, GAME, PlayerSettings(winnable_only=False))
            await session.notice(PlayerChanged(player.id))
            await session.handle(player, SolitaireNew(type="solitaire.new"), 5)
            assert len(asked) == 1
        finally:
            await db.close()

    asyncio.run(main())
