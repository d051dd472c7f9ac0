"""The statements of a write and how they are run.

A write is a list of :class:`Step` (a statement and its rows). Writes whose steps are the same
statements in the same order are written together (:func:`same_shape`), one ``executemany`` per
step (:func:`run_many`); each statement is compiled once per dialect (:func:`prepare`), and on
SQLite an INSERT of one row is sent as INSERTs of many (:class:`Inserts`,
:func:`driver_plan`), which the driver runs far faster than one row at a time.
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import Connection, Executable
from sqlalchemy.ext.asyncio import AsyncConnection

from heartsuit.server.storage.errors import StoreError


class Step(NamedTuple):
    """One statement of a :meth:`Database.write`, with its parameter rows (none: skipped).

    Keep each ``statement`` a module-level constant: writes whose steps are the same
    statements, in the same order, are written together with one ``executemany`` per step,
    and each statement is compiled once (:func:`prepare`).
    """

    statement: Executable
    rows: Sequence[Mapping[str, Any]]


class Write:
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
class Prepared:
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
    #: (:class:`Inserts`); None for any other statement
    inserts: Inserts | None = None

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
PREPARED: dict[tuple[int, str, frozenset[str]], Prepared | None] = {}


def prepare(
    statement: Executable, dialect: Any, rows: Sequence[Mapping[str, Any]]
) -> Prepared | None:
    """``statement`` compiled once per dialect and set of row keys, as SQLAlchemy would compile
    it for ``conn.execute(statement, rows)``; None when it must run that way instead."""
    keys = frozenset(rows[0])
    cache_key = (id(statement), dialect.name, keys)
    try:
        found = PREPARED[cache_key]
    except KeyError:
        pass
    else:
        if found is None or found.statement is statement:
            return found
    if len(PREPARED) > 1024:  # statements are module constants: this is only a safeguard
        PREPARED.clear()
    prepared = None
    if dialect.name == "sqlite":
        prepared = compile_statement(statement, named_style(dialect), keys)
    if prepared is None:
        prepared = compile_statement(statement, dialect, keys)
    PREPARED[cache_key] = prepared
    return prepared


def named_style(dialect: Any) -> Any:
    """A copy of a SQLite dialect that writes named parameters (``:name``), which Python's
    ``sqlite3`` takes as well as ``?``."""
    named = copy.copy(dialect)
    named.paramstyle, named.positional = "named", False
    return named


def compile_statement(statement: Executable, dialect: Any, keys: frozenset[str]) -> Prepared | None:
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
    return Prepared(
        statement,
        compiled.string,
        order,
        fixed,
        frozenset(required),
        tuple(processors.get(name) for name in order),
        named=named,
        inserts=Inserts.of(compiled.string) if named else None,
    )


def statement_of(
    conn: Connection | AsyncConnection, step: Step, rows: Sequence[Mapping[str, Any]]
) -> tuple[Any, Any, bool]:
    """What to execute for ``rows`` of ``step``: (SQL, positional rows, True), or (statement,
    rows, False) when SQLAlchemy must compile it."""
    prepared = prepare(step.statement, conn.dialect, rows)
    if prepared is None:
        return step.statement, list(rows), False
    return prepared.sql, prepared.params(rows), True


async def execute(conn: AsyncConnection, step: Step, rows: Sequence[Mapping[str, Any]]) -> None:
    statement, params, driver = statement_of(conn, step, rows)
    if driver:
        await conn.exec_driver_sql(statement, params)
    else:
        await conn.execute(statement, params)


def execute_sync(conn: Connection, step: Step, rows: Sequence[Mapping[str, Any]]) -> None:
    statement, params, driver = statement_of(conn, step, rows)
    if driver:
        conn.exec_driver_sql(statement, params)
    else:
        conn.execute(statement, params)


async def run(conn: AsyncConnection, steps: Sequence[Step]) -> None:
    for step in steps:
        if step.rows:
            await execute(conn, step, step.rows)


def group_rows(group: list[Write], index: int) -> Sequence[Mapping[str, Any]]:
    """Step ``index``'s rows of every write of a run of one shape, in their order."""
    if len(group) == 1:
        return group[0].steps[index].rows
    return [row for write in group for row in write.steps[index].rows]


