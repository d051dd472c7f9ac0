"""Heart to Heart's storage: games, their append-only move logs and the deal-analysis cache.

:class:`SolitaireStore` is what :class:`~heartsuit.server.solitaire_service.SolitaireService`
needs; :class:`SqlSolitaireStore` implements it on the shared
:class:`~heartsuit.server.db.Database`. Game state is never stored as a snapshot: a game is its
deal code plus its move log, and any state is a replay of the log (DESIGN.md, principle 4). The
``solitaire_games`` row only summarises the log (status, moves, score, time) so that statistics
and "continue your game" need no replay; it is updated in the same transaction as the move it
summarises, so the two never disagree.
"""

from __future__ import annotations

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
    String,
    Table,
    and_,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from heartsuit.server.db import Database, MoveConflict, StoreError, metadata


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


class SolitaireStore(Protocol):
    """What the solitaire service needs from storage. ``append_move`` must be atomic."""

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


class SqlSolitaireStore:
    """:class:`SolitaireStore` on SQL (tables from migration 0001)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # --- games and their move logs ---

    async def start_game(self, game: GameRecord, now_ms: int) -> list[str]:
        open_ = and_(
            games.c.player_id == game.player_id,
            games.c.status.in_([s.value for s in OPEN_STATUSES]),
        )
        async with self.db.writing() as conn:
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
        async with self.db.reading() as conn:
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
        async with self.db.reading() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _game_from_row(row)

    async def player_games(self, player_id: str) -> list[GameRecord]:
        query = (
            select(games).where(games.c.player_id == player_id).order_by(games.c.started_at_ms)
        )
        async with self.db.reading() as conn:
            return [_game_from_row(r) for r in await conn.execute(query)]

    async def moves(self, game_id: str) -> list[MoveRecord]:
        query = (
            select(moves_log).where(moves_log.c.game_id == game_id).order_by(moves_log.c.seq)
        )
        async with self.db.reading() as conn:
            rows = await conn.execute(query)
            return [MoveRecord(r.game_id, r.seq, r.action, r.at_ms) for r in rows]

    async def append_move(self, move: MoveRecord, summary: GameRecord) -> None:
        if summary.id != move.game_id or summary.log_length != move.seq + 1:
            raise StoreError(f"summary of {summary.id} does not follow move {move.seq}")
        try:
            async with self.db.writing() as conn:
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
        async with self.db.reading() as conn:
            row = (await conn.execute(select(deals).where(deals.c.code == code))).first()
        return None if row is None else DealAnalysis(row.code, row.winnable, row.solution_moves)

    async def save_deal_analysis(self, analysis: DealAnalysis) -> None:
        try:
            async with self.db.writing() as conn:
                await conn.execute(
                    insert(deals).values(
                        code=analysis.code,
                        winnable=analysis.winnable,
                        solution_moves=analysis.solution_moves,
                    )
                )
        except IntegrityError:
            pass  # another request analysed the same deal first; the answer is the same
