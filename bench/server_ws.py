"""Server figures: WebSocket tap round trips (move logged to SQLite before the reply), replay of
a game's log after a restart, and building the Examples document.

Runs ``heartsuit serve`` in a child process on 127.0.0.1 (a free port, a temporary SQLite file)
and talks to it with the ``websockets`` client; every loop is bounded. Prints medians of runs.

    .venv/bin/python bench/server_ws.py [--taps 200] [--runs 5] [--clients 20]
        [--database-url postgresql+asyncpg://…]   (default: a temporary SQLite file)
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
from pathlib import Path

import websockets

from heartsuit.server import examples
from heartsuit.server.settings import sqlite_url

CODE = "HH1-N-AAAAAAM"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Running:
    """``heartsuit serve`` in a child process, for the length of a ``with`` block (a separate
    process, so that the client's work does not share the server's interpreter)."""

    def __init__(self, url: str) -> None:
        self.port = free_port()
        # all the bench's clients come from 127.0.0.1: lift the per-address limits
        many = "1000000"
        self.env = {
            **os.environ,
            "DATABASE_URL": url,
            "HEARTSUIT_MAX_CONNECTIONS_PER_ADDRESS": many,
            "HEARTSUIT_HELLOS_PER_MINUTE": many,
            "HEARTSUIT_NEW_GAMES_PER_MINUTE": many,
        }
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Running:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "heartsuit", "serve", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(300):
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


async def ask(ws: websockets.ClientConnection, message: dict[str, object]) -> dict[str, object]:
    await ws.send(json.dumps(message))
    reply: dict[str, object] = json.loads(await ws.recv())
    return reply


async def tap_round_trips(port: int, taps: int) -> tuple[list[float], str, str]:
    """Milliseconds per stock tap (each a flip or redeal written to the log)."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as ws:
        player = str((await ask(ws, {"type": "hello"}))["player"])
        state = await ask(ws, {"type": "solitaire.new", "code": CODE})
        game = state["game"]
        assert isinstance(game, dict)
        game_id = str(game["id"])
        times = []
        for _ in range(taps):
            started = time.perf_counter()
            reply = await ask(ws, {"type": "solitaire.tap", "game": game_id, "target": "stock"})
            times.append((time.perf_counter() - started) * 1000)
            assert reply["type"] == "solitaire.state", reply
        return times, player, game_id


async def many_clients(port: int, clients: int, taps: int) -> float:
    """Taps per second with ``clients`` players tapping at once, each on its own game."""

    async def one() -> None:
        await tap_round_trips(port, taps)

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(clients)))
    return clients * taps / (time.perf_counter() - started)


async def resume_ms(port: int, player: str) -> float:
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as ws:
        await ask(ws, {"type": "hello", "player": player})
        started = time.perf_counter()
        reply = await ask(ws, {"type": "solitaire.resume"})
        assert reply["type"] == "solitaire.state"
        return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    if not 1 <= args.clients <= 200 or not 1 <= args.taps <= 2000:
        parser.error("keep --clients within 1..200 and --taps within 1..2000")
    tap_medians, p95s, resumes, rates = [], [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            url = args.database_url or sqlite_url(Path(tmp) / "bench.sqlite3")
            with Running(url) as server:
                times, player, _game = asyncio.run(tap_round_trips(server.port, args.taps))
                rates.append(asyncio.run(many_clients(server.port, args.clients, args.taps // 4)))
            # a fresh server knows nothing in memory: resuming replays the whole log
            with Running(url) as server:
                resumes.append(asyncio.run(resume_ms(server.port, player)))
        tap_medians.append(statistics.median(times))
        p95s.append(statistics.quantiles(times, n=20)[-1])
    builds = []
    for _ in range(args.runs):
        started = time.perf_counter()
        examples.example_document()
        builds.append((time.perf_counter() - started) * 1000)
    where = "PostgreSQL" if args.database_url else "SQLite file"
    print(f"runs: {args.runs}; taps per run: {args.taps}; {where}; loopback")
    print(f"tap round trip, median of run medians: {statistics.median(tap_medians):.2f} ms")
    print(f"tap round trip, median of run p95s:    {statistics.median(p95s):.2f} ms")
    print(f"{args.clients} players tapping at once, median: {statistics.median(rates):.0f} taps/s")
    print(f"resume after restart ({args.taps}-entry log replayed), median: "
          f"{statistics.median(resumes):.2f} ms")
    print(f"examples document (solve + replay), median: {statistics.median(builds):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
