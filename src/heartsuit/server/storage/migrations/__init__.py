"""The database's schema, as Alembic migrations that run by themselves when the site starts.

``versions/`` holds one script per change of the schema, each naming the one before it
(``0001_initial`` is the schema the site had before migrations; ``0002_player_preferences``
moved the solitaire settings into per-game preferences). :func:`upgrade` brings a database to
the newest one; :meth:`heartsuit.server.storage.db.Database.open` calls it, so no ``alembic.ini``
and no separate step is needed to run the site. ``docs/site.md`` says how to add a migration.

A database made before migrations existed (its tables were created directly, so it has no
``alembic_version`` table) is recognised by its ``players`` table and stamped as
``0001_initial`` before the upgrade, which then carries its data forward.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, MetaData, inspect, text

HERE: Final = Path(__file__).resolve().parent
#: the revision that is today's schema as ``metadata.create_all`` made it before migrations
BASELINE: Final = "0001_initial"
#: the tables of the baseline; a database holding them and no version table predates migrations
BASELINE_TABLES: Final = frozenset(
    {"players", "solitaire_games", "solitaire_moves", "solitaire_deals"}
)
#: any fixed number: PostgreSQL serialises processes that start at once on this advisory lock
_PG_LOCK_KEY: Final = 0x4865_6172_7473


class MigrationError(RuntimeError):
    """A database this version cannot bring up to date (the message says why)."""


def config(connection: Connection | None = None, metadata: MetaData | None = None) -> Config:
    """An Alembic configuration built in code; ``env.py`` uses ``connection`` if given."""
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    cfg.attributes["connection"] = connection
    cfg.attributes["target_metadata"] = metadata
    return cfg


def head() -> str:
    """The newest revision."""
    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def current(connection: Connection) -> str | None:
    """The revision a database is at (None: never migrated)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, target: str = "head") -> None:
    """Bring the database on ``connection`` to ``target``, inside the caller's transaction."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
    cfg = config(connection)
    if current(connection) is None:
        tables = set(inspect(connection).get_table_names())
        if BASELINE_TABLES.issubset(tables):
            command.stamp(cfg, BASELINE)
        elif tables & BASELINE_TABLES:
            raise MigrationError(
                f"the database has some of the site's tables ({sorted(tables & BASELINE_TABLES)})"
                " but not all of them and no migration history: it cannot be upgraded safely"
            )
    command.upgrade(cfg, target)
    if connection.dialect.name == "sqlite":
        # the migrations run with foreign keys off (a changed table is copied): check them now
        dangling = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if dangling:
            raise MigrationError(f"the migration left rows pointing nowhere: {dangling[:5]}")
