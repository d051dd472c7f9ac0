"""The database every store shares: :class:`Database`, its engine, opened and migrated.

One :class:`Database` is opened when the app starts. Opening it brings the schema up to date
(the Alembic migrations in :mod:`heartsuit.server.storage.migrations`) before anything else
touches it; the stores (``players/store.py`` and each game's, one module per concern) each take
the open ``Database`` and read through :meth:`Database.reading` and write through
:meth:`Database.write` (group commit: the writes behind moves) or :meth:`Database.writing` (a
block of statements). The same SQL runs on SQLite (aiosqlite, the default) and on
PostgreSQL (asyncpg) when ``DATABASE_URL`` says so.

The parts live beside it: :mod:`.statements` (a write's steps, compiled once, run many rows at a
time), :mod:`.batch_writer` (group commit, and SQLite's writer thread), :mod:`.readers`
(SQLite's reader threads), :mod:`.sqlite` (its pragmas and transactions), :mod:`.errors`.

Each store module declares the tables it queries on :data:`metadata`; a migration, not that
declaration, is what creates them, and a test holds the two together.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from typing import TypeVar

from sqlalchemy import Connection, Engine, MetaData, event, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from heartsuit.server.storage import batch_writer, migrations, readers, statements
from heartsuit.server.storage import sqlite as sqlite_setup

# what every store uses, named here so that one import serves them
from heartsuit.server.storage.errors import MoveConflict as MoveConflict
from heartsuit.server.storage.errors import StoreError as StoreError
from heartsuit.server.storage.statements import Step as Step

_T = TypeVar("_T")

#: the tables the stores query; the migrations create them
metadata = MetaData()


class Database:
    """An async engine on ``url``, migrated to the newest schema on :meth:`open`."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self._echo = echo
        self._engine: AsyncEngine | None = None
        self._write_lock: asyncio.Lock | None = None
        #: writes waiting for the next batch, and the task writing batches
        #: (a deque: on a SQLite file the writer thread takes them from it, see
        #: ``BatchWriter.drain``)
        self._pending: deque[statements.Write] = deque()
        #: how many writing() blocks wait for the write lock (the writer thread then stops
        #: draining the queue and lets them have it)
        self._blocks_waiting = 0
        self._flusher: asyncio.Task[None] | None = None
        self._writer_conn: AsyncConnection | None = None
        #: set while :meth:`close` runs: new writes are refused
        self._closing = False
        #: SQLite (a file): the thread that writes the batches, and the threads that read
        self._batches: batch_writer.BatchWriter | None = None
        self._readers: readers.Readers | None = None

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

    @property
    def batch_engine(self) -> Engine:
        """The (sync) engine the batches of :meth:`write` run on: on a SQLite file, the writer
        thread's own; otherwise the async engine's."""
        if self._batches is not None:
            return self._batches.engine
        return self.engine.sync_engine

    @property
    def read_engine(self) -> Engine:
        """The (sync) engine :meth:`read` runs on: on a SQLite file, the reader threads' own;
        otherwise the async engine's."""
        if self._readers is not None:
            return self._readers.engine
        return self.engine.sync_engine

    async def open(self) -> None:
        """Connect and upgrade the schema to the newest migration (stamping a pre-migration
        database first); opening an open database does nothing."""
        if self._engine is not None:
            return
        await self._migrate()
        engine = self._create_engine()
        if self.is_sqlite:
            event.listen(engine.sync_engine, "connect", sqlite_setup.pragmas)
            # the driver's own transaction handling breaks SAVEPOINT (it would commit a batch
            # piecemeal): it opens none of its own, and each transaction is an explicit BEGIN
            event.listen(engine.sync_engine, "begin", sqlite_setup.begin_app)
            # SQLite has one writer at a time: queue this process's writers here, in the event
            # loop, rather than in SQLite's busy handler (and so that a transaction that reads
            # before it writes can never find its snapshot overtaken)
            self._write_lock = asyncio.Lock()
            if make_url(self.url).database not in (None, "", ":memory:"):
                self._batches = batch_writer.BatchWriter(self.url)
                self._readers = readers.Readers(self.url)
        self._engine = engine

    async def close(self) -> None:
        """Write what was asked for, then close: every write already waiting for its commit
        is committed (or told it failed) before the connections go; a write asked for once
        closing began raises :class:`StoreError` at once, unwritten."""
        self._closing = True
        try:
            while self._flusher is not None and not self._flusher.done():
                # the batch being written and the writes queued behind it (shielded: a
                # cancelled close still lets the writer finish what it acknowledges)
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._flusher)
            await self._close_connections()
        finally:
            self._closing = False

    async def _close_connections(self) -> None:
        if self._writer_conn is not None:
            await self._writer_conn.close()
            self._writer_conn = None
        if self._batches is not None:
            await self._batches.close()
            self._batches = None
        if self._readers is not None:
            await self._readers.close()
            self._readers = None
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reads."""
        async with self.engine.connect() as conn:
            yield conn

    async def read(self, query: Callable[[Connection], _T], *, single: bool = False) -> _T:
        """The result of ``query``, a function that reads through the (sync) connection it is
        given, its statements in one transaction (on SQLite one snapshot: a write committed
        meanwhile is not half seen).

        On a SQLite file it runs whole in a reader thread (:class:`.readers.Readers`): the cheap way
        to read on the paths of every move and every new game. Elsewhere it runs on a connection
        of the async engine (``run_sync``). ``single``: the query is one statement, which on
        PostgreSQL then runs outside a transaction (one round trip instead of three, and the
        same answer, since at READ COMMITTED a statement has its own snapshot either way).
        """
        if self._readers is not None:
            return await self._readers.read(query)
        async with self.reading() as conn:
            if single and self.is_postgres:
                await conn.execution_options(isolation_level="AUTOCOMMIT")
            return await conn.run_sync(query)

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction, committed on leaving the block (rolled back on an error)."""
        engine = self.engine
        if self._write_lock is None:
            async with engine.begin() as conn:
                yield conn
            return
        self._blocks_waiting += 1
        try:
            await self._write_lock.acquire()
        finally:
            self._blocks_waiting -= 1
        try:
            async with self._writer(engine) as conn:
                yield conn
        finally:
            self._write_lock.release()

    async def write(self, *steps: statements.Step, key: Hashable | None = None) -> None:
        """Run ``steps`` in order as one atomic write, committed before this returns.

        This is the path for the writes behind every accepted move: on SQLite, writes that
        arrive together are committed together (group commit). While one batch is being
        written, the next ones queue; the next batch then runs each step of its writes as one
        ``executemany`` (writes of the same shape, in their order) in one transaction, so a
        hundred waiting moves cost a few round trips to the database and one commit instead of
        a few hundred and a hundred. Each caller returns only once its batch is committed, so
        a move is on disk before anyone is told of it. Writes that name the same ``key``
        (whose rows they change: a player, whose running totals one write may read and the
        next change) are written one after the other, never step by step together. If a write
        of the batch breaks a constraint (a second writer of a log entry), the batch is rolled
        back and written again with each write in a SAVEPOINT of its own: that write raises,
        the others are committed. If the commit fails, every write of the batch raises.

        On PostgreSQL the same: a process writes its batches one at a time on a connection of
        its own (other processes write theirs at the same time, and ``writing()`` blocks take
        connections from the pool). A batch that PostgreSQL aborts for a deadlock or a
        serialization failure (two processes' batches touching the same rows in another order)
        is written again with each write in a transaction of its own.
        """
        if self._closing:
            raise StoreError("the store is closing: the write was not made")
        engine = self.engine
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(statements.Write(steps, done, key))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(engine))
        await done

    async def _flush(self, engine: AsyncEngine) -> None:
        while self._pending:
            if self._write_lock is None:
                await self._write_batch(engine, batch_writer.taken(self._pending))
                continue
            async with self._write_lock:
                if self._batches is not None:
                    # the writer thread writes batch after batch, each taken from the queue
                    # the moment the one before it is committed, until the queue is empty or
                    # a writing() block waits for the lock
                    await self._batches.drain(self._pending, lambda: self._blocks_waiting > 0)
                else:
                    await self._write_batch(engine, batch_writer.taken(self._pending))

    async def _write_batch(self, engine: AsyncEngine, batch: list[statements.Write]) -> None:
        """One batch through the async engine (PostgreSQL, an in-memory SQLite database)."""
        try:
            try:
                async with self._writer(engine) as conn:
                    for group in statements.same_shape(batch):
                        await statements.run_many(conn, group)
            except IntegrityError:
                # someone's write is refused: find whose, and commit the others
                refused: list[tuple[statements.Write, IntegrityError]] = []
                try:
                    async with self._writer(engine) as conn:
                        for write in batch:
                            try:
                                async with conn.begin_nested():
                                    await statements.run(conn, write.steps)
                            except IntegrityError as conflict:
                                refused.append((write, conflict))
                except DBAPIError as aborted:
                    if not batch_writer.written_again(aborted):
                        raise
                    # aborted in its turn for a deadlock: nothing of it was committed
                    await self._one_at_a_time(engine, batch)
                else:
                    for write, refusal in refused:
                        batch_writer.settle(write.done, refusal)
            except DBAPIError as exc:
                if not batch_writer.written_again(exc):
                    raise
                # another process's transaction held rows this batch needed, in another order:
                # nothing of it was committed
                await self._one_at_a_time(engine, batch)
        except BaseException as exc:
            for write in batch:
                batch_writer.settle(write.done, exc)
            if not isinstance(exc, Exception):
                raise
        else:
            for write in batch:
                batch_writer.settle(write.done, None)

    async def _one_at_a_time(self, engine: AsyncEngine, batch: list[statements.Write]) -> None:
        """Each write of an aborted batch in a transaction of its own, each settled with its
        own outcome. A write alone can still be the one PostgreSQL aborts to end a deadlock
        with another process's batch: it is tried again, up to :data:`.WRITE_ATTEMPTS` times,
        after a short pause that lets the other transaction finish."""
        for write in batch:
            for attempt in range(1, batch_writer.WRITE_ATTEMPTS + 1):
                try:
                    async with self._writer(engine) as conn:
                        await statements.run(conn, write.steps)
                except DBAPIError as alone:
                    if attempt < batch_writer.WRITE_ATTEMPTS and batch_writer.written_again(alone):
                        await asyncio.sleep(random.uniform(0.005, 0.02) * attempt)
                        continue
                    batch_writer.settle(write.done, alone)
                except Exception as alone:
                    batch_writer.settle(write.done, alone)
                break

    @asynccontextmanager
    async def _writer(self, engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
        """A write transaction on the one connection this process writes its batches through
        (kept open: no pool checkout and reset per batch); on SQLite it takes the write lock at
        its start. Call it holding the write lock (SQLite) or from the one flushing task."""
        conn = self._writer_conn
        if conn is None:
            conn = await engine.connect()
            await conn.execution_options(heartsuit_writer=True)
            self._writer_conn = conn
        try:
            async with conn.begin():
                yield conn
        except BaseException:
            # whatever went wrong (a refused statement, a failed commit, a broken connection),
            # the next write starts on a fresh connection: closing this one rolls back
            # anything its failure left open
            self._writer_conn = None
            with contextlib.suppress(Exception):
                await conn.close()
            raise

    def _create_engine(self) -> AsyncEngine:
        return create_async_engine(
            self.url,
            echo=self._echo,
            # a writer from another process waits this long for SQLite's lock before failing
            connect_args={"timeout": sqlite_setup.BUSY_TIMEOUT_S} if self.is_sqlite else {},
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
            event.listen(engine.sync_engine, "connect", sqlite_setup.migration_pragmas)
            event.listen(engine.sync_engine, "begin", sqlite_setup.begin_write)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(migrations.upgrade)
        finally:
            await engine.dispose()
