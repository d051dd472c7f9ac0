"""Anonymous players, for every game: who a connection is, and each game's preferences.

A player is an unguessable id that the browser keeps (``hello`` brings it back) and nothing
else: no name, no password. :class:`PlayerService` owns players and their preferences per game;
the games own what their preferences mean. A game reads its preferences with its own pydantic
model (solitaire's is ``PlayerSettings``), stored as JSON under the game's name, so adding a game
adds no column here. Changing preferences tells the player's other tabs on their channel
(:class:`PlayerChanged`), and each tab's games look again.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from heartsuit.server.core.bus import Bus, Notice, notice
from heartsuit.server.core.clock import Clock, wall_ms
from heartsuit.server.core.player import PLAYER_ID, Player, player_channel
from heartsuit.server.players.store import PlayerRecord, PlayersStore

#: how many given-out, not yet stored ids a process remembers
ISSUED_IDS = 100_000

Prefs = TypeVar("Prefs", bound=BaseModel)


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
        #: ids given out but not stored yet (the player has not played): a second tab opened
        #: before the first game keeps the same player; bounded, oldest forgotten first
        self._issued: OrderedDict[str, Player] = OrderedDict()

    async def hello(self, player_id: object) -> Player:
        """The player of a kept id, or a new player when the id is absent, unknown or odd.

        A new player is not stored yet (:meth:`ensure` does that when they first play or save
        a preference): a visit that never plays costs no row.
        """
        if isinstance(player_id, str) and PLAYER_ID.fullmatch(player_id):
            issued = self._issued.get(player_id)
            if issued is not None:
                return issued
            found = await self.store.get_player(player_id)
            if found is not None:
                return found
        player = PlayerRecord(secrets.token_urlsafe(16), self.clock())
        self._issued[player.id] = player
        if len(self._issued) > ISSUED_IDS:
            self._issued.popitem(last=False)
        return player

    def forget(self, player_id: str) -> None:
        """Forget an id given out by :meth:`hello` but not stored (a refused ``hello``)."""
        self._issued.pop(player_id, None)

    async def ensure(self, player_id: str) -> None:
        """Store the player, if not yet stored (before anything of theirs is written)."""
        issued = self._issued.pop(player_id, None)
        if issued is not None or await self.store.get_player(player_id) is None:
            player = issued or PlayerRecord(player_id, self.clock())
            await self.store.create_player(player, exist_ok=True)

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
        await self.ensure(player_id)
        await self.store.save_preferences(player_id, game, prefs.model_dump_json())
        if self.bus is not None:
            await self.bus.publish(player_channel(player_id), PlayerChanged(player_id))
