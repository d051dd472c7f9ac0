"""Heart to Heart's quiet intents: the page's ids of taps and undos that changed nothing.

- ``solitaire_quiet_intents``: an intent that changed nothing (a tap on a covered card, an undo
  with nothing to undo) is not a move and has no entry in the move log, so until now nothing
  remembered it once the process forgot the game. Sent again later, after moves that made it
  mean something (the covered card now uncovered), it was applied. Each such intent is kept here
  with the log length it was answered at (``at_length``), one row per game and intent, so that
  a frame sent again is answered as a repeat, in any process and after a restart.

Revision ID: 0007_quiet_intents
Revises: 0006_play_time
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_quiet_intents"
down_revision = "0006_play_time"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "solitaire_quiet_intents",
        sa.Column(
            "game_id",
            sa.String(64),
            sa.ForeignKey("solitaire_games.id"),
            primary_key=True,
        ),
        sa.Column("intent", sa.String(64), primary_key=True),
        sa.Column("at_length", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("solitaire_quiet_intents")
