"""The SQLite batch writer's own cost: CPU per batch of the group commit, by batch size.

Writes batches shaped like a tap's (an insert into a log and an update of its game row, each
write keyed by its player) straight through the writer (``_BatchWriter._write``, in this
thread, so ``time.thread_time`` counts its CPU and nothing else's), once the driver's way
(the statements prepared, on the ``sqlite3`` connection) and once SQLAlchemy's (the way every
batch was written before, and the way a batch with an unprepared statement still goes),
alternating rounds. The file lives in ``--dir`` (default: a temporary directory; on tmpfs,
``/dev/shm``, the fsyncs cost nothing and only the CPU is left).

    .venv/bin/python bench/solitaire_batches.py --batches 2000 --sizes 1 2 8 --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, insert, update

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.storage.db import Database, Step, _BatchWriter, _Write

_meta = MetaData()
log = Table(
    "bench_log",
    _meta,
    Column("game", String(40), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("action", String(10), nullable=False),
)
games = Table(
    "bench_games",
    _meta,
    Column("id", String(40), primary_key=True),
    Column("moves", Integer, nullable=False),
)
ADD = insert(log)
MOVED = update(games).where(games.c.id == bindparam("b_game")).values(moves=bindparam("b_moves"))


def batches(count: int, size: int, start: int) -> list[list[_Write]]:
    loop = asyncio.new_event_loop()
    out = []
    for n in range(count):
        batch = []
        for k in range(size):
            game, seq = f"g{k}", start + n
            steps = [
                Step(ADD, [{"game": game, "seq": seq, "action": "25"}]),
                Step(MOVED, [{"b_game": game, "b_moves": seq}]),
            ]
            batch.append(_Write(steps, loop.create_future(), key=game))
        out.append(batch)
    loop.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=2000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 8])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir or None) as tmp:
        url = sqlite_url(Path(tmp) / "bench.sqlite3")

        async def prepare() -> None:
            db = Database(url)
            await db.open()
            async with db.writing() as conn:
                await conn.run_sync(_meta.create_all)
                await conn.execute(insert(games), [{"id": f"g{k}", "moves": 0} for k in range(64)])
            await db.close()

        asyncio.run(prepare())
        writer = _BatchWriter(url)
        ways = {"driver": writer._write, "sqlalchemy": writer._write_engine}
        seq = 0
        print(f"{args.batches} batches per run, {args.runs} runs per way and size (medians)")
        for size in args.sizes:
            took: dict[str, list[float]] = {way: [] for way in ways}
            for _run in range(args.runs):
                for way, write in ways.items():
                    work = batches(args.batches, size, seq)
                    seq += args.batches
                    cpu, wall = time.thread_time(), time.perf_counter()
                    for batch in work:
                        assert write(batch) == [None] * size
                    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
                    took[way].append(cpu / args.batches * 1e6)
            line = "  ".join(
                f"{way} {statistics.median(us):6.1f} µs CPU/batch"
                f" ({statistics.median(us) / size:5.1f} per write)"
                for way, us in took.items()
            )
            print(f"batches of {size:2d} writes: {line}")
        writer._close()


if __name__ == "__main__":
    main()
