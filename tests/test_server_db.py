"""``Database.write``: group commit, on SQLite and on PostgreSQL.

Writes that arrive together share a transaction (fewer commits than writes), each caller returns
only after its write is committed, a write that breaks a constraint fails alone while the rest
of its batch is kept, a failed commit fails every write of its batch and keeps none, steps of
one write keep their order, and a batch aborted for a deadlock (PostgreSQL) is written
again one write at a time. The same checks run on PostgreSQL when ``HEARTSUIT_TEST_POSTGRES``
is set (group commit works the same there).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import (
    Column,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError, StatementError

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.storage.db import Database, Step, StoreError

POSTGRES_URL = os.environ.get("HEARTSUIT_TEST_POSTGRES", "")

# a table of the test's own (the migrations do not know it): created on the open database
_meta = MetaData()
items = Table(
    "test_db_items",
    _meta,
    Column("id", String(40), primary_key=True),
    Column("value", Integer, nullable=False),
)
ADD = insert(items)
SET = update(items).where(items.c.id == bindparam("b_id")).values(value=bindparam("b_value"))
#: a statement with constants of its own (the 10 and the 1 are parameters SQLAlchemy names)
BUMP = (
    update(items)
    .where(items.c.id == bindparam("b_id"), items.c.value < 10)
    .values(value=items.c.value + 1)
)
# a table whose rows get a value computed in Python (SQLAlchemy's own execution does that)
stamped = Table(
    "test_db_stamped",
    _meta,
    Column("id", String(40), primary_key=True),
    Column("stamp", String(40), nullable=False, default=lambda: "made-in-python"),
)
ADD_STAMPED = insert(stamped)


def run(url: str, check: Callable[[Database], Awaitable[None]]) -> None:
    async def main() -> None:
        db = Database(url)
        await db.open()
        try:
            async with db.writing() as conn:
                await conn.run_sync(_meta.create_all)
            await check(db)
        finally:
            await db.close()

    asyncio.run(main())


def urls(tmp_path: Path) -> list[str]:
    found = [sqlite_url(tmp_path / "db.sqlite3")]
    if POSTGRES_URL:
        found.append(POSTGRES_URL)
    return found


def fresh() -> str:
    return f"item-{secrets.token_hex(6)}"


async def values(db: Database, ids: list[str]) -> dict[str, int]:
    async with db.reading() as conn:
        rows = await conn.execute(select(items).where(items.c.id.in_(ids)))
        return {row.id: row.value for row in rows}


def test_concurrent_writes_share_commits_and_are_all_kept(tmp_path: Path) -> None:
    for url in urls(tmp_path):
        commits = 0

        async def check(db: Database) -> None:
            nonlocal commits

            def count(_conn: object) -> None:
                nonlocal commits
                commits += 1

            event.listen(db.batch_engine, "commit", count)
            ids = [fresh() for _ in range(200)]
            await asyncio.gather(*(db.write(Step(ADD, [{"id": i, "value": 1}])) for i in ids))
            assert await values(db, ids) == {i: 1 for i in ids}
            # 200 writes asked for at once: far fewer commits than writes
            assert 1 <= commits <= 20, commits

        run(url, check)


def test_a_caller_returns_only_after_its_write_is_committed(tmp_path: Path) -> None:
    for url in urls(tmp_path):

        async def check(db: Database) -> None:
            ids = [fresh() for _ in range(30)]

            async def one(item: str) -> None:
                await db.write(Step(ADD, [{"id": item, "value": 7}]))
                # another connection sees it the moment the caller goes on
                assert await values(db, [item]) == {item: 7}

            await asyncio.gather(*(one(i) for i in ids))

        run(url, check)


def test_a_conflicting_write_fails_alone(tmp_path: Path) -> None:
    for url in urls(tmp_path):

        async def check(db: Database) -> None:
            taken = fresh()
            await db.write(Step(ADD, [{"id": taken, "value": 1}]))
            ids = [fresh() for _ in range(20)]
            writes = [db.write(Step(ADD, [{"id": i, "value": 2}])) for i in ids[:10]]
            # the same id again, and a write whose second row conflicts (all of it must go)
            writes.append(db.write(Step(ADD, [{"id": taken, "value": 3}])))
            half = fresh()
            writes.append(
                db.write(
                    Step(ADD, [{"id": half, "value": 4}]), Step(ADD, [{"id": taken, "value": 5}])
                )
            )
            writes += [db.write(Step(ADD, [{"id": i, "value": 2}])) for i in ids[10:]]
            results = await asyncio.gather(*writes, return_exceptions=True)
            failed = [r for r in results if isinstance(r, BaseException)]
            assert len(failed) == 2 and all(isinstance(r, IntegrityError) for r in failed)
            assert await values(db, ids) == {i: 2 for i in ids}
            assert await values(db, [taken, half]) == {taken: 1}

        run(url, check)


def test_a_failed_commit_fails_every_write_of_the_batch_and_keeps_none(tmp_path: Path) -> None:
    async def check(db: Database) -> None:
        failing = True

        def refuse(_conn: object) -> None:
            if failing:
                raise RuntimeError("the disk is full")

        event.listen(db.batch_engine, "commit", refuse)
        ids = [fresh() for _ in range(10)]
        results = await asyncio.gather(
            *(db.write(Step(ADD, [{"id": i, "value": 1}])) for i in ids), return_exceptions=True
        )
        assert all(isinstance(r, Exception) for r in results), results
        failing = False
        assert await values(db, ids) == {}
        # and the store goes on working
        await db.write(Step(ADD, [{"id": ids[0], "value": 9}]))
        assert await values(db, ids) == {ids[0]: 9}

    run(sqlite_url(tmp_path / "db.sqlite3"), check)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=4), min_size=1, max_size=25))
def test_each_writes_steps_keep_their_order(plan: list[list[int]]) -> None:
    """Writes of mixed shapes, asked for at once: the final values are those of applying each
    write's steps in order, the writes in the order they were asked for."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:

        async def check(db: Database) -> None:
            key = fresh()
            await db.write(Step(ADD, [{"id": key, "value": -1}]))
            await asyncio.gather(
                *(
                    db.write(*(Step(SET, [{"b_id": key, "b_value": v}]) for v in steps))
                    for steps in plan
                )
            )
            assert await values(db, [key]) == {key: plan[-1][-1]}

        run(sqlite_url(Path(tmp) / "db.sqlite3"), check)


