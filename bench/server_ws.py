"""Server figures: WebSocket tap round trips (move logged to SQLite before the reply), replay of
a game's log after a restart, and building the Examples document; with ``--echo``, the bare
cost of one frame each way instead (see :func:`echo_main`).

Runs ``heartsuit serve`` in a child process on 127.0.0.1 (a free port, a temporary SQLite file)
and talks to it with the ``websockets`` client; every loop is bounded. Prints medians of runs.

    .venv/bin/python bench/server_ws.py [--taps 200] [--runs 5] [--clients 20]
        [--database-url postgresql+asyncpg://…]   (default: a temporary SQLite file)
    .venv/bin/python bench/server_ws.py --echo [--runs 5] [--clients 20] [--seconds 5]
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
from typing import Any

import websockets

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.solitaire import examples

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


# --- the bare cost of a frame ----------------------------------------------------------------


def echo_server(kind: str, port: int) -> None:
    """A bare echo server on the site's own uvicorn configuration (transports, limits), as a
    yardstick for the site's ``lang`` round trip: ``starlette`` (one route, Starlette's
    WebSocket) or ``asgi`` (the ASGI callable itself, nothing between it and uvicorn)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket

    from heartsuit.cli.serve_cmd import uvicorn_config
    from heartsuit.server.core.settings import Settings

    async def starlette_echo(socket: WebSocket) -> None:
        await socket.accept()
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                return
            await socket.send_text(message["text"])

    async def asgi_echo(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            await send({"type": "websocket.send", "text": message["text"]})

    app: Any = (
        asgi_echo if kind == "asgi" else Starlette(routes=[WebSocketRoute("/ws", starlette_echo)])
    )
    config = uvicorn_config(Settings(port=port), log_level="warning")
    config.app = app
    uvicorn.Server(config).run()


class Echoing(Running):
    """:func:`echo_server` in a child process."""

    def __init__(self, kind: str) -> None:
        super().__init__("sqlite://")
        self.kind = kind

    def __enter__(self) -> Running:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve-echo", self.kind, "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(300):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.__exit__()
        raise RuntimeError("the echo server did not start")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def echo_round_trips(
    port: int, pid: int, clients: int, seconds: float
) -> tuple[float, float]:
    """Round trips per second and the server's CPU microseconds per round trip, with
    ``clients`` sockets (permessage-deflate, as browsers) each sending a ``lang`` message and
    waiting for its answer, for ``seconds``."""
    sockets = [
        await websockets.connect(f"ws://127.0.0.1:{port}/ws", compression="deflate")
        for _ in range(clients)
    ]
    count = 0
    stop = False

    async def one(ws: websockets.ClientConnection) -> None:
        nonlocal count
        req = 0
        while not stop:
            req += 1
            await ws.send(json.dumps({"type": "lang", "lang": "en", "req": req}))
            await ws.recv()
            count += 1

    tasks = [asyncio.create_task(one(ws)) for ws in sockets]
    await asyncio.sleep(1.0)  # warm up
    count, cpu, started = 0, cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(seconds)
    done, cpu, elapsed = count, cpu_seconds(pid) - cpu, time.perf_counter() - started
    stop = True
    await asyncio.gather(*tasks)
    for ws in sockets:
        await ws.close()
    return done / elapsed, cpu * 1e6 / max(done, 1)


def echo_main(args: argparse.Namespace) -> int:
    """The site's ``lang`` round trip (answered by the connection itself: framing, parsing,
    encoding, no game, no database) against bare echo servers on the same transports; the
    servers' kinds take turns, run after run, so that they share the machine's load alike."""
    kinds = tuple(args.kinds.split(","))
    rates: dict[str, list[float]] = {kind: [] for kind in kinds}
    costs: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(args.runs):
        for kind in kinds:
            with tempfile.TemporaryDirectory() as tmp:
                server = (
                    Running(sqlite_url(Path(tmp) / "bench.sqlite3"))
                    if kind == "site"
                    else Echoing(kind)
                )
                with server:
                    assert server.process is not None
                    rate, cost = asyncio.run(
                        echo_round_trips(
                            server.port, server.process.pid, args.clients, args.seconds
                        )
                    )
            rates[kind].append(rate)
            costs[kind].append(cost)
    print(
        f"runs: {args.runs}; {args.clients} sockets, {args.seconds:.0f} s each; loopback, deflate"
    )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for kind in kinds:
        print(
            f"{kind:>9}: {statistics.median(costs[kind]):6.1f} µs server CPU per round trip "
            f"(runs: {', '.join(f'{c:.0f}' for c in costs[kind])}); "
            f"{statistics.median(rates[kind]):.0f} round trips/s"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--echo", action="store_true", help="the bare cost of a frame")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument(
        "--kinds", default="site,starlette,asgi", help="with --echo: which servers, in turn"
    )
    parser.add_argument("--serve-echo", choices=("starlette", "asgi"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo:
        echo_server(args.serve_echo, args.port)
        return 0
    if args.echo:
        return echo_main(args)
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
    print(
        f"resume after restart ({args.taps}-entry log replayed), median: "
        f"{statistics.median(resumes):.2f} ms"
    )
    print(f"examples document (solve + replay), median: {statistics.median(builds):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
