"""The Hearts store's reads that every process runs on every change made elsewhere.

``entries_after`` (a copy of a table catching up) and ``versions`` (the owner's check of its
copies) run as single statements, on PostgreSQL without a transaction around them. They must
still give exactly the log from a seq on, in order, and each table's logged version, on SQLite
and (when ``HEARTSUIT_TEST_POSTGRES`` is set) on PostgreSQL, also right after another write.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from heartsuit.hearts import Rules
from heartsuit.hearts.driver import computer_action
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.storage.db import Database
from tests.server_support import scratch_database

POSTGRES_URL = os.environ.get("HEARTSUIT_TEST_POSTGRES", "")


def new_table(table_id: str, seed: int) -> LiveTable:
    rules = Rules.preset("standard")
    record = TableRecord(table_id, "online", "standard", rules.to_dict(), seed, None, 0)
    seats = [SeatRecord(s, "human", f"P{s}", None, "h" * 64) for s in range(4)]
    return LiveTable.replay(record, seats, [])


async def check_reads(url: str) -> None:
    db = Database(url)
    await db.open()
    store = SqlTableStore(db)
    try:
        one, two = new_table("table-one", 3), new_table("table-two", 4)
        await store.create_table(one.record, one.seats, [])
        await store.create_table(two.record, two.seats, [])
        logged: list[LogEntry] = []
        for step in range(12):
            if one.match is None:
                entry = one.entry("start", {}, step)
            else:
                action = computer_action(one.match, one.awaiting()[0], "easy", f"store/{step}")
                entry = one.entry("action", action.to_dict(), step)
            one.apply(entry)
            await store.append(one.record, entry)
            logged.append(entry)
            # read right after the write, from every seq: exactly the log from there on
            for seq in (0, step, step + 1):
                assert await store.entries_after("table-one", seq) == logged[seq:]
        assert await store.entries_after("table-two", 0) == []
        assert await store.entries_after("no-such-table", 0) == []
        assert await store.versions(["table-one", "table-two", "no-such-table"]) == {
            "table-one": 12,
            "table-two": 0,
        }
        assert await store.versions([]) == {}
        # a copy replayed from what was read is the table itself
        copy = new_table("table-one", 3)
        for entry in await store.entries_after("table-one", 0):
            copy.apply(entry, replaying=True)
        assert copy.version == one.version
        assert copy.match is not None and one.match is not None
        assert copy.match.view(0) == one.match.view(0)
    finally:
        await db.close()


def test_sqlite(tmp_path: Path) -> None:
    asyncio.run(check_reads(sqlite_url(str(tmp_path / "hearts.sqlite3"))))


@pytest.mark.skipif(not POSTGRES_URL, reason="set HEARTSUIT_TEST_POSTGRES to run on PostgreSQL")
def test_postgres() -> None:
    with scratch_database(POSTGRES_URL, "hearts_store") as url:
        asyncio.run(check_reads(url))