def test_writing_blocks_and_batched_writes_do_not_overtake_each_other(tmp_path: Path) -> None:
    async def check(db: Database) -> None:
        key = fresh()
        await db.write(Step(ADD, [{"id": key, "value": 0}]))

        async def bump_in_block() -> None:
            async with db.writing() as conn:
                value = (
                    await conn.execute(select(items.c.value).where(items.c.id == key))
                ).scalar()
                await asyncio.sleep(0)
                await conn.execute(SET, {"b_id": key, "b_value": int(value or 0) + 1})

        await asyncio.gather(*(bump_in_block() for _ in range(20)))
        assert await values(db, [key]) == {key: 20}

    for url in [sqlite_url(tmp_path / "db.sqlite3")]:
        run(url, check)


def test_a_closed_database_refuses_writes(tmp_path: Path) -> None:
    async def main() -> None:
        db = Database(sqlite_url(tmp_path / "db.sqlite3"))
        with pytest.raises(StoreError):
            await db.write(Step(ADD, [{"id": "x", "value": 1}]))

    asyncio.run(main())


class _Aborted(Exception):
    """What the driver raises when PostgreSQL aborts a transaction for a deadlock."""

    sqlstate = "40P01"


def test_a_batch_aborted_for_a_deadlock_is_written_again_one_write_at_a_time(
    tmp_path: Path,
) -> None:
    """PostgreSQL may abort a batch that another process's batch deadlocked with: every write
    of it is then written on its own, once, and each caller hears only of its own."""
    from sqlalchemy.exc import OperationalError

    for url in urls(tmp_path):

        async def check(db: Database) -> None:
            armed: list[bool] = []
            aborted: list[str] = []

            def deadlock(
                _conn: object, _cursor: object, statement: str, params: Any, *_: object
            ) -> None:
                # the batch's first statement fails, once
                if armed and not aborted and "test_db_items" in statement:
                    aborted.append(statement)
                    raise OperationalError(statement, params, _Aborted())

            event.listen(db.batch_engine, "before_cursor_execute", deadlock)
            taken = fresh()
            await db.write(Step(ADD, [{"id": taken, "value": 1}]))
            armed.append(True)
            ids = [fresh() for _ in range(12)]
            writes = [db.write(Step(ADD, [{"id": i, "value": 2}])) for i in ids]
            writes.append(db.write(Step(ADD, [{"id": taken, "value": 3}])))  # refused alone
            results = await asyncio.gather(*writes, return_exceptions=True)
            assert aborted, "no batch was aborted"
            assert results[:-1] == [None] * len(ids)
            assert isinstance(results[-1], IntegrityError)
            assert await values(db, [*ids, taken]) == {**{i: 2 for i in ids}, taken: 1}

        run(url, check)


