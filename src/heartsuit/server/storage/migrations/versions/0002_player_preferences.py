"""Per-game preferences: the solitaire settings leave the ``players`` row for
``player_preferences`` (player, game, JSON text), so that every game keeps its own.

Revision ID: 0002_player_preferences
Revises: 0001_initial
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0002_player_preferences"
down_revision = "0001_initial"
branch_labels = None
depends_on = None

#: the solitaire settings as 0001 stored them, one boolean column each
SETTINGS = ("move_errors", "placement_help", "winnable_only")
#: how many players' settings are copied per statement
BATCH = 1000


def upgrade() -> None:
    preferences = op.create_table(
        "player_preferences",
        sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id"), primary_key=True),
        # which game's preferences: "solitaire", later "hearts"
        sa.Column("game", sa.String(32), primary_key=True),
        # a JSON object; the game's own typed model reads it
        sa.Column("prefs", sa.Text, nullable=False),
    )
    conn = op.get_bind()
    players = sa.table(
        "players", sa.column("id", sa.String), *(sa.column(s, sa.Boolean) for s in SETTINGS)
    )
    rows = conn.execute(sa.select(players).order_by(players.c.id)).all()
    for start in range(0, len(rows), BATCH):
        op.bulk_insert(
            preferences,
            [
                {
                    "player_id": row.id,
                    "game": "solitaire",
                    "prefs": json.dumps({s: bool(getattr(row, s)) for s in SETTINGS}),
                }
                for row in rows[start : start + BATCH]
            ],
        )
    with op.batch_alter_table("players") as batch:
        for setting in SETTINGS:
            batch.drop_column(setting)


def downgrade() -> None:
    defaults = {"move_errors": False, "placement_help": True, "winnable_only": False}
    with op.batch_alter_table("players") as batch:
        for setting, default in defaults.items():
            # a server default fills the rows that exist; 0001 itself had none
            fill = sa.true() if default else sa.false()
            batch.add_column(sa.Column(setting, sa.Boolean, nullable=False, server_default=fill))
    conn = op.get_bind()
    players = sa.table(
        "players", sa.column("id", sa.String), *(sa.column(s, sa.Boolean) for s in SETTINGS)
    )
    prefs = sa.table(
        "player_preferences",
        sa.column("player_id", sa.String),
        sa.column("game", sa.String),
        sa.column("prefs", sa.Text),
    )
    query = sa.select(prefs.c.player_id, prefs.c.prefs).where(prefs.c.game == "solitaire")
    for player_id, text in conn.execute(query).all():
        stored = json.loads(text)
        values = {s: bool(stored.get(s, defaults[s])) for s in SETTINGS}
        conn.execute(sa.update(players).where(players.c.id == player_id).values(**values))
    op.drop_table("player_preferences")
