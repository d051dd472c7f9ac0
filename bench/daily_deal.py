"""The deal of the day and the play clock: what they cost.

- finding the deal of a day (SHA-256 candidates and the solver's exact decision until one is
  winnable), for 60 consecutive days, uncached: the first request of a day pays this once;
- a pause and a start of the play clock (one UPDATE each) and a tap, through the service on a
  temporary SQLite file.

Medians of several runs; run under ``nice -n 19`` on a shared machine.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.daily import ATTEMPTS, candidate, daily_code
from heartsuit.server.solitaire.examples import deal_is_winnable
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database

DAYS = range(20_400, 20_460)
RUNS = 5


def daily_figures() -> None:
    per_day: list[float] = []
    tries: list[int] = []
    for day in DAYS:
        started = time.perf_counter()
        code = daily_code(day, deal_is_winnable)
        per_day.append(time.perf_counter() - started)
        tries.append(next(n for n in range(ATTEMPTS) if candidate(day, n) == code) + 1)
    median_ms = statistics.median(per_day) * 1e3
    print(
        f"deal of the day, uncached, {len(DAYS)} days: median {median_ms:.2f} ms,"
        f" max {max(per_day) * 1e3:.2f} ms; candidates tried: median {statistics.median(tries)},"
        f" max {max(tries)}"
    )


async def clock_figures() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(sqlite_url(Path(tmp) / "bench.sqlite3"))
        await db.open()
        try:
            players = PlayerService(SqlPlayersStore(db))
            service = SolitaireService(SqlSolitaireStore(db), players)
            player = (await players.hello(None)).id
            game = (await service.new_game(player, "HH1-N-AAAAAAM")).live.record.id
            viewer = object()
            pauses: list[float] = []
            taps: list[float] = []
            for _run in range(RUNS):
                started = time.perf_counter()
                for _ in range(100):
                    await service.watch(viewer, player, game)
                    await service.watch(viewer, player, None)
                pauses.append((time.perf_counter() - started) / 200)
                started = time.perf_counter()
                for _ in range(100):
                    await service.tap(player, game, "stock")
                taps.append((time.perf_counter() - started) / 100)
            print(
                f"play clock: a start or a pause {statistics.median(pauses) * 1e3:.2f} ms;"
                f" a tap {statistics.median(taps) * 1e3:.2f} ms (medians of {RUNS} runs, SQLite)"
            )
        finally:
            await db.close()


if __name__ == "__main__":
    daily_figures()
    asyncio.run(clock_figures())
