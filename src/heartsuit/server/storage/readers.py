"""The threads that read a SQLite file, each with its own connection, so that reads neither
wait for the writer nor hold the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import Connection

from heartsuit.server.storage import sqlite as sqlite_setup
from heartsuit.server.storage.errors import StoreError

_T = TypeVar("_T")


class Readers:
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
        self.engine = sqlite_setup.sync_engine(url, sqlite_setup.begin_read, pool_size=self.THREADS)
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