def test_a_write_aborted_again_on_its_own_is_tried_again(tmp_path: Path) -> None:
    """After a batch is aborted for a deadlock, a write written alone can be aborted too (it
    was PostgreSQL's choice of victim once more): it is tried again until it is written, and
    only a write aborted every time hears of the deadlock."""
    from sqlalchemy.exc import OperationalError

    from heartsuit.server.storage.batch_writer import WRITE_ATTEMPTS

    for url in urls(tmp_path):

        async def check(db: Database) -> None:
            unlucky, doomed = fresh(), fresh()
            aborts = {unlucky: 3, doomed: 1 + WRITE_ATTEMPTS}  # the batch's abort, then alone
            batch_aborted: list[bool] = []

            def deadlock(
                _conn: object, _cursor: object, statement: str, rows: Any, *_: object
            ) -> None:
                if _ids(statement, rows) is None or not aborts:
                    return
                ids = set(_ids(statement, rows) or ())
                if len(ids) > 1 and not batch_aborted:
                    batch_aborted.append(True)
                    raise OperationalError(str(statement), rows, _Aborted())
                for item in ids & set(aborts):
                    aborts[item] -= 1
                    if aborts[item] == 0:
                        del aborts[item]
                    raise OperationalError(str(statement), rows, _Aborted())

            event.listen(db.batch_engine, "before_cursor_execute", deadlock)
            ids = [fresh() for _ in range(6)]
            writes = [db.write(Step(ADD, [{"id": i, "value": 1}])) for i in ids]
            writes.insert(2, db.write(Step(ADD, [{"id": unlucky, "value": 2}])))
            writes.append(db.write(Step(ADD, [{"id": doomed, "value": 3}])))
            results = await asyncio.gather(*writes, return_exceptions=True)
            assert batch_aborted, "the batch was never aborted"
            assert results[:-1] == [None] * (len(ids) + 1)
            assert isinstance(results[-1], OperationalError)
            assert await values(db, [*ids, unlucky, doomed]) == {
                **{i: 1 for i in ids},
                unlucky: 2,
            }

        run(url, check)


def test_keyed_writes_of_a_batch_take_their_rows_in_the_order_of_their_keys(
    tmp_path: Path,
) -> None:
    """Writes that name keys are written in the order of the keys, whatever order they came
    in, so two processes' batches over the same rows take them in the same order (on
    PostgreSQL, the other order deadlocks); writes of one key keep their own order."""
    for url in urls(tmp_path):

        async def check(db: Database) -> None:
            seen: list[list[str]] = []

            def note(_conn: object, _cursor: object, statement: str, rows: Any, *_: object) -> None:
                ids = _ids(statement, rows)
                if ids is not None and statement.lstrip().upper().startswith("INSERT"):
                    seen.append(ids)

            base = fresh()
            keys = [f"{base}-{n}" for n in (5, 3, 9, 1, 7)]
            event.listen(db.batch_engine, "before_cursor_execute", note)
            writes = [db.write(Step(ADD, [{"id": k, "value": 1}]), key=k) for k in keys]
            # two writes of one key: the second runs after the first, as if alone
            writes.append(db.write(Step(SET, [{"b_id": keys[0], "b_value": 2}]), key=keys[0]))
            writes.append(db.write(Step(SET, [{"b_id": keys[0], "b_value": 3}]), key=keys[0]))
            await asyncio.gather(*writes)
            # (one statement, or on SQLite statements of 4 rows and 1)
            assert [i for ids in seen for i in ids] == sorted(keys), seen
            assert await values(db, keys) == {**{k: 1 for k in keys}, keys[0]: 3}

        run(url, check)


def _ids(statement: str, rows: Any) -> list[str] | None:
    """The item ids an insert into or update of the test's table writes (None: another
    statement), from the SQL and the parameters a ``before_cursor_execute`` listener is given
    (one row or a list of rows for several; a row is a tuple or a dict of the driver's
    parameters, or for an insert of many rows on SQLite one list of every row's values; the
    only text in a row of the test's table is its id)."""
    if "test_db_items" not in statement or statement.lstrip().upper()[:6] not in (
        "INSERT",
        "UPDATE",
    ):
        return None
    found: list[str] = []
    pending = [rows]
    while pending:  # a row, or lists of rows, as the driver's call was given
        item = pending.pop(0)
        if isinstance(item, dict) and item:
            found.append(str(item.get("id", item.get("b_id"))))
        elif (
            isinstance(item, tuple | list) and item and not isinstance(item[0], tuple | list | dict)
        ):
            found += [value for value in item if isinstance(value, str)]
        elif isinstance(item, list | tuple):
            pending[:0] = list(item)
    return found


