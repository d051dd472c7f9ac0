"""Group commit while the event loop is busy: SQLite's writer thread against the async driver.

A site's event loop is never idle under load: while a batch is written, it parses frames,
applies taps and builds views. This bench gives the loop that work on purpose (``--busy``
tasks, each burning ``--burn-ms`` of CPU and yielding, again and again) while ``--writers``
writers each write, again and again, a write of three statements (an insert and two updates,
as a tap's log entry, summary and totals) through ``Database.write``. It measures writes
acknowledged per second and the wait of one (p50, p99), with the batches written whole in the
writer thread (the site's way) and, for comparison, statement by statement through the async
driver (``aiosqlite``: each statement a round trip through the busy loop). The two modes
alternate, ``--runs`` times each, on a fresh SQLite file each run (fsync on); medians printed.

    nice -n 19 .venv/bin/python bench/group_commit_loop.py [--writers 200] [--busy 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, insert, update

from heartsuit.server.db import Database, Step
from heartsuit.server.settings import sqlite_url

_meta = MetaData()
rows = Table(
    "bench_rows",
    _meta,
    Column("id", String(40), primary_key=True),
    Column("value", Integer, nullable=False),
)
totals = Table(
    "bench_totals",
    _meta,
    Column("id", String(40), primary_key=True),
    Column("value", Integer, nullable=False),
)
ADD = insert(rows)
SET = update(rows).where(rows.c.id == bindparam("b_id")).values(value=bindparam("b_value"))
BUMP = update(totals).where(totals.c.id == bindparam("b_id")).values(value=totals.c.value + 1)


def burn(ms: float) -> None:
    end = time.process_time() + ms / 1000
    while time.process_time() < end:
        pass


async def one_run(
    path: Path, threaded: bool, writers: int, busy: int, burn_ms: float, seconds: float
) -> tuple[float, float, float]:
    db = Database(sqlite_url(path))
    await db.open()
    if not threaded:
        await db._batches.close()  # type: ignore[union-attr]
        db._batches = None  # statement by statement through the async driver
    async with db.writing() as conn:
        await conn.run_sync(_meta.create_all)
    await db.write(Step(insert(totals), [{"id": f"w{n}", "value": 0} for n in range(writers)]))
    waits: list[float] = []
    done = 0
    stop = time.perf_counter() + seconds

    async def writer(n: int) -> None:
        nonlocal done
        seq = 0
        while time.perf_counter() < stop:
            key, seq = f"w{n}-{seq}", seq + 1
            t0 = time.perf_counter()
            await db.write(
                Step(ADD, [{"id": key, "value": seq}]),
                Step(SET, [{"b_id": key, "b_value": seq + 1}]),
                Step(BUMP, [{"b_id": f"w{n}"}]),
            )
            waits.append(time.perf_counter() - t0)
            done += 1

    async def work() -> None:
        while time.perf_counter() < stop:
            burn(burn_ms)
            await asyncio.sleep(0)

    try:
        await asyncio.gather(*(writer(n) for n in range(writers)), *(work() for _ in range(busy)))
    finally:
        await db.close()
    waits.sort()
    return done / seconds, waits[len(waits) // 2] * 1000, waits[int(0.99 * len(waits))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=200)
    parser.add_argument("--busy", type=int, default=20, help="tasks keeping the loop busy")
    parser.add_argument("--burn-ms", type=float, default=0.5, help="CPU per busy step")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{args.writers} writers, {args.busy} busy tasks of {args.burn_ms:g} ms; "
        f"{args.seconds:g} s x {args.runs} runs; load avg {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    figures: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
    for run in range(args.runs):
        for threaded in (True, False):
            with tempfile.TemporaryDirectory() as tmp:
                got = asyncio.run(
                    one_run(
                        Path(tmp) / "db.sqlite3",
                        threaded,
                        args.writers,
                        args.busy,
                        args.burn_ms,
                        args.seconds,
                    )
                )
            figures[threaded].append(got)
            name = "writer thread" if threaded else "async driver"
            print(
                f"  run {run + 1}, {name:13}: {got[0]:6.0f} writes/s, "
                f"wait p50 {got[1]:6.1f} ms p99 {got[2]:6.1f} ms",
                flush=True,
            )
    for threaded in (True, False):
        name = "writer thread" if threaded else "async driver"
        got = figures[threaded]
        print(
            f"MEDIAN {name:13}: {statistics.median(g[0] for g in got):6.0f} writes/s, "
            f"wait p50 {statistics.median(g[1] for g in got):6.1f} ms "
            f"p99 {statistics.median(g[2] for g in got):6.1f} ms; "
            f"load avg {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
