"""What a long Heart to Heart history costs: statistics at 5 and 5,000 games, and resuming a game
with a 20,000-entry move log, each with a canary player tapping alongside.

The history is made through the real service (new games, a move each, each left under way so
that it counts, every game a different deal) on a SQLite file, then ``heartsuit serve`` runs on
that file in a child process and is measured over HTTP and ``/ws``:

- ``stats``: the ``stats`` message and ``GET /api/stats`` (round trip, reply size), for a player
  with 5 games and one with 5,000; for comparison, the old way (every game row read and summed)
  timed in this process;
- ``resume``: a fresh server resuming the 20,000-entry game (its newest snapshot plus the log
  after it), and the same game with its snapshot removed (the whole log replayed, as before);
- the canary: another player tapping the stock as fast as replies come, during each of the
  above; its slowest tap is what everyone else waited.

    .venv/bin/python bench/solitaire_stats.py [--games 5000] [--moves 20000] [--runs 5]

Prints medians of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import websockets
from sqlalchemy import delete

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.protocol import CodeStats, OverallStats, StatsReply
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.stats import recount
from heartsuit.server.solitaire.store import SqlSolitaireStore, snapshots
from heartsuit.server.storage.db import Database
from heartsuit.solitaire import Game
from heartsuit.solitaire.codes import format_code

LONG_CODE = "HH1-N-AAAAAAM"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``heartsuit serve`` on ``db`` in a child process, for a ``with`` block."""

    def __init__(self, db: Path) -> None:
        self.port = free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": sqlite_url(db),
            # the bench asks many times a minute from one address
            "HEARTSUIT_HELLOS_PER_MINUTE": "100000",
            "HEARTSUIT_NEW_GAMES_PER_MINUTE": "100000",
        }
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "heartsuit", "serve", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(400):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.__exit__()
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)


# --- making the history ------------------------------------------------------------------------


async def make_history(db_path: Path, games: int, moves: int) -> dict[str, str]:
    """Players with ``games`` counted games (and 5), and one with a ``moves``-entry game."""
    db = Database(sqlite_url(db_path))
    await db.open()
    try:
        players = PlayerService(SqlPlayersStore(db))
        service = SolitaireService(SqlSolitaireStore(db), players)
        made: dict[str, str] = {}
        for name, count in (("few", 5), ("many", games)):
            player = (await players.hello(None)).id
            made[name] = player
            previous: str | None = None
            number = 1000
            for _ in range(count + 1):  # the last one is the game in play
                while Game.from_code(format_code(number)).dead_end:
                    number += 1
                played = await service.new_game(player, format_code(number), leave=previous)
                number += 1
                previous = played.live.record.id
                await service.tap(player, previous, "stock")
        player = (await players.hello(None)).id
        made["long"] = player
        game_id = (await service.new_game(player, LONG_CODE)).live.record.id
        for _ in range(moves):
            await service.tap(player, game_id, "stock")
        made["long_game"] = game_id
        canary = (await players.hello(None)).id
        made["canary"] = canary
        return made
    finally:
        await db.close()


async def old_way_ms(db_path: Path, player: str) -> tuple[float, int]:
    """The statistics as they were computed before running totals: every row read and summed
    (and every deal sent). Milliseconds in this process, and the reply's size."""
    db = Database(sqlite_url(db_path))
    await db.open()
    try:
        store = SqlSolitaireStore(db)
        start = time.perf_counter()
        rows = await store.player_games(player)
        totals, codes = recount(rows)
        reply = StatsReply(
            overall=OverallStats(
                games=totals.games, wins=totals.wins, win_pct=0.0,
                current_streak=totals.current_streak, best_streak=totals.best_streak,
                best_time_ms=totals.best_time_ms, fewest_moves=totals.fewest_moves,
            ),
            by_code=[
                CodeStats(code=c.code, games=c.games, wins=c.wins,
                          best_time_ms=c.best_time_ms, fewest_moves=c.fewest_moves)
                for c in codes.values()
            ],
        )
        body = reply.model_dump_json()
        return (time.perf_counter() - start) * 1000, len(body.encode())
    finally:
        await db.close()


async def drop_snapshot(db_path: Path, game_id: str) -> None:
    db = Database(sqlite_url(db_path))
    await db.open()
    try:
        async with db.writing() as conn:
            await conn.execute(delete(snapshots).where(snapshots.c.game_id == game_id))
    finally:
        await db.close()


# --- measuring against the server ----------------------------------------------------------------