def test_sqlite_batches_run_whole_in_a_writer_thread_with_full_sync(tmp_path: Path) -> None:
    """On a SQLite file a batch goes to the writer thread in one call: every statement of it,
    from BEGIN IMMEDIATE to COMMIT, runs off the event loop, on one connection that keeps the
    log's promises (WAL, synchronous=FULL, foreign keys)."""
    import threading

    async def check(db: Database) -> None:
        seen: list[tuple[int, bool, str]] = []

        def note(conn: Any, _cursor: object, statement: str, *_: object) -> None:
            try:
                asyncio.get_running_loop()
                on_loop = True
            except RuntimeError:
                on_loop = False
            seen.append((threading.get_ident(), on_loop, statement))

        def begins(conn: Any) -> None:
            seen.append((threading.get_ident(), False, "begin"))

        event.listen(db.batch_engine, "before_cursor_execute", note)
        event.listen(db.batch_engine, "begin", begins)
        ids = [fresh() for _ in range(40)]
        await asyncio.gather(*(db.write(Step(ADD, [{"id": i, "value": 1}])) for i in ids))
        assert await values(db, ids) == {i: 1 for i in ids}
        statements = [s for s in seen if "test_db_items" in s[2]]
        assert statements, "no batch statement ran on the batch engine"
        assert not any(on_loop for _, on_loop, _ in seen)
        assert len({thread for thread, _, _ in seen}) == 1
        assert threading.get_ident() not in {thread for thread, _, _ in seen}
        with db.batch_engine.connect() as conn:
            pragmas = [
                conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "synchronous", "foreign_keys")
            ]
        assert pragmas == ["wal", 2, 1]

    run(sqlite_url(tmp_path / "db.sqlite3"), check)


def test_closing_with_writes_in_flight_finishes_and_keeps_every_acknowledged_write(
    tmp_path: Path,
) -> None:
    """A close while batches are being written (and more writes queue behind them) returns
    promptly, after every write already asked for was committed and acknowledged; a write asked
    for once closing began is refused with StoreError and leaves nothing behind. Read back
    outside the process's engine (a new connection after the close), so nothing is taken on
    the word of the closed store."""
    for url in urls(tmp_path):

        async def main(url: str) -> None:
            db = Database(url)
            await db.open()
            async with db.writing() as conn:
                await conn.run_sync(_meta.create_all)
            slow: list[int] = []

            def dawdle(*_args: object) -> None:  # each batch takes a while in the writer
                slow.append(1)
                time.sleep(0.02)

            event.listen(db.batch_engine, "before_cursor_execute", dawdle)
            ids = [fresh() for _ in range(300)]
            acked: list[str] = []

            async def one(item: str, pause: float) -> None:
                await asyncio.sleep(pause)
                await db.write(Step(ADD, [{"id": item, "value": 1}]))
                acked.append(item)

            writers = [
                asyncio.create_task(one(item, 0.002 * (n % 50))) for n, item in enumerate(ids)
            ]
            await asyncio.sleep(0.03)  # some batches written, some writers not yet asked
            await asyncio.wait_for(db.close(), timeout=60)
            results = await asyncio.gather(*writers, return_exceptions=True)
            refused = [r for r in results if r is not None]
            assert slow, "no batch was being written at the close"
            assert acked, "no write was acknowledged before the close"
            assert all(isinstance(r, StoreError) for r in refused), refused
            assert len(acked) + len(refused) == len(ids)
            assert refused, "every write came before the close: nothing was refused"
            with pytest.raises(StoreError):
                await db.write(Step(ADD, [{"id": fresh(), "value": 1}]))
            again = Database(url)
            await again.open()
            try:
                kept = await values(again, ids)
            finally:
                await again.close()
            # every acknowledged write is in the database, and none of the refused ones
            assert kept == {item: 1 for item in acked}

        asyncio.run(main(url))


