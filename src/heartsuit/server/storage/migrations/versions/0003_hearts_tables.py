"""Hearts tables: the tables, their seats (only a hash of each seat token) and each table's
append-only event log, keyed by (table, seq) so that a second writer of an entry fails.

Revision ID: 0003_hearts_tables
Revises: 0002_player_preferences
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_hearts_tables"
down_revision = "0002_player_preferences"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hearts_tables",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("preset", sa.String(16), nullable=False),
        # Rules.to_dict() as JSON: the options do not all fit in the game code
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("invite", sa.String(16), nullable=True, unique=True),
        sa.Column("created_at_ms", sa.BigInteger, nullable=False),
        # a summary of the log, written in the same transaction as each entry
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index("ix_hearts_tables_status", "hearts_tables", ["status"])
    op.create_table(
        "hearts_events",
        sa.Column(
            "table_id", sa.String(40), sa.ForeignKey("hearts_tables.id"), primary_key=True
        ),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("at_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "hearts_seats",
        sa.Column(
            "table_id", sa.String(40), sa.ForeignKey("hearts_tables.id"), primary_key=True
        ),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        # SHA-256 of the seat token, hex; the token itself is never stored
        sa.Column("token_hash", sa.String(64), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("hearts_seats")
    op.drop_table("hearts_events")
    op.drop_index("ix_hearts_tables_status", table_name="hearts_tables")
    op.drop_table("hearts_tables")
