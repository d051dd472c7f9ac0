"""Storage of Hearts statistics: who holds a seat, each counted match, each player's totals.

- ``hearts_seat_players``: the player (the browser's player id) whose page holds a person's
  seat, claimed when the page creates, sits at or opens the table (:meth:`claim`). The log
  never names a player: a seat is reached by its token, whoever holds it.
- ``hearts_results``: one row per counted match of a claimed seat (won, lost or left), with
  what the statistics page shows of it. Its primary key (table, match, seat) is the guard
  against counting a match twice: a second row for the same match fails, and so does the
  whole write it is part of.
- ``hearts_player_stats``: each player's running totals per preset, so that reading them costs
  one small read at 5 matches and 5,000.

A match's row and the totals it adds are written in the same transaction as the log entry that
ends the match (or that gives a person's seat to a computer mid-match), through the extra
steps of :meth:`heartsuit.server.hearts.store.SqlTableStore.append`: a crash keeps both or
neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    bindparam,
    delete,
    desc,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from heartsuit.server.storage.db import Database, Step, metadata

Outcome = Literal["won", "lost", "left"]

seat_players = Table(
    "hearts_seat_players",
    metadata,
    Column("table_id", String(40), ForeignKey("hearts_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(64), nullable=False),
)

results = Table(
    "hearts_results",
    metadata,
    Column("table_id", String(40), ForeignKey("hearts_tables.id"), primary_key=True),
    # the table's match: 0, then one more per rematch
    Column("match_no", Integer, primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(64), nullable=False),
    Column("mode", String(16), nullable=False),
    Column("preset", String(16), nullable=False),
    Column("players", Integer, nullable=False),
    Column("outcome", String(8), nullable=False),
    # hands finished while the seat was the player's, and their points (moons applied)
    Column("hands", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    # a finished match only: the seat's final total, the lowest of the others', and the
    # second less the first (how far ahead the player finished; negative: behind)
    Column("total", Integer, nullable=True),
    Column("others_best", Integer, nullable=True),
    Column("margin", Integer, nullable=True),
    Column("moons_shot", Integer, nullable=False),
    Column("moons_suffered", Integer, nullable=False),
    Column("queens", Integer, nullable=False),
    Column("ended_at_ms", BigInteger, nullable=False),
    # the best and the worst match of a player are the ends of this index
    Index("ix_hearts_results_player_margin", "player_id", "margin", "ended_at_ms"),
)

player_stats = Table(
    "hearts_player_stats",
    metadata,
    Column("player_id", String(64), primary_key=True),
    Column("preset", String(16), primary_key=True),
    Column("matches", Integer, nullable=False),
    Column("won", Integer, nullable=False),
    Column("lost", Integer, nullable=False),
    Column("left", Integer, nullable=False),
    Column("hands", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("moons_shot", Integer, nullable=False),
    Column("moons_suffered", Integer, nullable=False),
    Column("queens", Integer, nullable=False),
)

#: the running totals' counters, in the order of :class:`PresetTotals`
COUNTERS = (
    "matches",
    "won",
    "lost",
    "left",
    "hands",
    "points",
    "moons_shot",
    "moons_suffered",
    "queens",
)


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One counted match of one player's seat (a row of ``hearts_results``)."""

    table_id: str
    match_no: int
    seat: int
    player_id: str
    mode: str
    preset: str
    players: int
    outcome: Outcome
    hands: int
    points: int
    total: int | None
    others_best: int | None
    margin: int | None
    moons_shot: int
    moons_suffered: int
    queens: int
    ended_at_ms: int


@dataclass(frozen=True, slots=True)
class PresetTotals:
    """A player's running totals for one preset (a row of ``hearts_player_stats``)."""

    preset: str
    matches: int = 0
    won: int = 0
    lost: int = 0
    left: int = 0
    hands: int = 0
    points: int = 0
    moons_shot: int = 0
    moons_suffered: int = 0
    queens: int = 0


# --- the statements (constants: see Step) ---------------------------------------------------

_ADD_RESULT = insert(results)
# a plain insert: a seat claimed already refuses the claim (and the matches that came with it)
_CLAIM = insert(seat_players)
_UNCLAIM = delete(seat_players).where(
    seat_players.c.table_id == bindparam("b_table"), seat_players.c.seat == bindparam("b_seat")
)
_ADD_TO_TOTALS = (
    update(player_stats)
    .where(
        player_stats.c.player_id == bindparam("b_player"),
        player_stats.c.preset == bindparam("b_preset"),
    )
    .values(
        {
            player_stats.c[name]: player_stats.c[name] + bindparam(f"b_{name}")
            for name in COUNTERS
        }
    )
)
_CLAIMS = select(seat_players.c.seat, seat_players.c.player_id).where(
    seat_players.c.table_id == bindparam("b_table")
)
_TOTALS = (
    select(player_stats)
    .where(player_stats.c.player_id == bindparam("b_player"))
    .order_by(player_stats.c.preset)
)
_COUNTED = results.c.margin.is_not(None)
_MINE = results.c.player_id == bindparam("b_player")
# ties: the later match (a player remembers the recent one)
_BEST = select(results).where(_MINE, _COUNTED).order_by(
    desc(results.c.margin), desc(results.c.ended_at_ms)
).limit(1)
_WORST = select(results).where(_MINE, _COUNTED).order_by(
    results.c.margin, desc(results.c.ended_at_ms)
).limit(1)
_RESULTS = select(results).where(_MINE).order_by(results.c.ended_at_ms, results.c.table_id)


