"""Secret match seeds: ``hearts_tables.seed`` holds a whole number of any size, as decimal text.

Tables where people play each other are dealt from a 128-bit secret seed (docs/site.md, "Secret
match seeds"), which no 64-bit column holds. The column becomes text (``String(40)``: 2^129 has
39 digits); every seed already stored is kept as the same number written in decimal, and the
store reads it back with ``int``. A rematch's seed was always in its log entry's JSON, which
holds numbers of any size.

Downgrading writes the seeds back as 64-bit integers and refuses (changing nothing) while any
table holds a seed too large for one: those tables could not be dealt again.

Revision ID: 0008_secret_seeds
Revises: 0007_quiet_intents
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_secret_seeds"
down_revision = "0007_quiet_intents"
branch_labels = None
depends_on = None

#: the largest seed a BigInteger column holds
_BIGINT_MAX = 2**63 - 1


def upgrade() -> None:
    with op.batch_alter_table("hearts_tables") as batch:
        batch.alter_column(
            "seed",
            existing_type=sa.BigInteger,
            type_=sa.String(40),
            existing_nullable=False,
            postgresql_using="seed::text",
        )


def downgrade() -> None:
    bind = op.get_bind()
    seeds = bind.execute(sa.text("SELECT seed FROM hearts_tables")).scalars()
    if any(int(seed) > _BIGINT_MAX for seed in seeds):
        raise RuntimeError(
            "some Hearts tables have secret seeds, which revision 0007 cannot hold; "
            "not downgrading (nothing was changed)"
        )
    with op.batch_alter_table("hearts_tables") as batch:
        batch.alter_column(
            "seed",
            existing_type=sa.String(40),
            type_=sa.BigInteger,
            existing_nullable=False,
            postgresql_using="seed::bigint",
        )
