"""The database every store shares: its engine, SQLite's pragmas and single writer, migrations.

One :class:`Database` is opened when the app starts. Opening it brings the schema up to date
(the Alembic migrations in :mod:`heartsuit.server.storage.migrations`) before anything else touches
it; the stores (``players_store``, ``solitaire_store``, one module per concern) each take the open
``Database`` and read through :meth:`Database.reading` and write through
:meth:`Database.write` (group commit: the writes behind moves) or :meth:`Database.writing` (a
block of statements). The same SQL runs on SQLite (aiosqlite, the default) and on
PostgreSQL (asyncpg) when ``DATABASE_URL`` says so.

Each store module declares the tables it queries on :data:`metadata`; a migration, not that
declaration, is what creates them, and a test holds the two together.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from sqlalchemy import Connection, Engine, Executable, MetaData, create_engine, event, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from heartsuit.server.storage import migrations

#: how long a SQLite writer waits for another process's write lock before giving up
SQLITE_BUSY_TIMEOUT_S = 30.0

_T = TypeVar("_T")

#: the tables the stores query; the migrations create them
metadata = MetaData()


class StoreError(RuntimeError):
    """The store could not do what was asked (a bug or an outage, never the player's input)."""


class MoveConflict(StoreError):
    """Another writer already logged this entry of an append-only log (a move, an event):
    the caller's copy of the game is stale."""


class Step(NamedTuple):
    """One statement of a :meth:`Database.write`, with its parameter rows (none: skipped).

    Keep each ``statement`` a module-level constant: writes whose steps are the same
    statements, in the same order, are written together with one ``executemany`` per step,
    and each statement is compiled once (:func:`_prepared`).
    """

    statement: Executable
    rows: Sequence[Mapping[str, Any]]


class _Write:
    """One :meth:`Database.write` waiting for its batch."""

    __slots__ = ("done", "key", "shape", "steps")

    def __init__(
        self, steps: Sequence[Step], done: asyncio.Future[None], key: Hashable | None = None
    ) -> None:
        #: the steps that have rows (a step without rows writes nothing)
        self.steps: tuple[Step, ...] = tuple([step for step in steps if step.rows])
        self.done = done
        #: whose rows it changes (None: nobody's in particular): two writes of one key are
        #: never interleaved step by step, so each sees what the one before it wrote
        self.key = key
        #: which statements, in order: writes of one shape are written together
        self.shape: tuple[int, ...] = tuple([id(step.statement) for step in self.steps])


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A step's statement compiled once for a dialect and the keys of its rows: its SQL, and
    how a row becomes the driver's parameters.

    On SQLite the SQL names its parameters (``:b_game``) and the driver takes each row as it
    is (a dict it looks the names up in, in C): nothing is done per row, unless the statement
    has constants of its own (the 1 of ``games + 1``), which each row is given too. Elsewhere
    (asyncpg's ``$1``) each row becomes a tuple in the order of the parameters.
    """

    #: the statement (kept so that its id, the cache's key, stays its own)
    statement: Executable
    sql: str
    #: positional: for each parameter in order, the row key it takes, or a constant's name
    keys: tuple[str, ...]
    #: the statement's constants by name: a row that does not give one gets this value
    fixed: Mapping[str, Any]
    #: the row keys every row must give
    required: frozenset[str]
    #: positional: each parameter's bind processor, when the dialect has one for its type
    processors: tuple[Any, ...]
    #: whether the driver takes named parameters (each row a dict)
    named: bool
    #: on SQLite, an INSERT whose parameters are all in its VALUES as INSERTs of many rows
    #: (:class:`_Inserts`); None for any other statement
    inserts: _Inserts | None = None

    def params(self, rows: Sequence[Mapping[str, Any]]) -> list[Any]:
        """The rows as the driver's parameters (raises :class:`StoreError` when a row lacks
        a value the statement needs)."""
        required = self.required
        for row in rows:
            if not row.keys() >= required:
                raise StoreError(f"a row of the write lacks {sorted(required.difference(row))}")
        if self.named:
            if self.fixed:
                fixed = self.fixed
                return [{**fixed, **row} for row in rows]
            return [row if type(row) is dict else dict(row) for row in rows]
        fixed, keys = self.fixed, self.keys
        out = [tuple([row[k] if k in row else fixed[k] for k in keys]) for row in rows]
        if any(self.processors):
            pairs = tuple(zip(range(len(keys)), self.processors, strict=True))
            out = [tuple([t[i] if f is None else f(t[i]) for i, f in pairs]) for t in out]
        return out


#: (id of the statement, dialect name, the rows' keys) -> the statement prepared for them, or
#: None when it needs SQLAlchemy's own execution (defaults computed in Python, RETURNING,
#: expanding parameters)
_PREPARED: dict[tuple[int, str, frozenset[str]], _Prepared | None] = {}


def _prepared(
    statement: Executable, dialect: Any, rows: Sequence[Mapping[str, Any]]
) -> _Prepared | None:
    """``statement`` compiled once per dialect and set of row keys, as SQLAlchemy would compile
    it for ``conn.execute(statement, rows)``; None when it must run that way instead."""
    keys = frozenset(rows[0])
    cache_key = (id(statement), dialect.name, keys)
    try:
        found = _PREPARED[cache_key]
    except KeyError:
        pass
    else:
        if found is None or found.statement is statement:
            return found
    if len(_PREPARED) > 1024:  # statements are module constants: this is only a safeguard
        _PREPARED.clear()
    prepared = None
    if dialect.name == "sqlite":
        prepared = _compile(statement, _named(dialect), keys)
    if prepared is None:
        prepared = _compile(statement, dialect, keys)
    _PREPARED[cache_key] = prepared
    return prepared


def _named(dialect: Any) -> Any:
    """A copy of a SQLite dialect that writes named parameters (``:name``), which Python's
    ``sqlite3`` takes as well as ``?``."""
    named = copy.copy(dialect)
    named.paramstyle, named.positional = "named", False
    return named


def _compile(statement: Executable, dialect: Any, keys: frozenset[str]) -> _Prepared | None:
    compiled: Any = statement.compile(  # type: ignore[attr-defined]
        dialect=dialect, column_keys=sorted(keys)
    )
    if (
        compiled.literal_execute_params
        or compiled.post_compile_params
        or compiled.insert_prefetch
        or compiled.update_prefetch
        or compiled.implicit_returning
        or compiled.effective_returning
        or getattr(compiled, "escaped_bind_names", None)
    ):
        return None
    fixed: dict[str, Any] = {}
    required: set[str] = set()
    for bind, name in compiled.bind_names.items():
        if bind.key in keys and name == bind.key:
            required.add(name)
        elif bind.callable is None and not bind.required and name not in keys:
            fixed[name] = bind.value  # a constant (its name made up by SQLAlchemy)
        else:
            return None  # a value is missing, or named otherwise: SQLAlchemy's own way
    processors = compiled._bind_processors
    if dialect.positional:
        if compiled.positiontup is None:
            return None
        order = tuple(compiled.positiontup)
    elif processors:
        return None  # values the driver must be given converted: the positional way does it
    else:
        order = ()
    named = not dialect.positional
    return _Prepared(
        statement,
        compiled.string,
        order,
        fixed,
        frozenset(required),
        tuple(processors.get(name) for name in order),
        named=named,
        inserts=_Inserts.of(compiled.string) if named else None,
    )


def _statement(
    conn: Connection | AsyncConnection, step: Step, rows: Sequence[Mapping[str, Any]]
) -> tuple[Any, Any, bool]:
    """What to execute for ``rows`` of ``step``: (SQL, positional rows, True), or (statement,
    rows, False) when SQLAlchemy must compile it."""
    prepared = _prepared(step.statement, conn.dialect, rows)
    if prepared is None:
        return step.statement, list(rows), False
    return prepared.sql, prepared.params(rows), True


async def _execute(conn: AsyncConnection, step: Step, rows: Sequence[Mapping[str, Any]]) -> None:
    statement, params, driver = _statement(conn, step, rows)
    if driver:
        await conn.exec_driver_sql(statement, params)
    else:
        await conn.execute(statement, params)


def _execute_sync(conn: Connection, step: Step, rows: Sequence[Mapping[str, Any]]) -> None:
    statement, params, driver = _statement(conn, step, rows)
    if driver:
        conn.exec_driver_sql(statement, params)
    else:
        conn.execute(statement, params)


async def _run(conn: AsyncConnection, steps: Sequence[Step]) -> None:
    for step in steps:
        if step.rows:
            await _execute(conn, step, step.rows)


def _group_rows(group: list[_Write], index: int) -> Sequence[Mapping[str, Any]]:
    """Step ``index``'s rows of every write of a run of one shape, in their order."""
    if len(group) == 1:
        return group[0].steps[index].rows
    return [row for write in group for row in write.steps[index].rows]


async def _run_many(conn: AsyncConnection, group: list[_Write]) -> None:
    """Writes of one shape: each step once, with the rows of every write in their order."""
    for index, step in enumerate(group[0].steps):
        await _execute(conn, step, _group_rows(group, index))


def _run_sync(conn: Connection, steps: Sequence[Step]) -> None:
    for step in steps:
        if step.rows:
            _execute_sync(conn, step, step.rows)


def _run_many_sync(conn: Connection, group: list[_Write]) -> None:
    for index, step in enumerate(group[0].steps):
        _execute_sync(conn, step, _group_rows(group, index))


def _same_shape(batch: list[_Write]) -> list[list[_Write]]:
    """The batch cut into runs of consecutive writes of the same shape (so that no write's
    steps run out of their order), a run ending before a second write of the same key (so
    that it runs after the first one's last step, as if alone).

    Within a run whose writes all name a key (so no two of them change the same rows), the
    writes are put in the order of their keys: every process then takes the rows of one
    statement in the same order, and two processes' batches over the same tables or players
    wait for each other instead of deadlocking."""
    groups: list[list[_Write]] = []
    keys: set[Hashable] = set()
    for write in batch:
        if groups and groups[-1][0].shape == write.shape and write.key not in keys:
            groups[-1].append(write)
        else:
            groups.append([write])
            keys = set()
        if write.key is not None:
            keys.add(write.key)
    for group in groups:
        if len(group) > 1 and all(write.key is not None for write in group):
            group.sort(key=lambda write: str(write.key))
    return groups


#: PostgreSQL's deadlock_detected and serialization_failure: the transaction was aborted, and
#: the same writes may succeed when tried again
_TRY_AGAIN = frozenset({"40P01", "40001"})

#: how many times one write alone is tried when PostgreSQL keeps aborting it for a deadlock
#: (each time another process's transaction was chosen to go on, so it is soon out of the way)
WRITE_ATTEMPTS = 5


def _written_again(exc: DBAPIError) -> bool:
    """Whether a failed batch may be written again, one write at a time."""
    return getattr(exc.orig, "sqlstate", None) in _TRY_AGAIN


def _taken(pending: deque[_Write]) -> list[_Write]:
    """Every write queued now, taken from the queue in order (appends meanwhile stay queued:
    only one taker at a time, the flushing task or the writer thread)."""
    popleft = pending.popleft
    return [popleft() for _ in range(len(pending))]


def _settle_batch(batch: list[_Write], outcome: list[BaseException | None] | BaseException) -> None:
    """Tell each write of a batch its outcome (in the event loop)."""
    if isinstance(outcome, BaseException):
        for write in batch:
            _settle(write.done, outcome)
    else:
        for write, one in zip(batch, outcome, strict=True):
            _settle(write.done, one)


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    elif isinstance(error, Exception):
        done.set_exception(error)
    else:
        done.set_exception(StoreError(f"the write was interrupted: {error!r}"))


def _sqlite_sync_engine(url: str, begin: Callable[[Any], None], **options: Any) -> Engine:
    """A sync engine on the SQLite file of ``url`` for a thread of this module: the site's
    pragmas on each connection, ``begin`` opening each transaction."""
    engine = create_engine(
        make_url(url).set(drivername="sqlite"),
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S, "check_same_thread": False},
        **options,
    )
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "begin", begin)
    return engine


