"""SQLite as the site uses it: the pragmas of every connection (WAL, the checkpoint size, the
busy timeout), how each kind of transaction begins, and the sync engines of the threads that
write and read the file (:mod:`.batch_writer`, :mod:`.readers`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url

#: how long a SQLite writer waits for another process's write lock before giving up
BUSY_TIMEOUT_S = 30.0


def sync_engine(url: str, begin: Callable[[Any], None], **options: Any) -> Engine:
    """A sync engine on the SQLite file of ``url`` for a thread of this module: the site's
    pragmas on each connection, ``begin`` opening each transaction."""
    engine = create_engine(
        make_url(url).set(drivername="sqlite"),
        connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False},
        **options,
    )
    event.listen(engine, "connect", pragmas)
    event.listen(engine, "begin", begin)
    return engine


def pragmas(dbapi_connection: Any, _record: Any) -> None:
    # the driver must not open transactions of its own: begin_app does
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

#: WAL pages after which a commit checkpoints (SQLite's default is 1,000; see pragmas)
WAL_CHECKPOINT_PAGES = 10_000


def migration_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # the driver must not open transactions of its own: begin_write does, for DDL too
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=OFF")
    cursor.close()


def begin_write(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def begin_read(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN")


def begin_app(conn: Any) -> None:
    # readers take a snapshot; a writer takes SQLite's write lock at once (in-process writers
    # queue in the event loop first), so no other process can overtake what it reads
    writer = conn.get_execution_options().get("heartsuit_writer", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")
