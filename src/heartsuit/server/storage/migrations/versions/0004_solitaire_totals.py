"""Heart to Heart's running totals, engine snapshots and honest game statuses.

- ``solitaire_player_stats`` and ``solitaire_code_stats``: each player's statistics kept as
  games end, so that reading them costs the same at 5 games and 5,000; started here from the
  existing games' rows.
- ``solitaire_snapshots``: the engine's state every few hundred log entries, so that a resume
  replays a bounded part of the log (none exist for old games: they replay as before until their
  next snapshot).
- ``solitaire_games.streak_before``: the streak a counted dead end interrupted, so that undoing
  out of it restores the streak.
- statuses: a game left without a move is ``unplayed`` (it no longer counts as a loss); a deal
  dead from the start is ``dead_deal`` while it is the player's game and ``unplayable`` once
  left (never counted).

Revision ID: 0004_solitaire_totals
Revises: 0003_hearts_tables
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from alembic import op

from heartsuit.solitaire import Game

revision = "0004_solitaire_totals"
down_revision = "0003_hearts_tables"
branch_labels = None
depends_on = None

#: rows written per statement
BATCH = 1000
#: statuses that count, as of this revision
COUNTED = ("won", "dead_end", "abandoned")

GAMES = sa.table(
    "solitaire_games",
    sa.column("id", sa.String),
    sa.column("player_id", sa.String),
    sa.column("code", sa.String),
    sa.column("started_at_ms", sa.BigInteger),
    sa.column("status", sa.String),
    sa.column("moves", sa.Integer),
    sa.column("ended_at_ms", sa.BigInteger),
    sa.column("elapsed_ms", sa.BigInteger),
    sa.column("streak_before", sa.Integer),
)


def _smallest(values: Iterable[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _dead_deal(code: str, seen: dict[str, bool]) -> bool:
    if code not in seen:
        seen[code] = Game.from_code(code).dead_end
    return seen[code]


def upgrade() -> None:
    player_stats = op.create_table(
        "solitaire_player_stats",
        sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("current_streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("best_time_ms", sa.BigInteger, nullable=True),
        sa.Column("fewest_moves", sa.Integer, nullable=True),
        sa.Column("dead_deals", sa.Integer, nullable=False),
    )
    code_stats = op.create_table(
        "solitaire_code_stats",
        sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("best_time_ms", sa.BigInteger, nullable=True),
        sa.Column("fewest_moves", sa.Integer, nullable=True),
        sa.Column("last_at_ms", sa.BigInteger, nullable=False),
    )
    op.create_index(
        "ix_solitaire_code_stats_player_last", "solitaire_code_stats", ["player_id", "last_at_ms"]
    )
    op.create_table(
        "solitaire_snapshots",
        sa.Column(
            "game_id", sa.String(64), sa.ForeignKey("solitaire_games.id"), primary_key=True
        ),
        sa.Column("log_length", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
    )
    with op.batch_alter_table("solitaire_games") as batch:
        batch.add_column(sa.Column("streak_before", sa.Integer, nullable=True))

    conn = op.get_bind()
    # the statuses first: games with no move made no longer count
    dead: dict[str, bool] = {}
    untouched = conn.execute(
        sa.select(GAMES.c.id, GAMES.c.code, GAMES.c.status).where(
            GAMES.c.moves == 0, GAMES.c.status.in_(("dead_end", "abandoned"))
        )
    ).all()
    for row in untouched:
        if row.status == "dead_end":  # a dead end with no move: the deal itself was dead
            status = "dead_deal"
        else:
            status = "unplayable" if _dead_deal(row.code, dead) else "unplayed"
        conn.execute(sa.update(GAMES).where(GAMES.c.id == row.id).values(status=status))

    # then each player's totals, from their games in the order they ended
    rows = conn.execute(
        sa.select(GAMES).order_by(
            GAMES.c.player_id,
            sa.func.coalesce(GAMES.c.ended_at_ms, GAMES.c.started_at_ms),
            GAMES.c.started_at_ms,
            GAMES.c.id,
        )
    ).all()
    by_player: dict[str, list[Any]] = {}
    for row in rows:
        by_player.setdefault(row.player_id, []).append(row)
    totals: list[dict[str, Any]] = []
    codes: list[dict[str, Any]] = []
    for player_id, games in by_player.items():
        run = best = 0
        counted = [g for g in games if g.status in COUNTED]
        for game in counted:
            if game.status == "dead_end":  # the player's current game, at a dead end
                conn.execute(
                    sa.update(GAMES).where(GAMES.c.id == game.id).values(streak_before=run)
                )
            run = run + 1 if game.status == "won" else 0
            best = max(best, run)
        wins = [g for g in counted if g.status == "won"]
        totals.append(
            {
                "player_id": player_id,
                "games": len(counted),
                "wins": len(wins),
                "current_streak": run,
                "best_streak": best,
                "best_time_ms": _smallest(g.elapsed_ms for g in wins),
                "fewest_moves": _smallest(g.moves for g in wins),
                "dead_deals": sum(1 for g in games if g.status in ("dead_deal", "unplayable")),
            }
        )
        per_code: dict[str, list[Any]] = {}
        for game in counted:
            per_code.setdefault(game.code, []).append(game)
        for code, played in per_code.items():
            won = [g for g in played if g.status == "won"]
            codes.append(
                {
                    "player_id": player_id,
                    "code": code,
                    "games": len(played),
                    "wins": len(won),
                    "best_time_ms": _smallest(g.elapsed_ms for g in won),
                    "fewest_moves": _smallest(g.moves for g in won),
                    "last_at_ms": max(g.ended_at_ms or g.started_at_ms for g in played),
                }
            )
    for start in range(0, len(totals), BATCH):
        op.bulk_insert(player_stats, totals[start : start + BATCH])
    for start in range(0, len(codes), BATCH):
        op.bulk_insert(code_stats, codes[start : start + BATCH])


def downgrade() -> None:
    conn = op.get_bind()
    back = {"dead_deal": "dead_end", "unplayable": "abandoned", "unplayed": "abandoned"}
    for new, old in back.items():
        conn.execute(sa.update(GAMES).where(GAMES.c.status == new).values(status=old))
    with op.batch_alter_table("solitaire_games") as batch:
        batch.drop_column("streak_before")
    op.drop_table("solitaire_snapshots")
    op.drop_index("ix_solitaire_code_stats_player_last", table_name="solitaire_code_stats")
    op.drop_table("solitaire_code_stats")
    op.drop_table("solitaire_player_stats")
