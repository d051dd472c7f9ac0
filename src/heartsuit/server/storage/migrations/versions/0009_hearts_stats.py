"""Hearts statistics: who holds each person's seat, each counted match, each player's totals.

- ``hearts_seat_players``: the player whose page holds a person's seat (claimed when the page
  creates, sits at or opens the table);
- ``hearts_results``: one row per counted match of a claimed seat (won, lost or left);
- ``hearts_player_stats``: each player's running totals per preset.

Nothing is carried over here: no table written before this revision says which player held a
seat (a seat is reached by its token alone, and only its hash is stored). Those matches are
counted when a page that holds a seat's token opens the table again: the claim replays the
table's log and counts the matches it finished (docs/site.md, "Hearts statistics").

Revision ID: 0009_hearts_stats
Revises: 0008_secret_seeds
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_hearts_stats"
down_revision = "0008_secret_seeds"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hearts_seat_players",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("hearts_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
    )
    op.create_table(
        "hearts_results",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("hearts_tables.id"), primary_key=True),
        sa.Column("match_no", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("preset", sa.String(16), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=True),
        sa.Column("others_best", sa.Integer, nullable=True),
        sa.Column("margin", sa.Integer, nullable=True),
        sa.Column("moons_shot", sa.Integer, nullable=False),
        sa.Column("moons_suffered", sa.Integer, nullable=False),
        sa.Column("queens", sa.Integer, nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
    )
    op.create_index(
        "ix_hearts_results_player_margin", "hearts_results", ["player_id", "margin", "ended_at_ms"]
    )
    op.create_table(
        "hearts_player_stats",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("preset", sa.String(16), primary_key=True),
        *(
            sa.Column(name, sa.Integer, nullable=False)
            for name in (
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
        ),
    )


def downgrade() -> None:
    op.drop_table("hearts_player_stats")
    op.drop_index("ix_hearts_results_player_margin", table_name="hearts_results")
    op.drop_table("hearts_results")
    op.drop_table("hearts_seat_players")
