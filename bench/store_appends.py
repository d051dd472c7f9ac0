"""How many log appends per second one process's store acknowledges, and how long each waits.

Writers run concurrently in one event loop, each appending entries to its own Hearts table's
event log (the write behind every accepted action) as fast as its previous append is
acknowledged. An append is acknowledged when ``append`` returns, i.e. after its commit. Prints
appends/s and the p50/p99 wait of one append, as medians over several runs, on a temporary SQLite
file (or ``--database-url``).

    .venv/bin/python bench/store_appends.py [--writers 1,10,100] [--seconds 3] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from heartsuit.server.db import Database
from heartsuit.server.hearts_store import SqlTableStore
from heartsuit.server.hearts_tables import LogEntry, SeatRecord, TableRecord
from heartsuit.server.settings import sqlite_url


async def one_run(url: str, writers: int, seconds: float) -> tuple[float, float, float]:
    db = Database(url)
    await db.open()
    store = SqlTableStore(db)
    waits: list[float] = []
    done = 0
    try:
        tables = []
        for n in range(writers):
            table = TableRecord(
                id=f"bench-{time.monotonic_ns()}-{n}",
                mode="online",
                preset="standard",
                rules={},
                seed=n,
                invite=None,
                created_at_ms=0,
                status="playing",
                version=0,
            )
            seats = [SeatRecord(s, "computer", "", "easy") for s in range(4)]
            await store.create_table(table, seats, [])
            tables.append(table)
        stop = time.perf_counter() + seconds

        async def writer(table: TableRecord) -> None:
            nonlocal done
            seq = 0
            while time.perf_counter() < stop:
                entry = LogEntry(seq, "action", {"seat": seq % 4, "card": "QS"}, 0)
                row = dataclasses.replace(table, version=seq + 1)
                start = time.perf_counter()
                await store.append(row, entry)
                waits.append(time.perf_counter() - start)
                done += 1
                seq += 1

        began = time.perf_counter()
        await asyncio.gather(*(writer(t) for t in tables))
        elapsed = time.perf_counter() - began
    finally:
        await db.close()
    waits.sort()
    p50 = waits[len(waits) // 2] * 1000
    p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))] * 1000
    return done / elapsed, p50, p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", default="1,10,100")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    print(f"{'writers':>8} {'appends/s':>10} {'p50 ms':>8} {'p99 ms':>8}  (medians of {args.runs})")
    for writers in [int(w) for w in args.writers.split(",")]:
        results = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                url = args.database_url or sqlite_url(Path(tmp) / "bench.sqlite3")
                results.append(asyncio.run(one_run(url, writers, args.seconds)))
        rate = statistics.median(r[0] for r in results)
        p50 = statistics.median(r[1] for r in results)
        p99 = statistics.median(r[2] for r in results)
        print(f"{writers:>8} {rate:>10.0f} {p50:>8.1f} {p99:>8.1f}")


if __name__ == "__main__":
    main()
