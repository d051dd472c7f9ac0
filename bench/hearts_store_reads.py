"""What one catch-up read costs: ``SqlTableStore.entries_after`` against the same SELECT built
per call inside a transaction (how it was read before 2026-12-01, commit 4e06e1c), on PostgreSQL.

Every process at a Hearts table runs this read on every change made on another process, so
its CPU counts once per process per change. Starts a throwaway PostgreSQL (or uses
``--database-url``, a server whose user may create databases), logs a short table, and times
``--reads`` reads each way, ``--runs`` times: CPU (this process) and wall time per read.

    .venv/bin/python bench/hearts_store_reads.py --runs 3 --reads 500
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heartsuit.hearts import Rules
from heartsuit.server.hearts.live_table import LiveTable, SeatRecord, TableRecord
from heartsuit.server.hearts.store import SqlTableStore, events
from heartsuit.server.storage.db import Database
from services import fresh_database, postgres_server


async def measure(url: str, reads: int) -> dict[str, tuple[float, float]]:
    db = Database(url)
    await db.open()
    store = SqlTableStore(db)
    rules = Rules.preset("standard")
    record = TableRecord("bench-reads", "online", "standard", rules.to_dict(), 5, None, 0)
    seats = [SeatRecord(s, "human", f"P{s}", None, "h" * 64) for s in range(4)]
    live = LiveTable.replay(record, seats, [])
    entry = live.entry("start", {}, 1)
    live.apply(entry)
    await store.create_table(live.record, live.seats, [entry])

    async def before() -> None:
        query = (
            select(events)
            .where(events.c.table_id == "bench-reads", events.c.seq >= 0)
            .order_by(events.c.seq)
        )
        async with db.reading() as conn:
            list(await conn.execute(query))

    async def now() -> None:
        await store.entries_after("bench-reads", 0)

    out = {}
    try:
        for name, read in (("before (built per call, in a transaction)", before), ("now", now)):
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(reads):
                await read()
            out[name] = (
                (time.process_time() - cpu) * 1000 / reads,
                (time.perf_counter() - wall) * 1000 / reads,
            )
    finally:
        await db.close()
    return out


@contextlib.contextmanager
def database(url: str) -> Iterator[str]:
    with contextlib.ExitStack() as stack:
        server = url or stack.enter_context(postgres_server())
        yield stack.enter_context(fresh_database(server))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    for run in range(args.runs):
        with database(args.database_url) as url:
            figures = asyncio.run(measure(url, args.reads))
        for name, (cpu, wall) in figures.items():
            print(f"run {run + 1}: {name}: {cpu:.3f} ms CPU, {wall:.3f} ms wall per read")


if __name__ == "__main__":
    main()