class _Upserts:
    """The statements that differ between SQLite and PostgreSQL: inserts that leave an
    existing row alone."""

    def __init__(self, postgres: bool) -> None:
        dialect_insert = pg_insert if postgres else sqlite_insert
        self.zero_totals = dialect_insert(player_stats).on_conflict_do_nothing(
            index_elements=[player_stats.c.player_id, player_stats.c.preset]
        )


_UPSERTS = {postgres: _Upserts(postgres) for postgres in (False, True)}


def unclaim_step(table_id: str, seat: int) -> Step:
    """The seat is no longer a person's (it went to a computer, or opened again)."""
    return Step(_UNCLAIM, [{"b_table": table_id, "b_seat": seat}])


def result_steps(counted: Sequence[SeatResult], *, postgres: bool) -> list[Step]:
    """The statements that record ``counted`` and add them to their players' totals."""
    if not counted:
        return []
    upserts = _UPSERTS[postgres]
    zero = {name: 0 for name in COUNTERS}
    return [
        Step(_ADD_RESULT, [asdict(r) for r in counted]),
        Step(
            upserts.zero_totals,
            [{"player_id": r.player_id, "preset": r.preset, **zero} for r in counted],
        ),
        Step(_ADD_TO_TOTALS, [_increments(r) for r in counted]),
    ]


def _increments(r: SeatResult) -> dict[str, Any]:
    return {
        "b_player": r.player_id,
        "b_preset": r.preset,
        "b_matches": 1,
        "b_won": int(r.outcome == "won"),
        "b_lost": int(r.outcome == "lost"),
        "b_left": int(r.outcome == "left"),
        "b_hands": r.hands,
        "b_points": r.points,
        "b_moons_shot": r.moons_shot,
        "b_moons_suffered": r.moons_suffered,
        "b_queens": r.queens,
    }


def _result(row: Any) -> SeatResult:
    return SeatResult(**{c.name: getattr(row, c.name) for c in results.columns})


class SqlHeartsStatsStore:
    """The statistics' reads and the claims, on the site's
    :class:`~heartsuit.server.storage.db.Database` (tables from migration 0009)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def postgres(self) -> bool:
        return self.db.is_postgres

    async def claims(self, table_id: str) -> dict[int, str]:
        """The claimed seats of a table: seat → player id."""
        params = {"b_table": table_id}
        return await self.db.read(
            lambda conn: {int(r.seat): str(r.player_id) for r in conn.execute(_CLAIMS, params)},
            single=True,
        )

    async def claim(
        self, table_id: str, seat: int, player_id: str, counted: Sequence[SeatResult] = ()
    ) -> bool:
        """Record that ``player_id`` holds ``seat``, with the matches it already finished
        there (``counted``, replayed from the log), all or nothing; False when the seat was
        claimed already (nothing is written then)."""
        try:
            await self.db.write(
                Step(_CLAIM, [{"table_id": table_id, "seat": seat, "player_id": player_id}]),
                *result_steps(counted, postgres=self.postgres),
                key=player_id,
            )
        except IntegrityError:
            return False
        return True

    async def totals(self, player_id: str) -> list[PresetTotals]:
        """The player's totals, one per preset played (by the preset's name)."""
        params = {"b_player": player_id}

        def read(conn: Connection) -> list[PresetTotals]:
            return [
                PresetTotals(r.preset, *(int(getattr(r, name)) for name in COUNTERS))
                for r in conn.execute(_TOTALS, params)
            ]

        return await self.db.read(read)

    async def best_and_worst(self, player_id: str) -> tuple[SeatResult | None, SeatResult | None]:
        """The player's finished match with the largest margin, and the one with the smallest."""
        params = {"b_player": player_id}

        def read(conn: Connection) -> tuple[SeatResult | None, SeatResult | None]:
            best = conn.execute(_BEST, params).first()
            worst = conn.execute(_WORST, params).first()
            return (
                None if best is None else _result(best),
                None if worst is None else _result(worst),
            )

        return await self.db.read(read)

    async def results(self, player_id: str) -> list[SeatResult]:
        """Every counted match of the player (for a recount; the page reads the totals)."""
        params = {"b_player": player_id}
        return await self.db.read(
            lambda conn: [_result(r) for r in conn.execute(_RESULTS, params)], single=True
        )