async def run_many(conn: AsyncConnection, group: list[Write]) -> None:
    """Writes of one shape: each step once, with the rows of every write in their order."""
    for index, step in enumerate(group[0].steps):
        await execute(conn, step, group_rows(group, index))


def run_sync(conn: Connection, steps: Sequence[Step]) -> None:
    for step in steps:
        if step.rows:
            execute_sync(conn, step, step.rows)


def run_many_sync(conn: Connection, group: list[Write]) -> None:
    for index, step in enumerate(group[0].steps):
        execute_sync(conn, step, group_rows(group, index))


def same_shape(batch: list[Write]) -> list[list[Write]]:
    """The batch cut into runs of consecutive writes of the same shape (so that no write's
    steps run out of their order), a run ending before a second write of the same key (so
    that it runs after the first one's last step, as if alone).

    Within a run whose writes all name a key (so no two of them change the same rows), the
    writes are put in the order of their keys: every process then takes the rows of one
    statement in the same order, and two processes' batches over the same tables or players
    wait for each other instead of deadlocking."""
    groups: list[list[Write]] = []
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

#: on SQLite, the rows of an INSERT in a batch are written by statements of many rows each
#: (``VALUES (...), (...)``), of at most this many rows, in sizes that are powers of two (so a
#: few texts are prepared, whatever the batch): each row of an ``executemany`` is a call into
#: SQLite that lets the GIL go and must then get it back from a busy event loop, and under load
#: a batch of a few hundred rows spent most of its time waiting for it (docs/site.md, "Writes:
#: group commit")
ROWS_PER_INSERT = 64

#: a statement of the driver's plan: its SQL, its parameters (a list of rows for an
#: ``executemany``, else one row's), and whether it is an ``executemany``
Planned = tuple[str, list[Any], bool]


class Inserts:
    """An INSERT of one row (``... VALUES (:a, :b) ...``, named parameters only in its
    VALUES) as INSERTs of many (``... VALUES (?, ?), (?, ?) ...``)."""

    __slots__ = ("head", "names", "tail", "texts")

    def __init__(self, head: str, names: tuple[str, ...], tail: str) -> None:
        self.head, self.names, self.tail = head, names, tail
        self.texts: dict[int, str] = {}

    @staticmethod
    def of(sql: str) -> Inserts | None:
        """For an INSERT whose parameters are all in its one VALUES group; else None."""
        match = _ONE_ROW_INSERT.fullmatch(sql)
        if match is None:
            return None
        names = tuple(name.strip()[1:] for name in match["values"].split(","))
        return Inserts(match["head"], names, match["tail"])

    def plan(self, rows: list[Any]) -> list[Planned]:
        """``rows`` (the driver's rows: dicts with every parameter, constants included, as
        :meth:`Prepared.params` gives them) as statements of many rows each."""
        planned: list[Planned] = []
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


def driver_plan(batch: list[Write], dialect: Any) -> list[Planned] | None:
    """The batch as the driver's statements (each step of a run of writes of one shape once,
    as :func:`run_many_sync` runs it: an ``executemany`` of its rows, or for an INSERT of
    several rows statements of many rows each); None when one of them needs SQLAlchemy's own
    execution. Raises :class:`StoreError` when a row lacks a value."""
    plan: list[Planned] = []
    for group in same_shape(batch):
        for index, step in enumerate(group[0].steps):
            rows = group_rows(group, index)
            prepared = prepare(step.statement, dialect, rows)
            if prepared is None:
                return None
            params = prepared.params(rows)
            inserts = prepared.inserts if len(params) > 1 else None
            if inserts is None:
                plan.append((prepared.sql, params, True))
            else:
                plan.extend(inserts.plan(params))
    return plan
