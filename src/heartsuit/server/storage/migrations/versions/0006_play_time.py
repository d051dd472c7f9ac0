"""Play time for Heart to Heart, and the daily streak.

- ``solitaire_games.played_ms`` and ``running_since_ms``: the game's play clock, which counts
  only while a page shows the game (before, time ran from the deal whatever the player did).
- ``solitaire_moves.play_ms``: the play time each move was made at (the engine replays on it).
- ``solitaire_player_stats.daily_streak``, ``best_daily_streak`` and ``last_daily_day``: days in
  a row the player won the deal of the day (none yet: the deal of the day starts here), and an
  index on ``solitaire_code_stats.code`` for the deal of the day's statistics (everyone's
  totals of one code).

Existing games: nobody can tell now when their players looked away, so the time up to each
game's last move is taken as played (each move's ``play_ms`` is ``at_ms - started_at_ms``, and
a game's ``played_ms`` is that of its last move, 0 without moves) and the clock is paused there:
an open game's time from its last move to now (a tab left open, a day away) is not counted, and
it runs again when its page is next shown. Finished games keep their times. The engine
snapshots are dropped because their clocks were on the old scale (the log replays the same game;
the next snapshots are written as play goes on).

Revision ID: 0006_play_time
Revises: 0005_move_intents
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_play_time"
down_revision = "0005_move_intents"
branch_labels = None
depends_on = None

GAMES = sa.table(
    "solitaire_games",
    sa.column("id", sa.String),
    sa.column("started_at_ms", sa.BigInteger),
    sa.column("played_ms", sa.BigInteger),
)
MOVES = sa.table(
    "solitaire_moves",
    sa.column("game_id", sa.String),
    sa.column("at_ms", sa.BigInteger),
    sa.column("play_ms", sa.BigInteger),
)
SNAPSHOTS = sa.table("solitaire_snapshots", sa.column("game_id", sa.String))


def upgrade() -> None:
    with op.batch_alter_table("solitaire_games") as batch:
        batch.add_column(sa.Column("played_ms", sa.BigInteger, nullable=False, server_default="0"))
        batch.add_column(sa.Column("running_since_ms", sa.BigInteger, nullable=True))
    with op.batch_alter_table("solitaire_moves") as batch:
        batch.add_column(sa.Column("play_ms", sa.BigInteger, nullable=True))
    with op.batch_alter_table("solitaire_player_stats") as batch:
        batch.add_column(sa.Column("daily_streak", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(
            sa.Column("best_daily_streak", sa.Integer, nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("last_daily_day", sa.Integer, nullable=True))
    # the deal of the day's statistics add up every player's totals of one code
    op.create_index("ix_solitaire_code_stats_code", "solitaire_code_stats", ["code"])

    conn = op.get_bind()
    started = (
        sa.select(GAMES.c.started_at_ms).where(GAMES.c.id == MOVES.c.game_id).scalar_subquery()
    )
    conn.execute(sa.update(MOVES).values(play_ms=MOVES.c.at_ms - started))
    last_move = (
        sa.select(sa.func.max(MOVES.c.play_ms))
        .where(MOVES.c.game_id == GAMES.c.id)
        .scalar_subquery()
    )
    conn.execute(sa.update(GAMES).values(played_ms=sa.func.coalesce(last_move, 0)))
    conn.execute(sa.delete(SNAPSHOTS))


def downgrade() -> None:
    # the old clock reads wall-clock times from the log, which were kept: only the new columns
    # go (snapshots written since then hold play-time clocks, so they go too)
    op.get_bind().execute(sa.delete(SNAPSHOTS))
    op.drop_index("ix_solitaire_code_stats_code", table_name="solitaire_code_stats")
    with op.batch_alter_table("solitaire_player_stats") as batch:
        batch.drop_column("last_daily_day")
        batch.drop_column("best_daily_streak")
        batch.drop_column("daily_streak")
    with op.batch_alter_table("solitaire_moves") as batch:
        batch.drop_column("play_ms")
    with op.batch_alter_table("solitaire_games") as batch:
        batch.drop_column("running_since_ms")
        batch.drop_column("played_ms")
