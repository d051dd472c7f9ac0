"""Heart to Heart's storage: games, their append-only move logs, the players' running totals
and the deal-analysis cache.

:class:`SolitaireStore` is what :class:`~heartsuit.server.solitaire.service.SolitaireService`
needs; :class:`SqlSolitaireStore` implements it on the shared
:class:`~heartsuit.server.storage.db.Database`. A game is its deal code plus its move log, and any
state is a replay of the log (DESIGN.md, principle 4). Beside the log:

- the ``solitaire_games`` row summarises the log (status, moves, score, time) so that
  "continue your game" needs no replay;
- ``solitaire_snapshots`` keeps, per game, the engine's state after every
  :data:`SNAPSHOT_EVERY`-th log entry, so that a resume replays at most that many entries (a
  snapshot is only a shortcut: the log stays the truth, and a snapshot that cannot be read is
  ignored);
- ``solitaire_player_stats`` and ``solitaire_code_stats`` are each player's running totals
  (:class:`Tally`), so that statistics cost the same at 5 games and 5,000.

All of them change in the same transaction as the log entry (or the new game) they follow, so
they never disagree with it.

Why one module of this length: it is the table definitions, the :class:`SolitaireStore`
protocol and the one class that implements it, whose writes each touch several of these
tables in one transaction (a move: the log, the game's row, the totals, a snapshot); split
by table, every write would reach into every part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    case,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from heartsuit.server.storage.db import Database, MoveConflict, Step, StoreError, metadata


class GameStatus(StrEnum):
    """Where a game stands; ``won``, ``dead_end`` and ``abandoned`` count in the statistics."""

    PLAYING = "playing"
    WON = "won"
    #: no move can help any more; still open to Undo, so it stays the player's current game
    #: (it counts as a loss while it stands there)
    DEAD_END = "dead_end"
    #: left (another game started) under way or at a dead end: a loss
    ABANDONED = "abandoned"
    #: left without a move made (or with every move undone): not a game played
    UNPLAYED = "unplayed"
    #: dead from the deal itself (no pair can ever be made): shown as such, never counted
    DEAD_DEAL = "dead_deal"
    #: a dead deal that was left
    UNPLAYABLE = "unplayable"


#: games the player may still continue ("continue your game", resume after a reload)
OPEN_STATUSES = (GameStatus.PLAYING, GameStatus.DEAD_END, GameStatus.DEAD_DEAL)
#: games that count in the statistics
COUNTED = (GameStatus.WON, GameStatus.DEAD_END, GameStatus.ABANDONED)
#: a snapshot of the engine is stored after every this many log entries
SNAPSHOT_EVERY = 200


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
    #: play time counted before ``running_since_ms`` (the clock counts only while a page shows
    #: the game, visible and connected)
    played_ms: int = 0
    #: when the play clock last started running (wall-clock ms); None while it is paused
    running_since_ms: int | None = None

    def play_ms(self, now_ms: int) -> int:
        """The game's play time at wall-clock ``now_ms``: the engine's clock runs on it."""
        if self.running_since_ms is None:
            return self.played_ms
        return self.played_ms + max(0, now_ms - self.running_since_ms)


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One accepted action of a game: a tap ("1".."25", "stock", "waste") or "undo"."""

    game_id: str
    seq: int
    action: str
    at_ms: int
    #: the page's id of the intent that wrote it (None for older entries and older pages)
    intent: str | None = None
    #: the game's play time at the move (None in logs written before play time: read
    #: ``at_ms - started_at_ms`` then, as migration 0006 does)
    play_ms: int | None = None


class TallyKind(StrEnum):
    """How a change of a game changes its player's running totals."""

    #: the game was won: a game, a win, the streak grows, the bests may improve
    WIN = "win"
    #: the game reached a dead end or was left under way: a game, the streak ends
    LOSS = "loss"
    #: an undo left the dead end that was counted: the loss is taken back, the streak restored
    UNLOSS = "unloss"
    #: a deal dead from the start was dealt (shown in the statistics, never counted as a game)
    DEAD_DEAL = "dead_deal"


