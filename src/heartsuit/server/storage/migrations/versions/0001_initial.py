"""The schema as it was before migrations: players with their solitaire settings, solitaire
games, their move log and the solver's verdicts.

Revision ID: 0001_initial
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("created_at_ms", sa.BigInteger, nullable=False),
        sa.Column("move_errors", sa.Boolean, nullable=False),
        sa.Column("placement_help", sa.Boolean, nullable=False),
        sa.Column("winnable_only", sa.Boolean, nullable=False),
    )
    op.create_table(
        "solitaire_deals",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("winnable", sa.Boolean, nullable=False),
        sa.Column("solution_moves", sa.Integer, nullable=True),
    )
    op.create_table(
        "solitaire_games",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("started_at_ms", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger, nullable=True),
        sa.Column("elapsed_ms", sa.BigInteger, nullable=True),
        sa.Column("log_length", sa.Integer, nullable=False),
    )
    op.create_index(
        "ix_solitaire_games_player_status", "solitaire_games", ["player_id", "status"]
    )
    op.create_table(
        "solitaire_moves",
        sa.Column(
            "game_id", sa.String(64), sa.ForeignKey("solitaire_games.id"), primary_key=True
        ),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("action", sa.String(8), nullable=False),
        sa.Column("at_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("solitaire_moves")
    op.drop_index("ix_solitaire_games_player_status", table_name="solitaire_games")
    op.drop_table("solitaire_games")
    op.drop_table("solitaire_deals")
    op.drop_table("players")
