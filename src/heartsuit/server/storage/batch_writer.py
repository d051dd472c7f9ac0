"""Group commit: the writes waiting for the next batch, written together in one transaction.

On PostgreSQL a task of the event loop writes each batch; on a SQLite file one thread does
(:class:`BatchWriter`), taking the queued writes as they come, so the event loop never waits for
the file. A batch PostgreSQL aborts for a deadlock is written again one write at a time
(:data:`WRITE_ATTEMPTS`); each write learns its own outcome (:func:`settle_batch`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from heartsuit.server.storage import sqlite as sqlite_setup
from heartsuit.server.storage import statements
from heartsuit.server.storage.errors import StoreError

#: PostgreSQL's deadlock_detected and serialization_failure: the transaction was aborted, and
#: the same writes may succeed when tried again
_TRY_AGAIN = frozenset({"40P01", "40001"})

#: how many times one write alone is tried when PostgreSQL keeps aborting it for a deadlock
#: (each time another process's transaction was chosen to go on, so it is soon out of the way)
WRITE_ATTEMPTS = 5


def written_again(exc: DBAPIError) -> bool:
    """Whether a failed batch may be written again, one write at a time."""
    return getattr(exc.orig, "sqlstate", None) in _TRY_AGAIN


def taken(pending: deque[statements.Write]) -> list[statements.Write]:
    """Every write queued now, taken from the queue in order (appends meanwhile stay queued:
    only one taker at a time, the flushing task or the writer thread)."""
    popleft = pending.popleft
    return [popleft() for _ in range(len(pending))]


def settle_batch(
    batch: list[statements.Write], outcome: list[BaseException | None] | BaseException
) -> None:
    """Tell each write of a batch its outcome (in the event loop)."""
    if isinstance(outcome, BaseException):
        for write in batch:
            settle(write.done, outcome)
    else:
        for write, one in zip(batch, outcome, strict=True):
            settle(write.done, one)


def settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    elif isinstance(error, Exception):
        done.set_exception(error)
    else:
        done.set_exception(StoreError(f"the write was interrupted: {error!r}"))


class Hooks:
    """What SQLAlchemy does around the driver's calls that the driver's way still does: the
    engine's ``before_cursor_execute`` and ``commit`` listeners called (nothing when there are
    none), and the driver's errors raised as SQLAlchemy's exceptions, naming the statement."""

    __slots__ = ("conn", "dispatch", "engine", "many", "params", "sql")

    def __init__(self, engine: Engine, conn: Connection) -> None:
        self.engine, self.conn, self.dispatch = engine, conn, engine.dispatch
        #: the statement running (None: the commit)
        self.sql: str | None = None
        self.params: Any = None
        self.many = True

    def execute(self, cursor: sqlite3.Cursor, sql: str, params: list[Any], many: bool) -> None:
        self.sql, self.params, self.many = sql, params, many
        listeners = self.dispatch.before_cursor_execute
        if listeners:
            for listener in listeners:
                listener(self.conn, cursor, sql, params, None, many)
        if many:
            cursor.executemany(sql, params)
        else:
            cursor.execute(sql, params)

    def commit(self, cursor: sqlite3.Cursor) -> None:
        self.sql, self.params = None, None
        listeners = self.dispatch.commit
        if listeners:
            for listener in listeners:
                listener(self.conn)
        cursor.execute("COMMIT")

    def error(self, exc: sqlite3.Error) -> BaseException:
        """``exc`` as SQLAlchemy raises it (an ``IntegrityError`` for a constraint, ...)."""
        return DBAPIError.instance(
            self.sql,
            self.params,
            exc,
            sqlite3.Error,
            hide_parameters=self.engine.hide_parameters,
            dialect=self.engine.dialect,
            ismulti=self.sql is not None and self.many,
        )


class BatchWriter:
    """SQLite's group-commit batches, each written whole in one thread of its own.

    Through the async driver, every statement of a batch (and its ``BEGIN`` and ``COMMIT``) is a
    round trip from the event loop to the driver's thread and back, and each way back waits for
    the loop to come round: under load a batch of a few statements took many loop turns while
    the taps behind it queued. Here the whole batch (the transaction, every ``executemany``,
    the commit, and the retries of a refused batch) runs in one call to a thread that owns a
    connection of its own (same pragmas, ``BEGIN IMMEDIATE``, ``synchronous=FULL``); and the
    thread takes the next batch from the queue itself (:meth:`drain`): one hop there while
    writes keep coming, and one call back per batch with its outcome.

    A batch whose statements are all prepared ones (:func:`statements.prepared`: every write of the
    moves) runs on that connection's ``sqlite3`` connection itself (:meth:`_write_driver`):
    ``BEGIN IMMEDIATE``, one ``executemany`` per step, ``COMMIT``, without SQLAlchemy's
    execution contexts, results and transaction objects around each (at 1,000 taps a second
    most batches hold a tap or two, and those layers cost more than the statements). It keeps
    every promise of the SQLAlchemy way, which still writes the other batches: a refused write
    found in SAVEPOINTs and only it refused, errors raised as SQLAlchemy's exceptions (an
    ``IntegrityError`` is still one), a connection that failed replaced, and the engine's
    ``before_cursor_execute`` and ``commit`` listeners called as SQLAlchemy calls them.
    """

    def __init__(self, url: str) -> None:
        self.engine = sqlite_setup.sync_engine(url, sqlite_setup.begin_write)
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="heartsuit-writes")
        self._conn: Connection | None = None
        #: the driver's connection under ``_conn``, and a cursor on it (None: not yet asked)
        self._raw: sqlite3.Connection | None = None
        self._cursor: sqlite3.Cursor | None = None

    async def drain(self, pending: deque[statements.Write], stop: Callable[[], bool]) -> None:
        """Write the queued writes, batch after batch, in the writer thread, until ``pending``
        is empty or ``stop()``; each batch's writes are settled as it is committed.

        The thread takes the next batch itself: it does not wait for the event loop to hear of
        the last commit and hand it the next (a turn of a busy loop, every batch). Each batch's
        outcome goes back to the loop with ``call_soon_threadsafe``, in order, so every write
        of the drain is settled before this returns."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self.thread, self._drain, loop, pending, stop)

    def _drain(
        self,
        loop: asyncio.AbstractEventLoop,
        pending: deque[statements.Write],
        stop: Callable[[], bool],
    ) -> None:
        while pending and not stop():
            batch = taken(pending)
            outcome: list[BaseException | None] | BaseException
            try:
                outcome = self._write(batch)
            except BaseException as exc:
                outcome = exc
            try:
                loop.call_soon_threadsafe(settle_batch, batch, outcome)
            except RuntimeError:  # the loop is closed: nobody is waiting any more
                return
            if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
                raise outcome

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self.thread, self._close)
        self.thread.shutdown(wait=True)

    def _close(self) -> None:
        self._discard()
        self.engine.dispose()

    def _discard(self) -> None:
        """Close the thread's connection (rolling back what it left open): the next batch
        starts on a fresh one."""
        conn, self._conn, self._raw, self._cursor = self._conn, None, None, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """A write transaction on the thread's one connection (a fresh one after a failure)."""
        conn = self._conn
        if conn is None:
            conn = self._conn = self.engine.connect()
        try:
            with conn.begin():
                yield conn
        except BaseException:
            self._discard()
            raise

    def _write(self, batch: list[statements.Write]) -> list[BaseException | None]:
        """Each write's outcome (None: committed), as :meth:`Database._write_batch` says; raises
        when no write of the batch was kept."""
        plan = statements.driver_plan(batch, self.engine.dialect)
        if plan is None:
            return self._write_engine(batch)
        try:
            return self._write_driver(batch, plan)
        except DBAPIError as exc:
            if not written_again(exc):
                raise
            # aborted for a deadlock (only ever a listener's doing on SQLite): nothing of it
            # was committed
            return self._one_at_a_time(batch)

    # --- the driver's way: prepared statements on the sqlite3 connection ---

    def _driver(self) -> tuple[Connection, sqlite3.Cursor]:
        """The thread's connection and a cursor on its driver connection (a fresh one after a
        failure)."""
        conn, cursor = self._conn, self._cursor
        if conn is None:
            conn = self._conn = self.engine.connect()
        if cursor is None:
            raw = conn.connection.dbapi_connection
            assert isinstance(raw, sqlite3.Connection)
            self._raw, cursor = raw, raw.cursor()
            self._cursor = cursor
        return conn, cursor

    def _write_driver(
        self, batch: list[statements.Write], plan: list[statements.Planned]
    ) -> list[BaseException | None]:
        conn, cursor = self._driver()
        hooks = Hooks(self.engine, conn)
        try:
            try:
                cursor.execute("BEGIN IMMEDIATE")
                for sql, params, many in plan:
                    hooks.execute(cursor, sql, params, many)
                hooks.commit(cursor)
                return [None] * len(batch)
            except sqlite3.IntegrityError:
                if cursor.connection.in_transaction:  # (a constraint may have ended it)
                    cursor.execute("ROLLBACK")
            # someone's write is refused: find whose, and commit the others
            alone = [statements.driver_plan([write], self.engine.dialect) for write in batch]
            if any(steps is None for steps in alone):
                return self._refused_engine(batch)  # as it is written otherwise
            outcomes: list[BaseException | None] = [None] * len(batch)
            cursor.execute("BEGIN IMMEDIATE")
            for index, steps in enumerate(alone):
                assert steps is not None
                cursor.execute("SAVEPOINT heartsuit_write")
                try:
                    for sql, params, many in steps:
                        hooks.execute(cursor, sql, params, many)
                except sqlite3.IntegrityError as conflict:
                    cursor.execute("ROLLBACK TO SAVEPOINT heartsuit_write")
                    outcomes[index] = hooks.error(conflict)
                cursor.execute("RELEASE SAVEPOINT heartsuit_write")
            hooks.commit(cursor)
            return outcomes
        except sqlite3.Error as exc:
            self._discard()
            raise hooks.error(exc) from exc
        except BaseException:
            self._discard()
            raise

    # --- SQLAlchemy's way: any statement ---

    def _write_engine(self, batch: list[statements.Write]) -> list[BaseException | None]:
        outcomes: list[BaseException | None] = [None] * len(batch)
        try:
            try:
                with self._transaction() as conn:
                    for group in statements.same_shape(batch):
                        statements.run_many_sync(conn, group)
            except IntegrityError:
                # someone's write is refused: find whose, and commit the others
                outcomes = self._refused_engine(batch)
        except DBAPIError as exc:
            if not written_again(exc):
                raise
            # aborted for a deadlock: nothing of it was committed
            outcomes = self._one_at_a_time(batch)
        return outcomes

    def _refused_engine(self, batch: list[statements.Write]) -> list[BaseException | None]:
        """The batch again, each write in a SAVEPOINT of its own: the refused ones' errors."""
        refused: list[BaseException | None] = [None] * len(batch)
        with self._transaction() as conn:
            for index, write in enumerate(batch):
                try:
                    with conn.begin_nested():
                        statements.run_sync(conn, write.steps)
                except IntegrityError as conflict:
                    refused[index] = conflict
        return refused

    def _one_at_a_time(self, batch: list[statements.Write]) -> list[BaseException | None]:
        """As :meth:`Database._one_at_a_time`: each write alone, tried again when aborted."""
        outcomes: list[BaseException | None] = [None] * len(batch)
        for index, write in enumerate(batch):
            for attempt in range(1, WRITE_ATTEMPTS + 1):
                try:
                    with self._transaction() as conn:
                        statements.run_sync(conn, write.steps)
                except DBAPIError as alone:
                    if attempt < WRITE_ATTEMPTS and written_again(alone):
                        time.sleep(random.uniform(0.005, 0.02) * attempt)
                        continue
                    outcomes[index] = alone
                except Exception as alone:
                    outcomes[index] = alone
                break
        return outcomes
