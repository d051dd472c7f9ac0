"""The site's storage: players, games, the append-only move log and the deal-analysis cache.

:class:`Store` is the interface the service talks to; :class:`SqlStore` implements it with
SQLAlchemy 2 (async Core) on SQLite through aiosqlite by default, or on PostgreSQL through
asyncpg when ``DATABASE_URL`` says so — the same SQL runs on both. Game state is never stored
as a snapshot: a game is its deal code plus its move log, and any state is a replay of the log
(DESIGN.md, principle 4). The ``games`` row only summarises the log (status, moves, score, time)
so that statistics and "continue your game" need no replay; it is updated in the same
transaction as the move it summarises, so the two never disagree.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

#: how long a SQLite writer waits for another process's write lock before giving up
SQLITE_BUSY_TIMEOUT_S = 30.0


class GameStatus(StrEnum):
    """Where a game stands; ``won``, ``dead_end`` and ``abandoned`` count in the statistics."""

    PLAYING = "playing"
    WON = "won"
    #: no move can help any more; still open to Undo, so it stays the player's current game
    DEAD_END = "dead_end"
    #: the player started another game while this one was unfinished (counts as a loss)
    ABANDONED = "abandoned"


#: games the player may still continue ("continue your game", resume after a reload)
OPEN_STATUSES = (GameStatus.PLAYING, GameStatus.DEAD_END)


class StoreError(RuntimeError):
    """The store could not do what was asked (a bug or an outage, never the player's input)."""


class MoveConflict(StoreError):
    """Another writer already logged this move number: the caller's copy of the game is stale."""


@dataclass(frozen=True, slots=True)
class Preferences:
    """A player's settings, as stored."""

    move_errors: bool = False
    placement_help: bool = True
    winnable_only: bool = False


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: str
    created_at_ms: int
    preferences: Preferences


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game's row: its identity and a summary of its move log."""

    id: str
    player_id: str
    code: str
    started_at_ms: int
    status: GameStatus = GameStatus.PLAYING
    moves: int = 0
    score: int = 0
    #: when the game reached its current end (won, dead end, abandoned); None while playing
    ended_at_ms: int | None = None
    #: the frozen game time of a finished game, from its start to its last move
    elapsed_ms: int | None = None
    #: how many entries the move log holds (the next entry's sequence number)
    log_length: int = 0


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One accepted action of a game: a tap ("1".."25", "stock", "waste") or "undo"."""

    game_id: str
    seq: int
    action: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class DealAnalysis:
    """What the solver found about a deal, cached because solving can be slow."""

    code: str
    winnable: bool
    #: moves in the shortest win, when winnable
    solution_moves: int | None = None


class Store(Protocol):
    """What the service needs from storage. Implementations must make ``append_move`` atomic."""

    async def open(self) -> None: ...
    async def close(self) -> None: ...

    async def get_player(self, player_id: str) -> PlayerRecord | None: ...
    async def create_player(self, player: PlayerRecord) -> None: ...
    async def save_preferences(self, player_id: str, preferences: Preferences) -> None: ...

    async def start_game(self, game: GameRecord, now_ms: int) -> list[str]:
        """Add ``game`` and mark the player's open games abandoned; returns their ids."""
        ...

    async def get_game(self, game_id: str) -> GameRecord | None: ...
    async def open_game(self, player_id: str) -> GameRecord | None:
        """The player's most recent game still playing or at a dead end."""
        ...

    async def player_games(self, player_id: str) -> list[GameRecord]: ...
    async def moves(self, game_id: str) -> list[MoveRecord]: ...

    async def append_move(self, move: MoveRecord, summary: GameRecord) -> None:
        """Log ``move`` and store ``summary`` as the game's row, both or neither.

        Raises :class:`MoveConflict` if the log already has an entry ``move.seq``.
        """
        ...

    async def deal_analysis(self, code: str) -> DealAnalysis | None: ...
    async def save_deal_analysis(self, analysis: DealAnalysis) -> None: ...


metadata = MetaData()

players = Table(
    "players",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("move_errors", Boolean, nullable=False),
    Column("placement_help", Boolean, nullable=False),
    Column("winnable_only", Boolean, nullable=False),
)

games = Table(
    "solitaire_games",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("player_id", String(64), ForeignKey("players.id"), nullable=False),
    Column("code", String(32), nullable=False),
    Column("started_at_ms", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),
    Column("moves", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("ended_at_ms", BigInteger, nullable=True),
    Column("elapsed_ms", BigInteger, nullable=True),
    Column("log_length", Integer, nullable=False),
    Index("ix_solitaire_games_player_status", "player_id", "status"),
)

moves_log = Table(
    "solitaire_moves",
    metadata,
    Column("game_id", String(64), ForeignKey("solitaire_games.id"), primary_key=True),
    # the primary key (game, seq) is what makes a second writer of the same move fail loudly
    Column("seq", Integer, primary_key=True),
    Column("action", String(8), nullable=False),
    Column("at_ms", BigInteger, nullable=False),
)

deals = Table(
    "solitaire_deals",
    metadata,
    Column("code", String(32), primary_key=True),
    Column("winnable", Boolean, nullable=False),
    Column("solution_moves", Integer, nullable=True),
)


def _game_from_row(row: Any) -> GameRecord:
    return GameRecord(
        id=row.id,
        player_id=row.player_id,
        code=row.code,
        started_at_ms=row.started_at_ms,
        status=GameStatus(row.status),
        moves=row.moves,
        score=row.score,
        ended_at_ms=row.ended_at_ms,
        elapsed_ms=row.elapsed_ms,
        log_length=row.log_length,
    )


def _game_values(game: GameRecord) -> dict[str, Any]:
    return {
        "status": game.status.value,
        "moves": game.moves,
        "score": game.score,
        "ended_at_ms": game.ended_at_ms,
        "elapsed_ms": game.elapsed_ms,
        "log_length": game.log_length,
    }


class SqlStore:
    """:class:`Store` on SQLAlchemy's async engine; tables are created on :meth:`open`."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self._engine: AsyncEngine | None = None
        self._echo = echo
        self._write_lock: asyncio.Lock | None = None

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction, committed on leaving the block (rolled back on an error)."""
        if self._write_lock is None:
            async with self.engine.begin() as conn:
                yield conn
            return
        async with self._write_lock, self.engine.begin() as conn:
            yield conn

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise StoreError("the store is not open")
        return self._engine

    async def open(self) -> None:
        if self._engine is not None:
            return
        is_sqlite = self.url.startswith("sqlite")
        engine = create_async_engine(
            self.url,
            echo=self._echo,
            # a writer from another process waits this long for SQLite's lock before failing
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S} if is_sqlite else {},
        )
        if is_sqlite:
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
            # SQLite has one writer at a time: queue this process's writers here, in the event
            # loop, rather than in SQLite's busy handler (and so that a transaction that reads
            # before it writes can never find its snapshot overtaken)
            self._write_lock = asyncio.Lock()
        async with engine.begin() as conn:
            await conn.run_sync(metadata.create_all)
        self._engine = engine

    async def close(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    # --- players ---

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(players).where(players.c.id == player_id))).first()
        if row is None:
            return None
        prefs = Preferences(row.move_errors, row.placement_help, row.winnable_only)
        return PlayerRecord(row.id, row.created_at_ms, prefs)

    async def create_player(self, player: PlayerRecord) -> None:
        prefs = player.preferences
        async with self._writing() as conn:
            await conn.execute(
                insert(players).values(
                    id=player.id,
                    created_at_ms=player.created_at_ms,
                    move_errors=prefs.move_errors,
                    placement_help=prefs.placement_help,
                    winnable_only=prefs.winnable_only,
                )
            )

    async def save_preferences(self, player_id: str, preferences: Preferences) -> None:
        async with self._writing() as conn:
            await conn.execute(
                update(players)
                .where(players.c.id == player_id)
                .values(
                    move_errors=preferences.move_errors,
                    placement_help=preferences.placement_help,
                    winnable_only=preferences.winnable_only,
                )
            )

    # --- games and their move logs ---

    async def start_game(self, game: GameRecord, now_ms: int) -> list[str]:
        open_ = and_(
            games.c.player_id == game.player_id,
            games.c.status.in_([s.value for s in OPEN_STATUSES]),
        )
        async with self._writing() as conn:
            left = [r.id for r in await conn.execute(select(games.c.id).where(open_))]
            if left:
                await conn.execute(
                    update(games)
                    .where(games.c.id.in_(left))
                    .values(status=GameStatus.ABANDONED.value, ended_at_ms=now_ms)
                )
            await conn.execute(
                insert(games).values(
                    id=game.id,
                    player_id=game.player_id,
                    code=game.code,
                    started_at_ms=game.started_at_ms,
                    **_game_values(game),
                )
            )
        return left

    async def get_game(self, game_id: str) -> GameRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(games).where(games.c.id == game_id))).first()
        return None if row is None else _game_from_row(row)

    async def open_game(self, player_id: str) -> GameRecord | None:
        query = (
            select(games)
            .where(games.c.player_id == player_id)
            .where(games.c.status.in_([s.value for s in OPEN_STATUSES]))
            .order_by(games.c.started_at_ms.desc())
            .limit(1)
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _game_from_row(row)

    async def player_games(self, player_id: str) -> list[GameRecord]:
        query = (
            select(games).where(games.c.player_id == player_id).order_by(games.c.started_at_ms)
        )
        async with self.engine.connect() as conn:
            return [_game_from_row(r) for r in await conn.execute(query)]

    async def moves(self, game_id: str) -> list[MoveRecord]:
        query = (
            select(moves_log).where(moves_log.c.game_id == game_id).order_by(moves_log.c.seq)
        )
        async with self.engine.connect() as conn:
            rows = await conn.execute(query)
            return [MoveRecord(r.game_id, r.seq, r.action, r.at_ms) for r in rows]

    async def append_move(self, move: MoveRecord, summary: GameRecord) -> None:
        if summary.id != move.game_id or summary.log_length != move.seq + 1:
            raise StoreError(f"summary of {summary.id} does not follow move {move.seq}")
        try:
            async with self._writing() as conn:
                await conn.execute(
                    insert(moves_log).values(
                        game_id=move.game_id, seq=move.seq, action=move.action, at_ms=move.at_ms
                    )
                )
                await conn.execute(
                    update(games).where(games.c.id == summary.id).values(**_game_values(summary))
                )
        except IntegrityError as exc:
            raise MoveConflict(f"move {move.seq} of game {move.game_id} is already logged") from exc

    # --- the solver's cache ---

    async def deal_analysis(self, code: str) -> DealAnalysis | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(deals).where(deals.c.code == code))).first()
        return None if row is None else DealAnalysis(row.code, row.winnable, row.solution_moves)

    async def save_deal_analysis(self, analysis: DealAnalysis) -> None:
        try:
            async with self._writing() as conn:
                await conn.execute(
                    insert(deals).values(
                        code=analysis.code,
                        winnable=analysis.winnable,
                        solution_moves=analysis.solution_moves,
                    )
                )
        except IntegrityError:
            pass  # another request analysed the same deal first; the answer is the same


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the statistics page read while a move is being written; foreign keys keep the log
    # tied to real games. synchronous stays FULL (the default): a move is on disk, not only in
    # the OS's buffers, before its reply (NORMAL would halve a tap's latency but could lose the
    # last moves to a power cut)
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def all_tables() -> Sequence[Table]:
    return tuple(metadata.sorted_tables)