async def ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    while True:
        reply: dict[str, Any] = json.loads(await ws.recv())
        if reply.get("req") == message.get("req"):
            return reply


async def with_canary(
    port: int, canary: str, work: Callable[[], Awaitable[tuple[float, int]]]
) -> tuple[float, int, float]:
    """Run ``work`` (-> ms, bytes) while the canary taps; also returns the canary's slowest tap
    (ms) while the work ran."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        await ask(ws, {"type": "hello", "player": canary, "req": 1})
        game = await ask(ws, {"type": "solitaire.resume", "req": 2})
        if game["type"] != "solitaire.state":
            game = await ask(ws, {"type": "solitaire.new", "code": LONG_CODE, "req": 3})
        game_id = game["game"]["id"]
        slowest = 0.0
        stop = asyncio.Event()
        started = asyncio.Event()

        async def tapping() -> None:
            nonlocal slowest
            req = 10
            while not stop.is_set():
                req += 1
                began = time.perf_counter()
                await ask(ws, {"type": "solitaire.tap", "game": game_id, "target": "stock",
                               "req": req})
                if started.is_set():
                    slowest = max(slowest, (time.perf_counter() - began) * 1000)

        task = asyncio.create_task(tapping())
        await asyncio.sleep(0.2)  # the canary is tapping
        started.set()
        took, size = await work()
        await asyncio.sleep(0.05)
        stop.set()
        await task
        return took, size, slowest


def http_stats(port: int, player: str) -> Callable[[], Awaitable[tuple[float, int]]]:
    async def work() -> tuple[float, int]:
        def get() -> tuple[float, int]:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/stats", headers={"X-Heartsuit-Player": player}
            )
            began = time.perf_counter()
            with urllib.request.urlopen(request, timeout=30) as answer:
                body = answer.read()
            return (time.perf_counter() - began) * 1000, len(body)

        return await asyncio.to_thread(get)

    return work


def ws_request(
    port: int, player: str, message: dict[str, Any]
) -> Callable[[], Awaitable[tuple[float, int]]]:
    async def work() -> tuple[float, int]:
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
            await ask(ws, {"type": "hello", "player": player, "req": 1})
            began = time.perf_counter()
            await ws.send(json.dumps({**message, "req": 2}))
            text = await ws.recv()
            return (time.perf_counter() - began) * 1000, len(str(text).encode())

    return work


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=base) as scratch:
        db = Path(scratch) / "history.sqlite3"
        began = time.perf_counter()
        made = asyncio.run(make_history(db, args.games, args.moves))
        print(f"history made in {time.perf_counter() - began:.0f} s "
              f"({args.games} + 5 games, a {args.moves}-entry log)")
        rows: list[tuple[str, str, float, int, float]] = []
        for label, player in ((f"{5} games", made["few"]), (f"{args.games} games", made["many"])):
            olds = [asyncio.run(old_way_ms(db, player)) for _ in range(args.runs)]
            rows.append((label, "old way: read and sum every row (in-process)",
                         median([o[0] for o in olds]), olds[0][1], 0.0))
        with Server(db) as server:
            for label, player in ((f"{5} games", made["few"]), (f"{args.games} games",
                                                                  made["many"])):
                for what, work in (
                    ("GET /api/stats", http_stats(server.port, player)),
                    ("stats message", ws_request(server.port, player, {"type": "stats"})),
                ):
                    runs = [asyncio.run(with_canary(server.port, made["canary"], work))
                            for _ in range(args.runs)]
                    rows.append((label, what, median([r[0] for r in runs]), runs[0][1],
                                 median([r[2] for r in runs])))
        resume = ws_request(0, made["long"], {"type": "solitaire.resume"})
        for label, prepare in (("from its snapshot", None), ("whole log (no snapshot)", True)):
            if prepare:
                asyncio.run(drop_snapshot(db, made["long_game"]))
            runs = []
            for _ in range(args.runs):
                with Server(db) as server:  # a fresh server: nothing in memory
                    resume = ws_request(server.port, made["long"], {"type": "solitaire.resume"})
                    runs.append(asyncio.run(with_canary(server.port, made["canary"], resume)))
            rows.append((f"resume, {args.moves}-entry log", label, median([r[0] for r in runs]),
                         runs[0][1], median([r[2] for r in runs])))
    print(f"\nmedians of {args.runs} runs")
    print(f"{'history':<26} {'request':<46} {'ms':>8} {'bytes':>9} {'canary max ms':>14}")
    for label, what, ms, size, canary in rows:
        print(f"{label:<26} {what:<46} {ms:8.1f} {size:9d} {canary:14.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