def test_batched_statements_are_compiled_once_and_run_as_written(tmp_path: Path) -> None:
    """The statements of the batches are compiled once per database and set of row keys, not
    once per batch; constants of a statement (``value + 1``, ``value < 10``) keep their values
    in every row, and a statement whose rows need SQLAlchemy's own execution (a default
    computed in Python) still gets it."""
    import heartsuit.server.storage.statements as db_module

    for url in urls(tmp_path):

        async def check(db: Database) -> None:
            compiled: list[object] = []
            compile_once = db_module.compile_statement

            def counting(statement: Any, dialect: Any, keys: Any) -> Any:
                compiled.append(statement)
                return compile_once(statement, dialect, keys)

            db_module.PREPARED.clear()
            db_module.compile_statement = counting
            try:
                ids = [fresh() for _ in range(30)]
                for _round in range(3):
                    await asyncio.gather(
                        *(db.write(Step(ADD, [{"id": f"{i}-{_round}", "value": 8}])) for i in ids)
                    )
                # each row twice through BUMP: 8 -> 9 -> 10 (then value < 10 stops it)
                for _bump in range(3):
                    await asyncio.gather(*(db.write(Step(BUMP, [{"b_id": f"{i}-0"}])) for i in ids))
                made = [fresh() for _ in range(5)]
                await asyncio.gather(*(db.write(Step(ADD_STAMPED, [{"id": m}])) for m in made))
            finally:
                db_module.compile_statement = compile_once
            assert compiled.count(ADD) == 1 and compiled.count(BUMP) == 1, compiled
            assert await values(db, [f"{i}-0" for i in ids]) == {f"{i}-0": 10 for i in ids}
            assert await values(db, [f"{i}-2" for i in ids]) == {f"{i}-2": 8 for i in ids}
            async with db.reading() as conn:
                rows = await conn.execute(select(stamped).where(stamped.c.id.in_(made)))
                assert {r.id: r.stamp for r in rows} == {m: "made-in-python" for m in made}

        run(url, check)


def test_a_row_without_a_value_its_statement_needs_is_refused_clearly(tmp_path: Path) -> None:
    async def check(db: Database) -> None:
        key = fresh()
        await db.write(Step(ADD, [{"id": key, "value": 1}]))
        with pytest.raises(StatementError, match="b_value"):  # SQLAlchemy's own words
            await db.write(Step(SET, [{"b_id": key}]))
        # the first row has every value, a later one not: the whole write is refused
        with pytest.raises(StoreError, match="b_value"):
            await db.write(Step(SET, [{"b_id": key, "b_value": 2}, {"b_id": key}]))
        assert await values(db, [key]) == {key: 1}
        await db.write(Step(SET, [{"b_id": key, "b_value": 3}]))  # and the store goes on
        assert await values(db, [key]) == {key: 3}

    run(sqlite_url(tmp_path / "db.sqlite3"), check)


def test_sqlite_reads_run_whole_in_a_reader_thread_in_one_snapshot(tmp_path: Path) -> None:
    """On a SQLite file a read goes to a reader thread in one call (its BEGIN, its statements,
    its end, all off the event loop), sees every write acknowledged before it, and reads its
    statements in one snapshot: a write committed between two of them is seen by neither."""
    import sqlite3
    import threading

    path = tmp_path / "db.sqlite3"

    async def check(db: Database) -> None:
        seen: list[tuple[int, str]] = []

        def note(_conn: Any, _cursor: object, statement: str, *_: object) -> None:
            seen.append((threading.get_ident(), statement))

        event.listen(db.read_engine, "before_cursor_execute", note)
        ids = [fresh() for _ in range(30)]

        async def one(item: str) -> None:
            await db.write(Step(ADD, [{"id": item, "value": 5}]))
            query = select(items.c.value).where(items.c.id == item)
            assert await db.read(lambda conn: conn.execute(query).scalar()) == 5

        await asyncio.gather(*(one(i) for i in ids))
        key = ids[0]

        def twice(conn: Any) -> tuple[int, int]:
            query = select(items.c.value).where(items.c.id == key)
            first = conn.execute(query).scalar()
            # another connection commits a change between the two statements
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("UPDATE test_db_items SET value = 6 WHERE id = ?", (key,))
            other.close()
            return first, conn.execute(query).scalar()

        assert await db.read(twice) == (5, 5)
        assert (
            await db.read(
                lambda conn: conn.execute(select(items.c.value).where(items.c.id == key)).scalar()
            )
            == 6
        )
        threads = {thread for thread, _ in seen}
        assert threading.get_ident() not in threads and threads
        assert [s for _, s in seen].count("BEGIN") >= len(ids) + 2

    run(sqlite_url(path), check)


def test_a_read_once_the_store_closed_is_refused(tmp_path: Path) -> None:
    """A read asked for after the close (or while it shuts the reader threads down) raises
    StoreError, not an error of the thread pool."""

    async def main() -> None:
        db = Database(sqlite_url(tmp_path / "db.sqlite3"))
        await db.open()
        readers = db._readers
        assert readers is not None
        assert await db.read(lambda conn: conn.exec_driver_sql("SELECT 1").scalar()) == 1
        await db.close()
        with pytest.raises(StoreError):
            await db.read(lambda conn: conn.exec_driver_sql("SELECT 1").scalar())
        with pytest.raises(StoreError, match="closed"):
            await readers.read(lambda conn: conn.exec_driver_sql("SELECT 1").scalar())

    asyncio.run(main())


