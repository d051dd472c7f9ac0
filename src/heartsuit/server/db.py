"""The database every store shares: its engine, SQLite's pragmas and single writer, migrations.

One :class:`Database` is opened when the app starts. Opening it brings the schema up to date
(the Alembic migrations in :mod:`heartsuit.server.migrations`) before anything else touches it;
the stores (``players_store``, ``solitaire_store``, one module per concern) each take the open
``Database`` and read through :meth:`Database.reading` and write through
:meth:`Database.writing`. The same SQL runs on SQLite (aiosqlite, the default) and on
PostgreSQL (asyncpg) when ``DATABASE_URL`` says so.

Each store module declares the tables it queries on :data:`metadata`; a migration, not that
declaration, is what creates them, and a test holds the two together.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import MetaData, event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from heartsuit.server import migrations

#: how long a SQLite writer waits for another process's write lock before giving up
SQLITE_BUSY_TIMEOUT_S = 30.0

#: the tables the stores query; the migrations create them
metadata = MetaData()


class StoreError(RuntimeError):
    """The store could not do what was asked (a bug or an outage, never the player's input)."""


class MoveConflict(StoreError):
    """Another writer already logged this entry of an append-only log (a move, an event):
    the caller's copy of the game is stale."""


class Database:
    """An async engine on ``url``, migrated to the newest schema on :meth:`open`."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self._echo = echo
        self._engine: AsyncEngine | None = None
        self._write_lock: asyncio.Lock | None = None

    @property
    def is_sqlite(self) -> bool:
        return self.url.startswith("sqlite")

    @property
    def is_postgres(self) -> bool:
        return self.url.startswith("postgresql")

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise StoreError("the store is not open")
        return self._engine

    async def open(self) -> None:
        """Connect and upgrade the schema to the newest migration (stamping a pre-migration
        database first); opening an open database does nothing."""
        if self._engine is not None:
            return
        await self._migrate()
        engine = self._create_engine()
        if self.is_sqlite:
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
            # SQLite has one writer at a time: queue this process's writers here, in the event
            # loop, rather than in SQLite's busy handler (and so that a transaction that reads
            # before it writes can never find its snapshot overtaken)
            self._write_lock = asyncio.Lock()
        self._engine = engine

    async def close(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reads."""
        async with self.engine.connect() as conn:
            yield conn

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction, committed on leaving the block (rolled back on an error)."""
        engine = self.engine
        if self._write_lock is None:
            async with engine.begin() as conn:
                yield conn
            return
        async with self._write_lock, engine.begin() as conn:
            yield conn

    def _create_engine(self) -> AsyncEngine:
        return create_async_engine(
            self.url,
            echo=self._echo,
            # a writer from another process waits this long for SQLite's lock before failing
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S} if self.is_sqlite else {},
        )

    async def _migrate(self) -> None:
        """Run the migrations on an engine of their own, disposed before the app's is made.

        On SQLite that engine differs from the app's in two ways: foreign keys are off, because
        changing a column means copying its table, which must not cascade into the tables that
        point at it (a check after the migration says that nothing was left dangling); and each
        transaction is a real ``BEGIN``, so that a migration's DDL and data move together or
        not at all (the Python driver would otherwise run DDL outside any transaction).
        """
        engine = self._create_engine()
        if self.is_sqlite:
            event.listen(engine.sync_engine, "connect", _sqlite_migration_pragmas)
            event.listen(engine.sync_engine, "begin", _sqlite_begin)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(migrations.upgrade)
        finally:
            await engine.dispose()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the statistics page read while a move is being written; foreign keys keep the log
    # tied to real games. synchronous stays FULL (the default): a move is on disk, not only in
    # the OS's buffers, before its reply (NORMAL would halve a tap's latency but could lose the
    # last moves to a power cut)
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_migration_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # the driver must not open transactions of its own: _sqlite_begin does, for DDL too
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=OFF")
    cursor.close()


def _sqlite_begin(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")