@dataclass(frozen=True, slots=True)
class Tally:
    """One change to a player's running totals, caused by ``game`` (its new summary)."""

    kind: TallyKind
    game: GameRecord
    #: for a win of the deal of the day, on its day: that day (UTC days since 1970-01-01)
    daily_day: int | None = None


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """A player's running totals: every figure of the statistics, kept as games end."""

    games: int = 0
    wins: int = 0
    current_streak: int = 0
    best_streak: int = 0
    best_time_ms: int | None = None
    fewest_moves: int | None = None
    dead_deals: int = 0
    #: days in a row the deal of the day was won, up to the day of ``last_daily_day``
    daily_streak: int = 0
    best_daily_streak: int = 0
    #: the last day (UTC days since 1970-01-01) the player won the deal of the day
    last_daily_day: int | None = None


@dataclass(frozen=True, slots=True)
class DailyTotals:
    """Everyone's totals for one deal code (the deal of the day): from the per-code totals."""

    code: str
    players: int = 0
    winners: int = 0
    best_time_ms: int | None = None
    fewest_moves: int | None = None


@dataclass(frozen=True, slots=True)
class CodeTotals:
    """A player's running totals for one deal code."""

    code: str
    games: int
    wins: int
    best_time_ms: int | None
    fewest_moves: int | None
    #: when a game of this code was last counted (the list shows the latest first)
    last_at_ms: int


@dataclass(frozen=True, slots=True)
class DealAnalysis:
    """What the solver found about a deal, cached because solving can be slow."""

    code: str
    winnable: bool
    #: moves in the shortest win, when winnable
    solution_moves: int | None = None


class SolitaireStore(Protocol):
    """What the solitaire service needs from storage. ``append_move`` must be atomic."""

    async def start_game(
        self, game: GameRecord, left: Sequence[GameRecord] = (), tallies: Sequence[Tally] = ()
    ) -> None:
        """Add ``game``, store ``left`` (the player's open games, closed) and apply
        ``tallies`` to the running totals, all or nothing."""
        ...

    async def get_game(self, game_id: str) -> GameRecord | None: ...
    async def open_game(self, player_id: str) -> GameRecord | None:
        """The player's most recent open game (playing, at a dead end, or a dead deal)."""
        ...

    async def open_games(self, player_id: str) -> list[GameRecord]:
        """All the player's open games, newest first (one, unless something went wrong)."""
        ...

    async def player_games(self, player_id: str) -> list[GameRecord]: ...
    async def moves(self, game_id: str, since: int = 0) -> list[MoveRecord]:
        """The log of a game from entry ``since`` on."""
        ...

    async def intents(self, game_id: str, since: int = 0) -> dict[str, int]:
        """The intent ids logged for a game from entry ``since`` on, each with its entry, and
        the quiet ones answered at a log length of ``since`` or more, each with that length."""
        ...

    async def note_quiet_intent(self, game_id: str, intent: str, at_length: int) -> None:
        """Keep an intent that changed nothing (answered at log length ``at_length``); noting
        one twice changes nothing."""
        ...

    async def snapshot(self, game_id: str) -> tuple[int, str] | None:
        """The newest stored snapshot of a game: (log length it follows, the engine's JSON)."""
        ...

    async def append_move(
        self,
        move: MoveRecord,
        summary: GameRecord,
        tally: Tally | None = None,
        snapshot: str | None = None,
    ) -> None:
        """Log ``move``, store ``summary`` as the game's row (all but its play clock, which
        only :meth:`set_clock` writes), apply ``tally`` and store ``snapshot`` (the engine's
        state after the move, as JSON), all or nothing.

        Raises :class:`MoveConflict` if the log already has an entry ``move.seq``, or an entry
        of ``move.intent``.
        """
        ...

    async def totals(self, player_id: str) -> PlayerTotals:
        """The player's running totals (all zero for an unknown player)."""
        ...

    async def code_totals(
        self, player_id: str, offset: int, limit: int
    ) -> tuple[list[CodeTotals], int]:
        """One page of the player's per-code totals, latest first, and how many codes there
        are in all."""
        ...

    async def set_clock(self, game: GameRecord) -> None:
        """Store the play clock of ``game`` (``played_ms``, ``running_since_ms``)."""
        ...

    async def code_summary(self, code: str) -> DailyTotals:
        """Every player's totals for ``code``, added up (the deal of the day's statistics)."""
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
    # the player's current streak just before this game's dead end was counted, so that an
    # undo out of the dead end can take the loss back exactly; None otherwise
    Column("streak_before", Integer, nullable=True),
    # the play clock (migration 0006): time counted so far, and since when it runs (or None)
    Column("played_ms", BigInteger, nullable=False, server_default="0"),
    Column("running_since_ms", BigInteger, nullable=True),
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
    # the page's id of the tap or undo (migration 0005): a frame sent again is recognised by it
    Column("intent", String(64), nullable=True),
    # the game's play time at the move (None: older than migration 0006's values)
    Column("play_ms", BigInteger, nullable=True),
    Index("ux_solitaire_moves_game_intent", "game_id", "intent", unique=True),
)

