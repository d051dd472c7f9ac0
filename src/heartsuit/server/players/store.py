"""Where players are kept: the anonymous player rows and each player's preferences per game.

:class:`PlayersStore` is what :class:`~heartsuit.server.players.service.PlayerService` needs;
:class:`SqlPlayersStore` implements it on the shared :class:`~heartsuit.server.storage.db.Database`.
Preferences are stored per (player, game) as a JSON object: this module never knows what a
game's settings are (each game reads them with its own typed model), so a new game needs no
new column and no migration for its settings.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    String,
    Table,
    Text,
    bindparam,
    insert,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from heartsuit.server.core.player import Player
from heartsuit.server.storage.db import Database, Step, metadata

#: the stored player is the core's :class:`~heartsuit.server.core.player.Player`
PlayerRecord = Player


class PlayersStore(Protocol):
    async def get_player(self, player_id: str) -> PlayerRecord | None: ...
    async def create_player(self, player: PlayerRecord, *, exist_ok: bool = False) -> None:
        """Store a new player; with ``exist_ok`` an id already stored is left as it is."""
        ...

    async def preferences(self, player_id: str, game: str) -> str | None:
        """The JSON text of the player's preferences for ``game``; None if never saved."""
        ...

    async def save_preferences(self, player_id: str, game: str, prefs: str) -> None:
        """Store ``prefs`` (a JSON object's text) as the player's preferences for ``game``."""
        ...


players = Table(
    "players",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("created_at_ms", BigInteger, nullable=False),
)

player_preferences = Table(
    "player_preferences",
    metadata,
    Column("player_id", String(64), ForeignKey("players.id"), primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("prefs", Text, nullable=False),
)


# the reads of every new game and every socket (constants: built once)
_PLAYER = select(players).where(players.c.id == bindparam("b_player", type_=String))
_PREFERENCES = select(player_preferences.c.prefs).where(
    player_preferences.c.player_id == bindparam("b_player", type_=String),
    player_preferences.c.game == bindparam("b_game", type_=String),
)


_ADD_PLAYER = insert(players)


class _Upserts:
    """The inserts that differ between SQLite and PostgreSQL (``ON CONFLICT``)."""

    def __init__(self, postgres: bool) -> None:
        upsert = pg_insert if postgres else sqlite_insert
        self.player = upsert(players).on_conflict_do_nothing(index_elements=[players.c.id])
        prefs = upsert(player_preferences)
        self.preferences = prefs.on_conflict_do_update(
            index_elements=[player_preferences.c.player_id, player_preferences.c.game],
            set_={"prefs": prefs.excluded.prefs},
        )


_UPSERTS = {postgres: _Upserts(postgres) for postgres in (False, True)}


class SqlPlayersStore:
    """:class:`PlayersStore` on SQL (tables from migrations 0001 and 0002)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._upserts = _UPSERTS[db.is_postgres]

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        params = {"b_player": player_id}
        row = await self.db.read(lambda conn: conn.execute(_PLAYER, params).first(), single=True)
        return None if row is None else PlayerRecord(row.id, row.created_at_ms)

    async def create_player(self, player: PlayerRecord, *, exist_ok: bool = False) -> None:
        # group commit, as the moves: a crowd of new visitors shares its commits. With
        # ``exist_ok`` (two tabs of a new player may both play first) the second insert is a
        # no-op; without it, an id already stored raises IntegrityError
        row = {"id": player.id, "created_at_ms": player.created_at_ms}
        statement = self._upserts.player if exist_ok else _ADD_PLAYER
        await self.db.write(Step(statement, [row]), key=player.id)

    async def preferences(self, player_id: str, game: str) -> str | None:
        params = {"b_player": player_id, "b_game": game}
        return await self.db.read(
            lambda conn: conn.execute(_PREFERENCES, params).scalar_one_or_none(), single=True
        )

    async def save_preferences(self, player_id: str, game: str, prefs: str) -> None:
        # one atomic upsert: two tabs saving at once must not both try to insert the row
        row = {"player_id": player_id, "game": game, "prefs": prefs}
        await self.db.write(Step(self._upserts.preferences, [row]), key=player_id)
