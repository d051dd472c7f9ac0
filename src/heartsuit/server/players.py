"""Anonymous players, for every game: who a connection is, and each game's preferences.

A player is an unguessable id that the browser keeps (``hello`` brings it back) and nothing
else: no name, no password. :class:`PlayerService` owns players and their preferences per game;
the games own what their preferences mean. A game reads its preferences with its own pydantic
model (solitaire's is ``PlayerSettings``), stored as JSON under the game's name, so adding a game
adds no column here. Changing preferences tells the player's other tabs on their channel
(:class:`PlayerChanged`), and each tab's games look again.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from heartsuit.server.bus import Bus, Notice, notice
from heartsuit.server.clock import Clock, wall_ms
from heartsuit.server.players_store import PlayerRecord, PlayersStore

#: what a fresh player id looks like (``secrets.token_urlsafe(16)`` gives 22 such characters)
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")

Player = PlayerRecord
"""A player as the services see it (the stored record; it holds nothing secret)."""

Prefs = TypeVar("Prefs", bound=BaseModel)


def player_channel(player_id: str) -> str:
    """The bus channel of one player's tabs: their preferences and their own games."""
    return f"player:{player_id}"


@notice("player_changed")
@dataclass(frozen=True, slots=True)
class PlayerChanged(Notice):
    """The player's preferences changed (in some game): every game of every tab looks again."""

    player: str


class PlayerService:
    """Players on top of a :class:`PlayersStore`, telling a :class:`Bus` about changes."""

    def __init__(
        self, store: PlayersStore, *, bus: Bus | None = None, clock: Clock = wall_ms
    ) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock

    async def hello(self, player_id: object) -> Player:
        """The player of a kept id, or a new player when the id is absent, unknown or odd."""
        if isinstance(player_id, str) and PLAYER_ID.fullmatch(player_id):
            found = await self.store.get_player(player_id)
            if found is not None:
                return found
        player = PlayerRecord(secrets.token_urlsafe(16), self.clock())
        await self.store.create_player(player)
        return player

    async def preferences(self, player_id: str, game: str, model: type[Prefs]) -> Prefs:
        """The player's preferences for ``game``; the model's defaults if none were saved.

        Stored preferences that the model no longer reads (an older shape, a hand edit) also
        give the defaults: a player's page must open, whatever the database holds.
        """
        stored = await self.store.preferences(player_id, game)
        if stored is not None:
            try:
                return model.model_validate_json(stored)
            except ValidationError:
                pass
        return model()

    async def save_preferences(self, player_id: str, game: str, prefs: BaseModel) -> None:
        """Store the player's preferences for ``game`` and tell the player's other tabs."""
        await self.store.save_preferences(player_id, game, prefs.model_dump_json())
        if self.bus is not None:
            await self.bus.publish(player_channel(player_id), PlayerChanged(player_id))