# intents that changed nothing (migration 0007): not moves, so not in the log, but remembered so
# that the same frame sent again later is answered as a repeat instead of applied
quiet_intents = Table(
    "solitaire_quiet_intents",
    metadata,
    Column("game_id", String(64), ForeignKey("solitaire_games.id"), primary_key=True),
    Column("intent", String(64), primary_key=True),
    # the game's log length when the intent was answered
    Column("at_length", Integer, nullable=False),
)

snapshots = Table(
    "solitaire_snapshots",
    metadata,
    Column("game_id", String(64), ForeignKey("solitaire_games.id"), primary_key=True),
    # the snapshot is the game after this many log entries
    Column("log_length", Integer, nullable=False),
    # Game.to_dict() as JSON
    Column("state", Text, nullable=False),
)

player_stats = Table(
    "solitaire_player_stats",
    metadata,
    Column("player_id", String(64), ForeignKey("players.id"), primary_key=True),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("current_streak", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("best_time_ms", BigInteger, nullable=True),
    Column("fewest_moves", Integer, nullable=True),
    Column("dead_deals", Integer, nullable=False),
    Column("daily_streak", Integer, nullable=False, server_default="0"),
    Column("best_daily_streak", Integer, nullable=False, server_default="0"),
    Column("last_daily_day", Integer, nullable=True),
)

code_stats = Table(
    "solitaire_code_stats",
    metadata,
    Column("player_id", String(64), ForeignKey("players.id"), primary_key=True),
    Column("code", String(32), primary_key=True),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("best_time_ms", BigInteger, nullable=True),
    Column("fewest_moves", Integer, nullable=True),
    Column("last_at_ms", BigInteger, nullable=False),
    Index("ix_solitaire_code_stats_player_last", "player_id", "last_at_ms"),
    # everyone's totals of one code (the deal of the day's statistics), migration 0006
    Index("ix_solitaire_code_stats_code", "code"),
)

deals = Table(
    "solitaire_deals",
    metadata,
    Column("code", String(32), primary_key=True),
    Column("winnable", Boolean, nullable=False),
    Column("solution_moves", Integer, nullable=True),
)


def _least(column: Any, value: Any) -> Any:
    """The smaller of a nullable column and the nullable parameter ``value`` (None counts as
    no value)."""
    return case(
        (value.is_(None), column),
        (column.is_(None), value),
        (column > value, value),
        else_=column,
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
        played_ms=row.played_ms,
        running_since_ms=row.running_since_ms,
    )


def _game_values(game: GameRecord) -> dict[str, Any]:
    return {
        "status": game.status.value,
        "moves": game.moves,
        "score": game.score,
        "ended_at_ms": game.ended_at_ms,
        "elapsed_ms": game.elapsed_ms,
        "log_length": game.log_length,
        "played_ms": game.played_ms,
        "running_since_ms": game.running_since_ms,
    }


# --- the statements of the writes behind moves and new games --------------------------------
# Constants with named parameters, so that the writes of many players that arrive together are
# written with one executemany per statement (Database.write). Parameters are named b_* (a
# column's own name is reserved for its new value in an UPDATE).

_p, _c, _g = player_stats.c, code_stats.c, games.c
_player = bindparam("b_player", type_=String)
_code = bindparam("b_code", type_=String)
_game = bindparam("b_game", type_=String)
_at = bindparam("b_at", type_=BigInteger)
_elapsed = bindparam("b_elapsed", type_=BigInteger)
_moves = bindparam("b_moves", type_=Integer)
_day = bindparam("b_day", type_=Integer)
_mine = _p.player_id == _player
_this_code = (_c.player_id == _player) & (_c.code == _code)
_this_game = _g.id == _game

_ADD_MOVE = insert(moves_log)
_ADD_GAME = insert(games)
#: a game's summary after a move (not its play clock: only set_clock writes that)
_MOVED = (
    update(games)
    .where(_this_game)
    .values(
        status=bindparam("b_status", type_=String),
        moves=_moves,
        score=bindparam("b_score", type_=Integer),
        ended_at_ms=bindparam("b_ended", type_=BigInteger),
        elapsed_ms=_elapsed,
        log_length=bindparam("b_log_length", type_=Integer),
    )
)
#: a game's whole row but its identity (a game closed by a new one)
_CLOSED = _MOVED.values(
    played_ms=bindparam("b_played", type_=BigInteger),
    running_since_ms=bindparam("b_running", type_=BigInteger),
)
#: a game's play clock (only this and a game closed by a new one write it)
_CLOCK = (
    update(games)
    .where(_this_game)
    .values(
        played_ms=bindparam("b_played", type_=BigInteger),
        running_since_ms=bindparam("b_running", type_=BigInteger),
    )
)
_DEAD_DEAL = update(player_stats).where(_mine).values(dead_deals=_p.dead_deals + 1)
_streak = _p.current_streak + 1
_WIN = (
    update(player_stats)
    .where(_mine)
    .values(
        games=_p.games + 1,
        wins=_p.wins + 1,
        current_streak=_streak,
        best_streak=case((_streak > _p.best_streak, _streak), else_=_p.best_streak),
        best_time_ms=_least(_p.best_time_ms, _elapsed),
        fewest_moves=_least(_p.fewest_moves, _moves),
    )
)
_CODE_WIN = (
    update(code_stats)
    .where(_this_code)
    .values(
        games=_c.games + 1,
        wins=_c.wins + 1,
        best_time_ms=_least(_c.best_time_ms, _elapsed),
        fewest_moves=_least(_c.fewest_moves, _moves),
        last_at_ms=_at,
    )
)
# the deal of day b_day won: the daily streak grows if the day before was won too, else starts
# again at 1; a second win of the same day (or of an earlier one) changes nothing
_daily = case((_p.last_daily_day == _day - 1, _p.daily_streak + 1), else_=1)
_DAILY_WIN = (
    update(player_stats)
    .where(_mine, (_p.last_daily_day.is_(None)) | (_p.last_daily_day < _day))
    .values(
        daily_streak=_daily,
        best_daily_streak=case((_p.best_daily_streak < _daily, _daily), else_=_p.best_daily_streak),
        last_daily_day=_day,
    )
)
# a loss: the game keeps the streak it ended (for an undo out of a dead end), which ends
_STREAK_BEFORE = (
    update(games)
    .where(_this_game)
    .values(streak_before=select(_p.current_streak).where(_mine).scalar_subquery())
)
_LOSS = update(player_stats).where(_mine).values(games=_p.games + 1, current_streak=0)
_CODE_LOSS = update(code_stats).where(_this_code).values(games=_c.games + 1, last_at_ms=_at)
# an undo out of a counted dead end: the loss taken back, the streak it ended restored
_UNLOSS = (
    update(player_stats)
    .where(_mine)
    .values(
        games=_p.games - 1,
        current_streak=func.coalesce(
            select(_g.streak_before).where(_this_game).scalar_subquery(), 0
        ),
    )
)
_NO_STREAK_BEFORE = update(games).where(_this_game).values(streak_before=None)
_CODE_UNLOSS = update(code_stats).where(_this_code).values(games=_c.games - 1)


# --- the reads on the paths of moves and new games: constants too (built once) ------------

_GAME = select(games).where(_this_game)
#: the player's open games, newest first
_OPEN = (
    select(games)
    .where(_g.player_id == bindparam("b_player", type_=String))
    .where(_g.status.in_([s.value for s in OPEN_STATUSES]))
    .order_by(_g.started_at_ms.desc(), _g.id)
)
_OPEN_ONE = _OPEN.limit(1)
_since = bindparam("b_since", type_=Integer)
_MOVES = (
    select(moves_log)
    .where(moves_log.c.game_id == _game, moves_log.c.seq >= _since)
    .order_by(moves_log.c.seq)
)
_LOGGED_INTENTS = select(moves_log.c.intent, moves_log.c.seq).where(
    moves_log.c.game_id == _game, moves_log.c.seq >= _since, moves_log.c.intent.is_not(None)
)
_QUIET_INTENTS = select(quiet_intents.c.intent, quiet_intents.c.at_length).where(
    quiet_intents.c.game_id == _game, quiet_intents.c.at_length >= _since
)
_SNAPSHOT = select(snapshots.c.log_length, snapshots.c.state).where(snapshots.c.game_id == _game)
_TOTALS = select(player_stats).where(_mine)
_DEAL = select(deals).where(deals.c.code == _code)


class _Upserts:
    """The statements that differ between SQLite and PostgreSQL: inserts that leave an
    existing row alone (the totals' rows) or replace some of its columns (the snapshot)."""

    def __init__(self, postgres: bool) -> None:
        dialect_insert = pg_insert if postgres else sqlite_insert
        self.player_row = dialect_insert(player_stats).on_conflict_do_nothing(
            index_elements=[_p.player_id]
        )
        self.code_row = dialect_insert(code_stats).on_conflict_do_nothing(
            index_elements=[_c.player_id, _c.code]
        )
        self.quiet_intent = dialect_insert(quiet_intents).on_conflict_do_nothing(
            index_elements=[quiet_intents.c.game_id, quiet_intents.c.intent]
        )
        snapshot = dialect_insert(snapshots)
        self.snapshot = snapshot.on_conflict_do_update(
            index_elements=[snapshots.c.game_id],
            set_={"log_length": snapshot.excluded.log_length, "state": snapshot.excluded.state},
        )


_UPSERTS = {postgres: _Upserts(postgres) for postgres in (False, True)}


def _tally_steps(upserts: _Upserts, tally: Tally) -> list[Step]:
    """The statements that apply ``tally`` to the running totals, in their order."""
    game, kind = tally.game, tally.kind
    at = game.ended_at_ms if game.ended_at_ms is not None else game.started_at_ms
    player = {"b_player": game.player_id}
    steps = [
        Step(
            upserts.player_row,
            [
                {
                    "player_id": game.player_id,
                    "games": 0,
                    "wins": 0,
                    "current_streak": 0,
                    "best_streak": 0,
                    "dead_deals": 0,
                }
            ],
        )
    ]
    if kind is TallyKind.DEAD_DEAL:
        return [*steps, Step(_DEAD_DEAL, [player])]
    code = {**player, "b_code": game.code}
    steps.append(
        Step(
            upserts.code_row,
            [
                {
                    "player_id": game.player_id,
                    "code": game.code,
                    "games": 0,
                    "wins": 0,
                    "last_at_ms": at,
                }
            ],
        )
    )
    this = {**player, "b_game": game.id}
    if kind is TallyKind.WIN:
        best = {"b_elapsed": game.elapsed_ms, "b_moves": game.moves}
        daily = [] if tally.daily_day is None else [{**player, "b_day": tally.daily_day}]
        steps += [
            Step(_WIN, [{**player, **best}]),
            Step(_DAILY_WIN, daily),
            Step(_CODE_WIN, [{**code, **best, "b_at": at}]),
        ]
    elif kind is TallyKind.LOSS:
        steps += [
            Step(_STREAK_BEFORE, [this]),
            Step(_LOSS, [player]),
            Step(_CODE_LOSS, [{**code, "b_at": at}]),
        ]
    else:  # UNLOSS
        steps += [
            Step(_UNLOSS, [this]),
            Step(_NO_STREAK_BEFORE, [{"b_game": game.id}]),
            Step(_CODE_UNLOSS, [code]),
        ]
    return steps


def _moved_row(game: GameRecord) -> dict[str, Any]:
    return {
        "b_game": game.id,
        "b_status": game.status.value,
        "b_moves": game.moves,
        "b_score": game.score,
        "b_ended": game.ended_at_ms,
        "b_elapsed": game.elapsed_ms,
        "b_log_length": game.log_length,
    }


class SqlSolitaireStore:
    """:class:`SolitaireStore` on SQL (tables from migrations 0001, 0004, 0005, 0006 and 0007)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._upserts = _UPSERTS[db.is_postgres]

    # --- games and their move logs ---

    async def start_game(
        self, game: GameRecord, left: Sequence[GameRecord] = (), tallies: Sequence[Tally] = ()
    ) -> None:
        closed = [
            {**_moved_row(g), "b_played": g.played_ms, "b_running": g.running_since_ms}
            for g in left
        ]
        row = {
            "id": game.id,
            "player_id": game.player_id,
            "code": game.code,
            "started_at_ms": game.started_at_ms,
            **_game_values(game),
        }
        counted = [step for t in tallies for step in _tally_steps(self._upserts, t)]
        await self.db.write(
            Step(_CLOSED, closed), Step(_ADD_GAME, [row]), *counted, key=game.player_id
        )

    async def get_game(self, game_id: str) -> GameRecord | None:
        params = {"b_game": game_id}
        row = await self.db.read(lambda conn: conn.execute(_GAME, params).first(), single=True)
        return None if row is None else _game_from_row(row)

    async def open_game(self, player_id: str) -> GameRecord | None:
        found = await self._open(player_id, limit=1)
        return found[0] if found else None

    async def open_games(self, player_id: str) -> list[GameRecord]:
        return await self._open(player_id, limit=None)

    async def _open(self, player_id: str, limit: int | None) -> list[GameRecord]:
        query, params = _OPEN_ONE if limit == 1 else _OPEN, {"b_player": player_id}
        if limit not in (1, None):
            query = _OPEN.limit(limit)
        return await self.db.read(
            lambda conn: [_game_from_row(r) for r in conn.execute(query, params)], single=True
        )

    async def player_games(self, player_id: str) -> list[GameRecord]:
        query = select(games).where(games.c.player_id == player_id).order_by(games.c.started_at_ms)
        return await self.db.read(
            lambda conn: [_game_from_row(r) for r in conn.execute(query)], single=True
        )

    async def moves(self, game_id: str, since: int = 0) -> list[MoveRecord]:
        params = {"b_game": game_id, "b_since": since}
        return await self.db.read(
            lambda conn: [
                MoveRecord(r.game_id, r.seq, r.action, r.at_ms, r.intent, r.play_ms)
                for r in conn.execute(_MOVES, params)
            ],
            single=True,
        )

    async def intents(self, game_id: str, since: int = 0) -> dict[str, int]:
        params = {"b_game": game_id, "b_since": since}

        def read(conn: Connection) -> dict[str, int]:
            found = {r.intent: r.at_length for r in conn.execute(_QUIET_INTENTS, params)}
            found.update({r.intent: r.seq for r in conn.execute(_LOGGED_INTENTS, params)})
            return found

        return await self.db.read(read)

    async def note_quiet_intent(self, game_id: str, intent: str, at_length: int) -> None:
        row = {"game_id": game_id, "intent": intent, "at_length": at_length}
        await self.db.write(Step(self._upserts.quiet_intent, [row]), key=game_id)

    async def snapshot(self, game_id: str) -> tuple[int, str] | None:
        params = {"b_game": game_id}
        row = await self.db.read(lambda conn: conn.execute(_SNAPSHOT, params).first(), single=True)
        return None if row is None else (row.log_length, row.state)

    async def append_move(
        self,
        move: MoveRecord,
        summary: GameRecord,
        tally: Tally | None = None,
        snapshot: str | None = None,
    ) -> None:
        if summary.id != move.game_id or summary.log_length != move.seq + 1:
            raise StoreError(f"summary of {summary.id} does not follow move {move.seq}")
        logged = {
            "game_id": move.game_id,
            "seq": move.seq,
            "action": move.action,
            "at_ms": move.at_ms,
            "intent": move.intent,
            "play_ms": move.play_ms,
        }
        steps = [Step(_ADD_MOVE, [logged]), Step(_MOVED, [_moved_row(summary)])]
        if tally is not None:
            steps += _tally_steps(self._upserts, tally)
        if snapshot is not None:
            state = {"game_id": summary.id, "log_length": summary.log_length, "state": snapshot}
            steps.append(Step(self._upserts.snapshot, [state]))
        try:
            await self.db.write(*steps, key=summary.player_id)
        except IntegrityError as exc:
            raise MoveConflict(f"move {move.seq} of game {move.game_id} is already logged") from exc

    # --- running totals ---

    async def totals(self, player_id: str) -> PlayerTotals:
        params = {"b_player": player_id}
        row = await self.db.read(lambda conn: conn.execute(_TOTALS, params).first(), single=True)
        if row is None:
            return PlayerTotals()
        return PlayerTotals(
            games=row.games,
            wins=row.wins,
            current_streak=row.current_streak,
            best_streak=row.best_streak,
            best_time_ms=row.best_time_ms,
            fewest_moves=row.fewest_moves,
            dead_deals=row.dead_deals,
            daily_streak=row.daily_streak,
            best_daily_streak=row.best_daily_streak,
            last_daily_day=row.last_daily_day,
        )

    async def set_clock(self, game: GameRecord) -> None:
        # group commit, as the moves: a page shown or hidden is a write of its own, and many
        # pages open at once (a restart, a busy minute) share their commits
        row = {"b_game": game.id, "b_played": game.played_ms, "b_running": game.running_since_ms}
        await self.db.write(Step(_CLOCK, [row]), key=game.player_id)

    async def code_summary(self, code: str) -> DailyTotals:
        c = code_stats.c
        query = select(
            func.count(),
            func.count(case((c.wins > 0, 1))),
            func.min(c.best_time_ms),
            func.min(c.fewest_moves),
        ).where(c.code == code, c.games > 0)
        one = await self.db.read(lambda conn: conn.execute(query).one(), single=True)
        players, winners, best_time, fewest = one
        return DailyTotals(code, int(players), int(winners), best_time, fewest)

    async def code_totals(
        self, player_id: str, offset: int, limit: int
    ) -> tuple[list[CodeTotals], int]:
        c = code_stats.c
        played = (c.player_id == player_id) & (c.games > 0)
        page = (
            select(code_stats)
            .where(played)
            .order_by(c.last_at_ms.desc(), c.code)
            .offset(offset)
            .limit(limit)
        )

        def read(conn: Connection) -> tuple[list[CodeTotals], int]:
            rows = [
                CodeTotals(r.code, r.games, r.wins, r.best_time_ms, r.fewest_moves, r.last_at_ms)
                for r in conn.execute(page)
            ]
            return rows, int(conn.execute(select(func.count()).where(played)).scalar_one())

        return await self.db.read(read)

    # --- the solver's cache ---

    async def deal_analysis(self, code: str) -> DealAnalysis | None:
        params = {"b_code": code}
        row = await self.db.read(lambda conn: conn.execute(_DEAL, params).first(), single=True)
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
