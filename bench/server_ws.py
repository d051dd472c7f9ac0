"""Server figures: WebSocket tap round trips (move logged to SQLite before the reply), replay of
a game's log after a restart, and building the Examples document.

Runs the real app on uvicorn on 127.0.0.1 (a free port, a temporary SQLite file) and talks to it
with the ``websockets`` client; every loop is bounded. Prints medians of several runs.

    .venv/bin/python bench/server_ws.py [--taps 200] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
import websockets

from heartsuit.server import examples
from heartsuit.server.app import create_app
from heartsuit.server.settings import Settings, sqlite_url

CODE = "HH1-N-AAAAAAM"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Running:
    """A uvicorn server in a thread, for the length of a ``with`` block."""

    def __init__(self, db: Path) -> None:
        self.port = free_port()
        app = create_app(Settings(database_url=sqlite_url(db)))
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Running:
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


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
    args = parser.parse_args()
    tap_medians, p95s, resumes = [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "bench.sqlite3"
            with Running(db) as server:
                times, player, _game = asyncio.run(tap_round_trips(server.port, args.taps))
            # a fresh server knows nothing in memory: resuming replays the whole log
            with Running(db) as server:
                resumes.append(asyncio.run(resume_ms(server.port, player)))
        tap_medians.append(statistics.median(times))
        p95s.append(statistics.quantiles(times, n=20)[-1])
    builds = []
    for _ in range(args.runs):
        started = time.perf_counter()
        examples.example_document()
        builds.append((time.perf_counter() - started) * 1000)
    print(f"runs: {args.runs}; taps per run: {args.taps}; SQLite file; loopback")
    print(f"tap round trip, median of run medians: {statistics.median(tap_medians):.2f} ms")
    print(f"tap round trip, median of run p95s:    {statistics.median(p95s):.2f} ms")
    print(f"resume after restart ({args.taps}-entry log replayed), median: "
          f"{statistics.median(resumes):.2f} ms")
    print(f"examples document (solve + replay), median: {statistics.median(builds):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