def test_sqlite_checkpoints_the_wal_after_the_sites_page_count(tmp_path: Path) -> None:
    """Every SQLite connection of the site (the writer's, the readers') checkpoints the WAL
    after ``WAL_CHECKPOINT_PAGES`` pages, not SQLite's 1,000: the automatic checkpoint runs in
    the commit that crosses it, and every write queued behind that commit waits."""
    from heartsuit.server.storage.sqlite import WAL_CHECKPOINT_PAGES

    assert WAL_CHECKPOINT_PAGES > 1_000

    async def check(db: Database) -> None:
        await db.write(Step(ADD, [{"id": fresh(), "value": 1}]))
        with db.batch_engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == (
                WAL_CHECKPOINT_PAGES
            )
        async with db.engine.connect() as conn:
            pages = (await conn.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar()
        assert pages == WAL_CHECKPOINT_PAGES


# a table whose rows point at items, checked only at the commit (a deferred foreign key): a
# write of a dangling row fails its batch's commit, not its statement
children = Table(
    "test_db_children",
    _meta,
    Column("id", String(40), primary_key=True),
    Column(
        "item",
        String(40),
        ForeignKey("test_db_items.id", deferrable=True, initially="DEFERRED"),
        nullable=False,
    ),
)
ADD_CHILD = insert(children)


def test_a_commit_the_database_refuses_fails_every_write_of_its_batch(tmp_path: Path) -> None:
    """The database itself refuses the commit (a deferred foreign key left dangling): every
    write of that batch raises IntegrityError, none is kept, and the store goes on."""
    for url in urls(tmp_path):

        async def check(db: Database) -> None:
            ids = [fresh() for _ in range(8)]
            writes = [db.write(Step(ADD, [{"id": i, "value": 1}])) for i in ids]
            writes.append(db.write(Step(ADD_CHILD, [{"id": fresh(), "item": "nobody"}])))
            results = await asyncio.gather(*writes, return_exceptions=True)
            assert all(isinstance(r, IntegrityError) for r in results), results
            assert await values(db, ids) == {}
            await db.write(Step(ADD, [{"id": ids[0], "value": 2}]))
            assert await values(db, ids) == {ids[0]: 2}

        run(url, check)


def test_sqlite_batches_of_prepared_statements_bypass_sqlalchemys_execution(
    tmp_path: Path,
) -> None:
    """On a SQLite file, a batch whose statements are all prepared runs on the driver's
    connection (no SQLAlchemy Connection.execute, exec_driver_sql or begin in the writer), a
    refused write among them included (found in SAVEPOINTs on the driver's connection too);
    a batch with a statement that needs SQLAlchemy (a default computed in Python) goes its
    way."""
    import threading

    from sqlalchemy.engine import Connection

    calls: list[str] = []
    patched = {name: getattr(Connection, name) for name in ("execute", "exec_driver_sql", "begin")}

    def counting(name: str) -> Any:
        original = patched[name]

        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.current_thread().name.startswith("heartsuit-writes"):
                calls.append(name)
            return original(self, *args, **kwargs)

        return call

    async def check(db: Database) -> None:
        taken = fresh()
        await db.write(Step(ADD, [{"id": taken, "value": 1}]))
        for name in patched:
            setattr(Connection, name, counting(name))
        try:
            ids = [fresh() for _ in range(10)]
            writes = [
                db.write(Step(ADD, [{"id": i, "value": 2}]), Step(BUMP, [{"b_id": i}])) for i in ids
            ]
            writes.append(db.write(Step(ADD, [{"id": taken, "value": 3}])))
            results = await asyncio.gather(*writes, return_exceptions=True)
            assert results[:-1] == [None] * len(ids)
            assert isinstance(results[-1], IntegrityError)
            assert "UNIQUE" in str(results[-1].orig) and "INSERT" in str(results[-1])
            assert await values(db, [*ids, taken]) == {**{i: 3 for i in ids}, taken: 1}
            assert calls == [], calls
            await db.write(Step(ADD_STAMPED, [{"id": fresh()}]))
            assert "begin" in calls and "execute" in calls
        finally:
            for name, original in patched.items():
                setattr(Connection, name, original)

    run(sqlite_url(tmp_path / "db.sqlite3"), check)


def test_sqlite_writes_the_rows_of_an_insert_in_statements_of_many_rows(tmp_path: Path) -> None:
    """On a SQLite file the INSERT rows of a batch go in statements of many rows each (sizes
    that are powers of two, at most ROWS_PER_INSERT), not one call into SQLite per row; other
    statements stay an executemany; a row refused among them is found, the others kept."""
    from heartsuit.server.storage import statements as db_module

    async def check(db: Database) -> None:
        writer = db._batches
        assert writer is not None
        seen: list[tuple[str, bool, int]] = []

        def statement(conn: Any, cursor: Any, sql: str, params: Any, ctx: Any, many: bool) -> None:
            if sql.startswith(("INSERT", "UPDATE")):
                seen.append((sql.split()[0], many, sql.count("(?")))

        event.listen(writer.engine, "before_cursor_execute", statement)
        taken = fresh()
        await db.write(Step(ADD, [{"id": taken, "value": 1}]))
        seen.clear()
        ids = [fresh() for _ in range(100)]
        lock = db._write_lock
        assert lock is not None
        async with lock:  # (held: the whole batch queues behind it)
            writes = [
                asyncio.ensure_future(
                    db.write(
                        Step(ADD, [{"id": i, "value": 5}]), Step(SET, [{"b_id": i, "b_value": 7}])
                    )
                )
                for i in ids
            ]
            await asyncio.sleep(0.05)
        await asyncio.gather(*writes)
        assert db_module.ROWS_PER_INSERT == 64
        assert seen == [
            ("INSERT", False, 64),
            ("INSERT", False, 32),
            ("INSERT", False, 4),
            ("UPDATE", True, 0),
        ]
        assert await values(db, ids) == {i: 7 for i in ids}
        # one of many rows collides: it alone is refused
        more = [fresh() for _ in range(9)]
        async with lock:
            writes = [
                asyncio.ensure_future(db.write(Step(ADD, [{"id": i, "value": 3}])))
                for i in [*more[:4], taken, *more[4:]]
            ]
            await asyncio.sleep(0.05)
        results = await asyncio.gather(*writes, return_exceptions=True)
        assert [type(r).__name__ for r in results] == ["NoneType"] * 4 + ["IntegrityError"] + [
            "NoneType"
        ] * 5
        assert await values(db, [*more, taken]) == {**{i: 3 for i in more}, taken: 1}

    run(sqlite_url(tmp_path / "db.sqlite3"), check)


def test_a_broken_writer_connection_fails_its_batch_and_is_replaced(tmp_path: Path) -> None:
    """The writer's connection breaks under it: that batch's writes raise SQLAlchemy's error
    (a DBAPIError, as every caller expects), and the next batch runs on a fresh connection."""
    from sqlalchemy.exc import DBAPIError

    async def check(db: Database) -> None:
        first = fresh()
        await db.write(Step(ADD, [{"id": first, "value": 1}]))
        writer = db._batches
        assert writer is not None and writer._raw is not None
        writer._raw.close()  # as a driver connection lost to an error
        lost = fresh()
        with pytest.raises(DBAPIError):
            await db.write(Step(ADD, [{"id": lost, "value": 1}]))
        again = fresh()
        await db.write(Step(ADD, [{"id": again, "value": 1}]))
        assert await values(db, [first, lost, again]) == {first: 1, again: 1}

    run(sqlite_url(tmp_path / "db.sqlite3"), check)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["add", "set", "bump", "child"]), st.integers(0, 5)),
            min_size=1,
            max_size=3,
        ),
        min_size=1,
        max_size=20,
    ),
    st.lists(st.integers(0, 5), max_size=3, unique=True),
)
def test_the_driver_way_writes_a_batch_as_sqlalchemys_way_does(
    plan: list[list[tuple[str, int]]], keys: list[int]
) -> None:
    """The same batch (inserts that may collide with a row already there or with each other,
    updates, a statement with constants, a row a foreign key refuses at once) written by the
    writer thread's two ways, each on a fresh file: the same outcome for every write (committed,
    or the same kind of error) and the same rows after it."""
    import tempfile

    from heartsuit.server.storage.batch_writer import BatchWriter as _BatchWriter
    from heartsuit.server.storage.statements import Write as _Write

    # an immediate foreign key on a table of the test's own (the children's is deferred)
    grown = Table(
        "test_db_grown",
        MetaData(),
        Column("id", String(40), primary_key=True),
        Column("item", String(40), ForeignKey(items.c.id), nullable=False),
    )
    add_grown = insert(grown)
    statements = {
        "add": lambda n, i: Step(ADD, [{"id": f"i{n}", "value": i}]),
        "set": lambda n, i: Step(SET, [{"b_id": f"i{n}", "b_value": 100 + i}]),
        "bump": lambda n, i: Step(BUMP, [{"b_id": f"i{n}"}]),
        "child": lambda n, i: Step(add_grown, [{"id": f"c{n}-{i}", "item": f"i{n}"}]),
    }

    def written(way: str) -> tuple[list[str], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        with tempfile.TemporaryDirectory() as tmp:
            url = sqlite_url(Path(tmp) / "db.sqlite3")

            async def prepare() -> None:
                db = Database(url)
                await db.open()
                async with db.writing() as conn:
                    await conn.run_sync(_meta.create_all)
                    await conn.run_sync(grown.metadata.create_all)
                    for n in keys:  # rows already there
                        await conn.execute(ADD, {"id": f"i{n}", "value": -n})
                await db.close()

            asyncio.run(prepare())
            loop = asyncio.new_event_loop()
            writer = _BatchWriter(url)
            try:
                batch = [
                    _Write(
                        [statements[kind](n, index) for index, (kind, n) in enumerate(steps)],
                        loop.create_future(),
                        key=steps[0][1] if len(steps) % 2 else None,
                    )
                    for steps in plan
                ]
                try:
                    outcomes = (writer._write if way == "driver" else writer._write_engine)(batch)
                    said = [type(o).__name__ for o in outcomes]
                except Exception as failed:
                    said = [f"all: {type(failed).__name__}"]
                with writer.engine.connect() as conn:
                    rows = sorted(tuple(r) for r in conn.execute(select(items)))
                    children = sorted(tuple(r) for r in conn.execute(select(grown)))
            finally:
                writer._close()
                loop.close()
            return said, rows, children

    driver, engine = written("driver"), written("engine")
    assert driver == engine


def test_the_writer_thread_takes_the_next_batch_without_the_event_loop(tmp_path: Path) -> None:
    """On a SQLite file the writer thread starts the next batch as soon as it has committed
    one: a write queued while a batch is being written is committed even while the event loop
    is blocked (the old way waited for the loop to hear of the first commit and hand the thread
    the next batch); both callers hear of their commits once the loop runs again."""

    async def check(db: Database) -> None:
        commits: list[float] = []
        slow: list[bool] = []

        def first_slow(*_args: object) -> None:
            if not slow:  # the first batch's first statement takes a while
                slow.append(True)
                time.sleep(0.1)

        event.listen(db.batch_engine, "before_cursor_execute", first_slow)
        event.listen(db.batch_engine, "commit", lambda _conn: commits.append(time.monotonic()))
        a, b = fresh(), fresh()
        first = asyncio.ensure_future(db.write(Step(ADD, [{"id": a, "value": 1}])))
        async with asyncio.timeout(10):
            while not slow:  # the first batch is in the thread, in its slow statement
                await asyncio.sleep(0.001)
        second = asyncio.ensure_future(db.write(Step(ADD, [{"id": b, "value": 2}])))
        await asyncio.sleep(0)  # queued
        assert slow and not commits
        time.sleep(1.0)  # the event loop is blocked well past the first batch's commit
        unblocked = time.monotonic()
        await asyncio.gather(first, second)
        assert len(commits) == 2, commits
        assert commits[1] < unblocked, "the second batch waited for the event loop"
        assert await values(db, [a, b]) == {a: 1, b: 2}

    run(sqlite_url(tmp_path / "db.sqlite3"), check)


def test_writing_blocks_get_the_lock_while_moves_keep_coming(tmp_path: Path) -> None:
    """Writes that keep coming while each batch is written keep the queue from ever being
    empty when the writer thread looks; a writing() block still gets the write lock (the
    thread stops taking batches while one waits), and the writes go on after it."""

    async def check(db: Database) -> None:
        loop = asyncio.get_running_loop()
        stop = False
        writes: list[asyncio.Future[None]] = []
        key = fresh()
        await db.write(Step(ADD, [{"id": key, "value": 0}]))

        def another() -> None:
            writes.append(asyncio.ensure_future(db.write(Step(BUMP, [{"b_id": key}]))))

        def meanwhile(*_args: object) -> None:
            # in the writer thread, during each statement: one more write is asked for, and
            # the loop is given the time to queue it before the batch ends
            if not stop:
                loop.call_soon_threadsafe(another)
                time.sleep(0.01)

        event.listen(db.batch_engine, "before_cursor_execute", meanwhile)
        another()
        await asyncio.sleep(0.1)
        block = fresh()
        async with asyncio.timeout(10):
            for n in range(3):
                async with db.writing() as conn:
                    await conn.execute(ADD, {"id": f"{block}-{n}", "value": 7})
        stop = True
        await asyncio.sleep(0.05)
        await asyncio.gather(*writes)
        assert len(writes) > 3
        assert await values(db, [f"{block}-{n}" for n in range(3)]) == {
            f"{block}-{n}": 7 for n in range(3)
        }

    run(sqlite_url(tmp_path / "db.sqlite3"), check)
