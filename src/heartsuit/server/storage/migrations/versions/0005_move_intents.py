"""Heart to Heart's move intents: the page's id of each logged action.

- ``solitaire_moves.intent``: the id the page gave the tap or undo that wrote the entry (none
  for older entries and older pages), so that a frame sent again, after a dropped connection,
  in another process or after a restart, is recognised and answered instead of applied twice.
- ``ux_solitaire_moves_game_intent``: one entry per intent and game; two processes writing the
  same intent at once find out from the store (NULLs, the entries without an intent, never
  clash).

Revision ID: 0005_move_intents
Revises: 0004_solitaire_totals
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_move_intents"
down_revision = "0004_solitaire_totals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("solitaire_moves", sa.Column("intent", sa.String(64), nullable=True))
    op.create_index(
        "ux_solitaire_moves_game_intent",
        "solitaire_moves",
        ["game_id", "intent"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("ux_solitaire_moves_game_intent", table_name="solitaire_moves")
    with op.batch_alter_table("solitaire_moves") as batch:
        batch.drop_column("intent")