#: on SQLite, the rows of an INSERT in a batch are written by statements of many rows each
#: (``VALUES (...), (...)``), of at most this many rows, in sizes that are powers of two (so a
#: few texts are prepared, whatever the batch): each row of an ``executemany`` is a call into
#: SQLite that lets the GIL go and must then get it back from a busy event loop, and under load
#: a batch of a few hundred rows spent most of its time waiting for it (docs/site.md, "Writes:
#: group commit")
ROWS_PER_INSERT = 64

#: a statement of the driver's plan: its SQL, its parameters (a list of rows for an
#: ``executemany``, else one row's), and whether it is an ``executemany``
_Planned = tuple[str, list[Any], bool]


class _Inserts:
    """An INSERT of one row (``... VALUES (:a, :b) ...``, named parameters only in its
    VALUES) as INSERTs of many (``... VALUES (?, ?), (?, ?) ...``)."""

    __slots__ = ("head", "names", "tail", "texts")

    def __init__(self, head: str, names: tuple[str, ...], tail: str) -> None:
        self.head, self.names, self.tail = head, names, tail
        self.texts: dict[int, str] = {}

    @staticmethod
    def of(sql: str) -> _Inserts | None:
        """For an INSERT whose parameters are all in its one VALUES group; else None."""
        match = _ONE_ROW_INSERT.fullmatch(sql)
        if match is None:
            return None
        names = tuple(name.strip()[1:] for name in match["values"].split(","))
        return _Inserts(match["head"], names, match["tail"])

    def plan(self, rows: list[Any]) -> list[_Planned]:
        """``rows`` (the driver's rows: dicts with every parameter, constants included, as
        :meth:`_Prepared.params` gives them) as statements of many rows each."""
        planned: list[_Planned] = []
        names = self.names
        # (older SQLite takes at most 999 parameters in a statement)
        most = min(ROWS_PER_INSERT, 1 << ((999 // len(names)).bit_length() - 1))
        start = 0
        while start < len(rows):
            size = min(most, 1 << ((len(rows) - start).bit_length() - 1))
            flat = [row[n] for row in rows[start : start + size] for n in names]
            planned.append((self.sql(size), flat, False))
            start += size
        return planned

    def sql(self, size: int) -> str:
        text = self.texts.get(size)
        if text is None:
            group = "(" + ", ".join("?" * len(self.names)) + ")"
            text = self.texts[size] = f"{self.head}VALUES {', '.join([group] * size)}{self.tail}"
        return text


#: an INSERT of one row as SQLAlchemy writes it for SQLite with named parameters: what comes
#: before VALUES, the group of parameters, and what follows it (without any parameter)
_ONE_ROW_INSERT = re.compile(
    r"(?P<head>INSERT INTO [^:?]*? )VALUES \((?P<values>:\w+(?:, :\w+)*)\)(?P<tail>[^:?]*)",
    re.DOTALL,
)

def _driver_plan(batch: list[_Write], dialect: Any) -> list[_Planned] | None:
    """The batch as the driver's statements (each step of a run of writes of one shape once,
    as :func:`_run_many_sync` runs it: an ``executemany`` of its rows, or for an INSERT of
    several rows statements of many rows each); None when one of them needs SQLAlchemy's own
    execution. Raises :class:`StoreError` when a row lacks a value."""
    plan: list[_Planned] = []
    for group in _same_shape(batch):
        for index, step in enumerate(group[0].steps):
            rows = _group_rows(group, index)
            prepared = _prepared(step.statement, dialect, rows)
            if prepared is None:
                return None
            params = prepared.params(rows)
            inserts = prepared.inserts if len(params) > 1 else None
            if inserts is None:
                plan.append((prepared.sql, params, True))
            else:
                plan.extend(inserts.plan(params))
    return plan


class _Hooks:
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


class _BatchWriter:
    """SQLite's group-commit batches, each written whole in one thread of its own.

    Through the async driver, every statement of a batch (and its ``BEGIN`` and ``COMMIT``) is a
    round trip from the event loop to the driver's thread and back, and each way back waits for
    the loop to come round: under load a batch of a few statements took many loop turns while
    the taps behind it queued. Here the whole batch (the transaction, every ``executemany``,
    the commit, and the retries of a refused batch) runs in one call to a thread that owns a
    connection of its own (same pragmas, ``BEGIN IMMEDIATE``, ``synchronous=FULL``); and the
    thread takes the next batch from the queue itself (:meth:`drain`): one hop there while
    writes keep coming, and one call back per batch with its outcome.

    A batch whose statements are all prepared ones (:func:`_prepared`: every write of the
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
        self.engine = _sqlite_sync_engine(url, _sqlite_begin)
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="heartsuit-writes")
        self._conn: Connection | None = None
        #: the driver's connection under ``_conn``, and a cursor on it (None: not yet asked)
        self._raw: sqlite3.Connection | None = None
        self._cursor: sqlite3.Cursor | None = None

    async def drain(self, pending: deque[_Write], stop: Callable[[], bool]) -> None:
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
        pending: deque[_Write],
        stop: Callable[[], bool],
    ) -> None:
        while pending and not stop():
            batch = _taken(pending)
            outcome: list[BaseException | None] | BaseException
            try:
                outcome = self._write(batch)
            except BaseException as exc:
                outcome = exc
            try:
                loop.call_soon_threadsafe(_settle_batch, batch, outcome)
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

    def _write(self, batch: list[_Write]) -> list[BaseException | None]:
        """Each write's outcome (None: committed), as :meth:`Database._write_batch` says; raises
        when no write of the batch was kept."""
        plan = _driver_plan(batch, self.engine.dialect)
        if plan is None:
            return self._write_engine(batch)
        try:
            return self._write_driver(batch, plan)
        except DBAPIError as exc:
            if not _written_again(exc):
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
        self, batch: list[_Write], plan: list[_Planned]
    ) -> list[BaseException | None]:
        conn, cursor = self._driver()
        hooks = _Hooks(self.engine, conn)
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
            alone = [_driver_plan([write], self.engine.dialect) for write in batch]
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

    def _write_engine(self, batch: list[_Write]) -> list[BaseException | None]:
        outcomes: list[BaseException | None] = [None] * len(batch)
        try:
            try:
                with self._transaction() as conn:
                    for group in _same_shape(batch):
                        _run_many_sync(conn, group)
            except IntegrityError:
                # someone's write is refused: find whose, and commit the others
                outcomes = self._refused_engine(batch)
        except DBAPIError as exc:
            if not _written_again(exc):
                raise
            # aborted for a deadlock: nothing of it was committed
            outcomes = self._one_at_a_time(batch)
        return outcomes

    def _refused_engine(self, batch: list[_Write]) -> list[BaseException | None]:
        """The batch again, each write in a SAVEPOINT of its own: the refused ones' errors."""
        refused: list[BaseException | None] = [None] * len(batch)
        with self._transaction() as conn:
            for index, write in enumerate(batch):
                try:
                    with conn.begin_nested():
                        _run_sync(conn, write.steps)
                except IntegrityError as conflict:
                    refused[index] = conflict
        return refused

    def _one_at_a_time(self, batch: list[_Write]) -> list[BaseException | None]:
        """As :meth:`Database._one_at_a_time`: each write alone, tried again when aborted."""
        outcomes: list[BaseException | None] = [None] * len(batch)
        for index, write in enumerate(batch):
            for attempt in range(1, WRITE_ATTEMPTS + 1):
                try:
                    with self._transaction() as conn:
                        _run_sync(conn, write.steps)
                except DBAPIError as alone:
                    if attempt < WRITE_ATTEMPTS and _written_again(alone):
                        time.sleep(random.uniform(0.005, 0.02) * attempt)
                        continue
                    outcomes[index] = alone
                except Exception as alone:
                    outcomes[index] = alone
                break
        return outcomes


class _Readers:
    """SQLite's reads, each run whole in a reader thread on a connection of the thread's pool.

    Through the async driver every statement of a read (its ``BEGIN``, each query, each fetch,
    closing the cursor, the ``ROLLBACK``) is a round trip from the event loop to the driver's
    thread and back, each waiting for the loop to come round: a read of one row cost the loop
    more than a move's whole write. Here a read is one call to a thread (one hop there and one
    back) that runs the query with SQLAlchemy's sync engine, with the same pragmas and a
    ``BEGIN`` (deferred: a snapshot, no lock) before its first statement.
    """

    #: reads run at once (SQLite reads in WAL mode wait for nobody, and release the GIL while
    #: they search)
    THREADS = 2

    def __init__(self, url: str) -> None:
        self.engine = _sqlite_sync_engine(url, _sqlite_begin_read, pool_size=self.THREADS)
        self.threads = ThreadPoolExecutor(self.THREADS, thread_name_prefix="heartsuit-reads")
        self._local = threading.local()
        #: every connection a reader thread opened (closed with the threads)
        self._opened: list[Connection] = []

    async def read(self, query: Callable[[Connection], _T]) -> _T:
        try:
            running = asyncio.get_running_loop().run_in_executor(self.threads, self._read, query)
        except RuntimeError as closed:  # the threads were shut down: the store closed
            raise StoreError("the store is closed: nothing was read") from closed
        return await running

    def _read(self, query: Callable[[Connection], _T]) -> _T:
        # each thread keeps its connection (no pool checkout and reset per read); a read ends
        # its transaction, and one that fails leaves a fresh connection to the next
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self.engine.connect()
            self._opened.append(conn)
        try:
            with conn.begin():
                return query(conn)
        except BaseException:
            self._local.conn = None
            self._opened.remove(conn)
            with contextlib.suppress(Exception):
                conn.close()
            raise

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.threads.shutdown, True)
        for conn in self._opened:
            with contextlib.suppress(Exception):
                conn.close()
        self.engine.dispose()


class Database:
    """An async engine on ``url``, migrated to the newest schema on :meth:`open`."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self._echo = echo
        self._engine: AsyncEngine | None = None
        self._write_lock: asyncio.Lock | None = None
        #: writes waiting for the next batch, and the task writing batches
        #: (a deque: on a SQLite file the writer thread takes them from it, see _BatchWriter.drain)
        self._pending: deque[_Write] = deque()
        #: how many writing() blocks wait for the write lock (the writer thread then stops
        #: draining the queue and lets them have it)
        self._blocks_waiting = 0
        self._flusher: asyncio.Task[None] | None = None
        self._writer_conn: AsyncConnection | None = None
        #: set while :meth:`close` runs: new writes are refused
        self._closing = False
        #: SQLite (a file): the thread that writes the batches, and the threads that read
        self._batches: _BatchWriter | None = None
        self._readers: _Readers | None = None

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
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
            # the driver's own transaction handling breaks SAVEPOINT (it would commit a batch
            # piecemeal): it opens none of its own, and each transaction is an explicit BEGIN
            event.listen(engine.sync_engine, "begin", _sqlite_begin_app)
            # SQLite has one writer at a time: queue this process's writers here, in the event
            # loop, rather than in SQLite's busy handler (and so that a transaction that reads
            # before it writes can never find its snapshot overtaken)
            self._write_lock = asyncio.Lock()
            if make_url(self.url).database not in (None, "", ":memory:"):
                self._batches = _BatchWriter(self.url)
                self._readers = _Readers(self.url)
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

        On a SQLite file it runs whole in a reader thread (:class:`_Readers`): the cheap way to
        read on the paths of every move and every new game. Elsewhere it runs on a connection
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

    async def write(self, *steps: Step, key: Hashable | None = None) -> None:
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
        self._pending.append(_Write(steps, done, key))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(engine))
        await done

    async def _flush(self, engine: AsyncEngine) -> None:
        while self._pending:
            if self._write_lock is None:
                await self._write_batch(engine, _taken(self._pending))
                continue
            async with self._write_lock:
                if self._batches is not None:
                    # the writer thread writes batch after batch, each taken from the queue
                    # the moment the one before it is committed, until the queue is empty or
                    # a writing() block waits for the lock
                    await self._batches.drain(self._pending, lambda: self._blocks_waiting > 0)
                else:
                    await self._write_batch(engine, _taken(self._pending))

    async def _write_batch(self, engine: AsyncEngine, batch: list[_Write]) -> None:
        """One batch through the async engine (PostgreSQL, an in-memory SQLite database)."""
        try:
            try:
                async with self._writer(engine) as conn:
                    for group in _same_shape(batch):
                        await _run_many(conn, group)
            except IntegrityError:
                # someone's write is refused: find whose, and commit the others
                refused: list[tuple[_Write, IntegrityError]] = []
                try:
                    async with self._writer(engine) as conn:
                        for write in batch:
                            try:
                                async with conn.begin_nested():
                                    await _run(conn, write.steps)
                            except IntegrityError as conflict:
                                refused.append((write, conflict))
                except DBAPIError as aborted:
                    if not _written_again(aborted):
                        raise
                    # aborted in its turn for a deadlock: nothing of it was committed
                    await self._one_at_a_time(engine, batch)
                else:
                    for write, refusal in refused:
                        _settle(write.done, refusal)
            except DBAPIError as exc:
                if not _written_again(exc):
                    raise
                # another process's transaction held rows this batch needed, in another order:
                # nothing of it was committed
                await self._one_at_a_time(engine, batch)
        except BaseException as exc:
            for write in batch:
                _settle(write.done, exc)
            if not isinstance(exc, Exception):
                raise
        else:
            for write in batch:
                _settle(write.done, None)

    async def _one_at_a_time(self, engine: AsyncEngine, batch: list[_Write]) -> None:
        """Each write of an aborted batch in a transaction of its own, each settled with its
        own outcome. A write alone can still be the one PostgreSQL aborts to end a deadlock
        with another process's batch: it is tried again, up to :data:`WRITE_ATTEMPTS` times,
        after a short pause that lets the other transaction finish."""
        for write in batch:
            for attempt in range(1, WRITE_ATTEMPTS + 1):
                try:
                    async with self._writer(engine) as conn:
                        await _run(conn, write.steps)
                except DBAPIError as alone:
                    if attempt < WRITE_ATTEMPTS and _written_again(alone):
                        await asyncio.sleep(random.uniform(0.005, 0.02) * attempt)
                        continue
                    _settle(write.done, alone)
                except Exception as alone:
                    _settle(write.done, alone)
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
    # the driver must not open transactions of its own: _sqlite_begin_app does
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    # WAL lets the statistics page read while a move is being written; foreign keys keep the log
    # tied to real games. synchronous is FULL (said, though it is the default): a move is on
    # disk, not only in the OS's buffers, before its reply (NORMAL would halve a tap's latency
    # but could lose the last moves to a power cut)
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    # the automatic checkpoint (copying the WAL back into the database, with an fsync of its
    # own) runs inside the commit that finds the WAL past this many pages, and every tap queued
    # behind that commit waits for it: at SQLite's 1,000 pages (4 MB) it came every few seconds
    # under load and made most of the slowest taps; at 10,000 (40 MB, still bounded) it comes a
    # tenth as often (docs/site.md, "Writes: group commit")
    cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


#: WAL pages after which a commit checkpoints (SQLite's default is 1,000; see _sqlite_pragmas)
WAL_CHECKPOINT_PAGES = 10_000


def _sqlite_migration_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # the driver must not open transactions of its own: _sqlite_begin does, for DDL too
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=OFF")
    cursor.close()


def _sqlite_begin(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _sqlite_begin_read(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN")


def _sqlite_begin_app(conn: Any) -> None:
    # readers take a snapshot; a writer takes SQLite's write lock at once (in-process writers
    # queue in the event loop first), so no other process can overtake what it reads
    writer = conn.get_execution_options().get("heartsuit_writer", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")
