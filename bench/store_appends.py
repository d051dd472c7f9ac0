"""How many log appends per second one process's store acknowledges, how long each waits, and
the CPU each costs.

Writers run concurrently in one event loop, each appending entries to its own Hearts table's
event log (``--kind hearts``: ``SqlTableStore.append``, the write behind every accepted action)
or moves to its own Heart to Heart game (``--kind solitaire``: ``SqlSolitaireStore.append_move``,
the write behind every logged tap) as fast as its previous append is acknowledged. An append is
acknowledged when it returns, i.e. after its commit. Prints appends/s, the p50/p99 wait of one
append and the process's CPU time (all threads: the event loop and SQLite's writer thread) per
append, as medians over several runs, on a temporary SQLite file (or ``--database-url``). The
CPU per append is the store's own cost, the figure to compare between two versions of it.

    nice -n 19 .venv/bin/python bench/store_appends.py [--kind hearts] [--writers 1,10,100] \
        [--seconds 3] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import tempfile
import time
from pathlib import Path

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.hearts.live_table import LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.players.store import PlayerRecord, SqlPlayersStore
from heartsuit.server.solitaire.store import GameRecord, MoveRecord, SqlSolitaireStore
from heartsuit.server.storage.db import Database

Result = tuple[float, float, float, float]


async def one_run(url: str, kind: str, writers: int, seconds: float) -> Result:
    if kind == "solitaire":
        return await solitaire_run(url, writers, seconds)
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

        began, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(writer(t) for t in tables))
        elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
    finally:
        await db.close()
    return _figures(waits, done, elapsed, cpu)


async def solitaire_run(url: str, writers: int, seconds: float) -> Result:
    """Each writer logs moves to a game of its own, as a tap that moves the game does (the
    move, the game's new summary; no tally, a snapshot every 200th move)."""
    db = Database(url)
    await db.open()
    store = SqlSolitaireStore(db)
    waits: list[float] = []
    done = 0
    try:
        games = []
        for n in range(writers):
            player = f"bench-{time.monotonic_ns()}-{n}"
            await SqlPlayersStore(db).create_player(PlayerRecord(player, 0))
            game = GameRecord(f"{player}-g", player, "ABCD-1234", 0)
            await store.start_game(game)
            games.append(game)
        stop = time.perf_counter() + seconds

        async def writer(game: GameRecord) -> None:
            nonlocal done
            seq = 0
            while time.perf_counter() < stop:
                move = MoveRecord(game.id, seq, "stock", seq, intent=f"i{seq}", play_ms=seq)
                summary = dataclasses.replace(game, moves=seq + 1, score=seq, log_length=seq + 1)
                snapshot = '{"bench":true}' if (seq + 1) % 200 == 0 else None
                start = time.perf_counter()
                await store.append_move(move, summary, None, snapshot)
                waits.append(time.perf_counter() - start)
                done += 1
                seq += 1

        began, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(writer(g) for g in games))
        elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
    finally:
        await db.close()
    return _figures(waits, done, elapsed, cpu)


def _figures(waits: list[float], done: int, elapsed: float, cpu: float) -> Result:
    waits.sort()
    p50 = waits[len(waits) // 2] * 1000
    p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))] * 1000
    return done / elapsed, p50, p99, cpu / max(done, 1) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("hearts", "solitaire"), default="hearts")
    parser.add_argument("--writers", default="1,10,100")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    print(
        f"{args.kind}: {'writers':>8} {'appends/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'CPU ms':>7}  (per append; medians of {args.runs}; "
        f"load avg {os.getloadavg()[0]:.2f})"
    )
    for writers in [int(w) for w in args.writers.split(",")]:
        results = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                url = args.database_url or sqlite_url(Path(tmp) / "bench.sqlite3")
                results.append(asyncio.run(one_run(url, args.kind, writers, args.seconds)))
        rate, p50, p99, cpu = (statistics.median(r[i] for r in results) for i in range(4))
        print(
            f"{'':{len(args.kind) + 1}} {writers:>8} {rate:>10.0f} {p50:>8.1f} {p99:>8.1f} "
            f"{cpu:>7.3f}"
        )


if __name__ == "__main__":
    main()
