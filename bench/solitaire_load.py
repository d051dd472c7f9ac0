"""Heart to Heart under load: many players tapping over real WebSockets against the site.

Starts ``heartsuit serve`` (one process on a temporary SQLite file, or ``--processes N`` on one
PostgreSQL + Redis, see ``bench/services.py``) and ``--client-procs`` client processes, each
holding its share of ``--players`` sockets (the ``websockets`` client, permessage-deflate as
browsers negotiate it). Each player says hello, deals a random game and then plays it as a page
does: one tap at a time, each sent with its intent id and base and the next only after the
reply; it takes the first pair the view's ``answers`` offer (two taps: the selection, then the
pair), else taps the stock, and deals a new game (leaving the old) when its game is over. So
every tap is logged (a selection, a pair, a flip, a redeal) and games end now and then
(running totals), as in real play.

Two modes:

* ``--rate 0`` (the maximum rate): each player taps again as soon as its reply arrives;
* ``--rate R``: each player taps R times a second (a steady rhythm, each player's phase random;
  a reply later than the next beat delays that player's next tap, as a page would).

After ``--warmup`` seconds, figures are taken over ``--seconds``: acknowledged taps/s (replies
that arrived in the window), the latency from sending a tap to its reply (p50, p99, max, of the
taps sent in the window), new games dealt, errors, the server's CPU (user+system, % of one core;
summed over its processes) and the CPU time it spent per acknowledged tap, and the client
processes' CPU (summed; if it nears their number × 100%, the clients are the bottleneck) and
how late their own event loops were (p99 and max of a 5 ms sleep's lateness, the worst client).
The clients run on uvloop with their garbage collector off during the window
(``bench/services.py``): their own pauses are not the server's latency.
Each run starts a fresh server; the medians of ``--runs`` runs are printed last. ``--profile
DIR`` records the (first) server with py-spy during the window (``py-spy`` in the venv: a
bench tool, not a dependency; collapsed stacks, one file per run).

    .venv/bin/python bench/solitaire_load.py --players 200 --rate 0 --runs 3
    .venv/bin/python bench/solitaire_load.py --players 1000 --rate 1 --runs 3
    .venv/bin/python bench/solitaire_load.py --players 1000 --rate 1 --processes 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from heartsuit.server.core.settings import sqlite_url

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
from services import (  # noqa: E402
    LoopLag,
    collector_paused,
    cpu_seconds,
    free_port,
    run_client,
    stop_process,
)
from solitaire_trace import explain  # noqa: E402

# --- the server --------------------------------------------------------------------------------


class Server:
    """``heartsuit serve`` in a child process for a ``with`` block, and its CPU from /proc."""

    def __init__(self, env: dict[str, str], log: Path, trace: Path | None = None) -> None:
        self.port = free_port()
        #: where the traced server writes what it saw (``solitaire_trace.py``), if traced
        self.trace = trace
        many = "1000000"  # every simulated player comes from 127.0.0.1: lift the limits
        self.env = {
            **os.environ,
            **env,
            "HEARTSUIT_MAX_CONNECTIONS_PER_ADDRESS": many,
            "HEARTSUIT_HELLOS_PER_MINUTE": many,
            "HEARTSUIT_NEW_PLAYERS_PER_MINUTE": many,
            "HEARTSUIT_NEW_GAMES_PER_MINUTE": many,
            **({"HEARTSUIT_TRACE": str(trace)} if trace is not None else {}),
        }
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        self.log_file = self.log.open("ab")
        start = [str(HERE.parent / "solitaire_trace.py")] if self.trace else ["-m", "heartsuit"]
        self.process = subprocess.Popen(
            [sys.executable, *start, "serve", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log_file,
        )
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        self.__exit__()
        raise RuntimeError(f"the server did not start; see {self.log}")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.log_file.close()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)


# --- the players (in the client processes) -----------------------------------------------------


@dataclass
class Tally:
    """What one client process saw in the window."""

    acked: int = 0
    latencies: list[float] = field(default_factory=list)
    new_games: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    cpu_s: float = 0.0
    #: how late this client's loop woke a 5 ms sleep in the window: p99, max (ms)
    lag_ms: tuple[float, float] = (0.0, 0.0)
    #: the taps slower than SLOW_MS: (sent, latency in ms), wall clock
    slow: list[tuple[float, float]] = field(default_factory=list)


#: a tap slower than this is listed for ``--trace``
SLOW_MS = 50.0


class Player:
    def __init__(self, url: str, rng: random.Random) -> None:
        self.url = url
        self.rng = rng
        self.ws: Any = None
        self.req = 0
        self.game: dict[str, Any] = {}
        #: the second card of the pair whose first card was just selected
        self.partner: object | None = None

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.req += 1
        await self.ws.send(json.dumps({**message, "req": self.req}))
        while True:
            reply: dict[str, Any] = json.loads(await self.ws.recv())
            if reply.get("req") == self.req:
                return reply

    async def start(self) -> None:
        import websockets

        self.ws = await websockets.connect(
            self.url,
            max_size=2**20,
            open_timeout=120,
            compression="deflate",
            # browsers never send pings (the server pings a silent peer): neither do these
            ping_interval=None,
        )
        await self.ask({"type": "hello"})
        await self.deal()

    async def deal(self) -> None:
        leave = self.game.get("id")
        reply = await self.ask({"type": "solitaire.new", "leave": leave})
        if reply.get("type") != "solitaire.state":
            raise RuntimeError(f"no new game: {reply}")
        self.game = reply["game"]
        self.partner = None

    def next_target(self) -> object:
        if self.partner is not None:
            target, self.partner = self.partner, None
            return target
        answers = self.game.get("answers") or {}
        pairs = answers.get("pairs") or []
        if pairs:
            first, self.partner = pairs[0]
            return first
        return "stock"

    async def tap(self, tally: Tally | None) -> None:
        """One tap (or a new deal if the game is over); counted in ``tally`` if given."""
        if self.game.get("outcome") != "playing":
            await self.deal()
            if tally is not None:
                tally.new_games += 1
            return
        target = self.next_target()
        message = {
            "type": "solitaire.tap",
            "game": self.game["id"],
            "target": target,
            "intent": f"i{self.rng.getrandbits(60):x}",
            "base": self.game["log_length"],
        }
        sent, wall = time.perf_counter(), time.time()
        reply = await self.ask(message)
        if tally is not None:
            ms = (time.perf_counter() - sent) * 1000
            tally.latencies.append(ms)
            if ms > SLOW_MS:
                tally.slow.append((wall, ms))
        kind = reply.get("type")
        if kind == "solitaire.state":
            self.game = reply["game"]
            if tally is not None:
                tally.acked += 1
        else:
            if tally is not None:
                tally.errors[str(reply.get("code", kind))] += 1
            if isinstance(reply.get("game"), dict):
                self.game = reply["game"]
            self.partner = None


async def client_run(
    urls: list[str], first: int, count: int, rate: float, pipe: Connection, seed: int
) -> None:
    rng = random.Random(seed)
    players = [
        Player(urls[(first + i) % len(urls)], random.Random(rng.random())) for i in range(count)
    ]
    gate = asyncio.Semaphore(20)

    async def start(p: Player) -> None:
        async with gate:
            await p.start()

    await asyncio.gather(*(start(p) for p in players))
    pipe.send("ready")
    go, window_start, window_end = await asyncio.to_thread(pipe.recv)
    assert go == "go"
    tally = Tally()
    cpu_at_start: list[float] = []

    async def cpu_mark() -> None:
        await asyncio.sleep(max(0.0, window_start - time.time()))
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu_at_start.append(usage.ru_utime + usage.ru_stime)

    async def play(p: Player) -> None:
        interval = 1.0 / rate if rate > 0 else 0.0
        beat = time.time() + (rng.uniform(0, interval) if interval else 0.0)
        while True:
            if interval:
                await asyncio.sleep(max(0.0, beat - time.time()))
            now = time.time()
            if now >= window_end:
                return
            counted = window_start <= now
            await p.tap(tally if counted else None)
            if interval:
                beat = max(beat + interval, time.time() - interval)

    marker = asyncio.create_task(cpu_mark())
    with collector_paused():
        lag = LoopLag()
        await asyncio.gather(*(play(p) for p in players))
        tally.lag_ms = lag.stop()
    await marker
    usage = resource.getrusage(resource.RUSAGE_SELF)
    tally.cpu_s = usage.ru_utime + usage.ru_stime - (cpu_at_start[0] if cpu_at_start else 0.0)
    for p in players:
        with contextlib.suppress(Exception):
            await p.ws.close()
    pipe.send(tally)


def client_main(
    urls: list[str], first: int, count: int, rate: float, pipe: Connection, seed: int
) -> None:
    try:
        run_client(client_run(urls, first, count, rate, pipe, seed))
    except BaseException as exc:
        pipe.send(f"error: {exc!r}")
        raise


# --- one run -----------------------------------------------------------------------------------


@dataclass
class Figures:
    acked_per_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    new_games: int
    errors: dict[str, int]
    server_cpu: float
    cpu_ms_per_tap: float
    client_cpu: float
    #: the worst of the clients' loop lateness (p99, max; ms): part of every latency measured
    client_lag_ms: tuple[float, float]
    setup_s: float
    load: float
    slow: list[tuple[float, float]] = field(default_factory=list)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def one_run(
    args: argparse.Namespace, servers: list[Server], run: int, profile: Path | None
) -> Figures:
    urls = [f"ws://127.0.0.1:{s.port}/ws" for s in servers]
    procs = max(1, min(args.client_procs, args.players))
    share = [args.players // procs + (1 if i < args.players % procs else 0) for i in range(procs)]
    pipes: list[Connection] = []
    children: list[Any] = []
    began = time.time()
    first = 0
    ctx = mp.get_context("fork")
    for i, count in enumerate(share):
        mine, theirs = ctx.Pipe()
        child = ctx.Process(
            target=client_main,
            args=(urls, first, count, args.rate, theirs, run * 1000 + i),
            daemon=True,
        )
        child.start()
        pipes.append(mine)
        children.append(child)
        first += count
    try:
        for pipe in pipes:
            if not pipe.poll(600):
                raise RuntimeError("a client process did not set its players up")
            answer = pipe.recv()
            if answer != "ready":
                raise RuntimeError(f"a client process failed: {answer}")
        setup_s = time.time() - began
        window_start = time.time() + 0.2 + args.warmup
        window_end = window_start + args.seconds
        for pipe in pipes:
            pipe.send(("go", window_start, window_end))
        time.sleep(max(0.0, window_start - time.time()))
        cpu0 = sum(s.cpu_seconds() for s in servers)
        profiler = None
        if profile is not None:
            out = profile / f"run{run + 1}.txt"
            profiler = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "py-spy"),
                    *("record", "--pid", str(servers[0].pid), "--format", "raw"),
                    *("--duration", str(int(args.seconds)), "--rate", "200", "--nonblocking"),
                    *("--output", str(out)),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        time.sleep(max(0.0, window_end - time.time()))
        cpu1 = sum(s.cpu_seconds() for s in servers)
        load = os.getloadavg()[0]
        tallies: list[Tally] = []
        for pipe in pipes:
            if not pipe.poll(300):
                raise RuntimeError("a client process did not report")
            answer = pipe.recv()
            if not isinstance(answer, Tally):
                raise RuntimeError(f"a client process failed: {answer}")
            tallies.append(answer)
        if profiler is not None:
            profiler.wait(timeout=args.seconds + 60)
    finally:
        for child in children:
            child.join(30)
            if child.is_alive():
                child.kill()
    acked = sum(t.acked for t in tallies)
    latencies = [x for t in tallies for x in t.latencies]
    errors: Counter[str] = Counter()
    for t in tallies:
        errors.update(t.errors)
    server_cpu_s = cpu1 - cpu0
    return Figures(
        acked_per_s=acked / args.seconds,
        p50_ms=percentile(latencies, 0.50),
        p99_ms=percentile(latencies, 0.99),
        max_ms=max(latencies, default=float("nan")),
        new_games=sum(t.new_games for t in tallies),
        errors=dict(errors),
        server_cpu=100 * server_cpu_s / args.seconds,
        cpu_ms_per_tap=1000 * server_cpu_s / acked if acked else float("nan"),
        client_cpu=100 * sum(t.cpu_s for t in tallies) / args.seconds,
        client_lag_ms=(
            max((t.lag_ms[0] for t in tallies), default=0.0),
            max((t.lag_ms[1] for t in tallies), default=0.0),
        ),
        setup_s=setup_s,
        load=load,
        slow=[x for t in tallies for x in t.slow],
    )


def line(f: Figures) -> str:
    errors = ", ".join(f"{k} {v}" for k, v in sorted(f.errors.items())) or "none"
    return (
        f"{f.acked_per_s:6.0f} taps/s acknowledged | tap to reply p50 {f.p50_ms:6.1f} ms "
        f"p99 {f.p99_ms:6.1f} ms max {f.max_ms:6.1f} ms | new games {f.new_games} | "
        f"server CPU {f.server_cpu:3.0f}% = {f.cpu_ms_per_tap:.3f} ms/tap | "
        f"clients' CPU {f.client_cpu:3.0f}%, their loops late p99 {f.client_lag_ms[0]:.1f} "
        f"max {f.client_lag_ms[1]:.1f} ms | setup {f.setup_s:.1f} s | errors: {errors} | "
        f"load avg {f.load:.2f}"
    )


def median_line(runs: list[Figures]) -> str:
    def med(name: str) -> float:
        return float(statistics.median(getattr(f, name) for f in runs))

    return (
        f"MEDIAN of {len(runs)}: {med('acked_per_s'):.0f} taps/s acknowledged, "
        f"p50 {med('p50_ms'):.1f} ms, p99 {med('p99_ms'):.1f} ms, "
        f"server CPU {med('server_cpu'):.0f}% = {med('cpu_ms_per_tap'):.3f} ms per tap, "
        f"clients' CPU {med('client_cpu'):.0f}% (their loops late p99 "
        f"{statistics.median(f.client_lag_ms[0] for f in runs):.1f} ms), load avg {med('load'):.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument(
        "--rate", type=float, default=0.0, help="taps per second per player (0: at once)"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes; more than 1: PostgreSQL"
    )
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--database-url", default="", help="a PostgreSQL server (else started)")
    parser.add_argument("--redis-url", default="", help="a Redis server (else started)")
    parser.add_argument("--profile", default="", help="a directory for py-spy's stacks")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="trace the (first) server's GC pauses, batches and loop lag; explain the slow taps",
    )
    parser.add_argument(
        "--try",
        dest="try_",
        default="",
        help="with --trace: gc-freeze and/or no-autocheckpoint (comma-separated), to measure",
    )
    args = parser.parse_args()
    if not 1 <= args.players <= 5000 or not 1 <= args.runs <= 10:
        parser.error("keep --players within 1..5000 and --runs within 1..10")
    if not 0 <= args.rate <= 50 or not 1 <= args.seconds <= 300:
        parser.error("keep --rate within 0..50 and --seconds within 1..300")
    if not 1 <= args.processes <= 8 or not 1 <= args.client_procs <= 16:
        parser.error("keep --processes within 1..8 and --client-procs within 1..16")
    if args.try_ and not args.trace:
        parser.error("--try needs --trace")
    shared = args.processes > 1 or args.store == "postgres"
    profile = Path(args.profile) if args.profile else None
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
    rate = "as fast as replies come" if args.rate == 0 else f"{args.rate:g} taps/s each"
    where = "SQLite" if not shared else "PostgreSQL + Redis" if args.processes > 1 else "PostgreSQL"
    print(
        f"{args.players} players, {rate}; {args.processes} server process(es) on "
        f"{where}; {args.client_procs} client processes; "
        f"warm-up {args.warmup:g} s, window {args.seconds:g} s; {os.cpu_count()} cores, "
        f"load avg {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    runs: list[Figures] = []
    with contextlib.ExitStack() as outer:
        server_url = redis_url = ""
        if shared:
            sys.path.insert(0, str(HERE.parent))
            from services import fresh_database, servers

            server_url, redis_url = outer.enter_context(servers(args.database_url, args.redis_url))
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
                if shared:
                    env = {"DATABASE_URL": stack.enter_context(fresh_database(server_url))}
                    if args.processes > 1:
                        env["REDIS_URL"] = redis_url
                else:
                    env = {"DATABASE_URL": sqlite_url(Path(tmp) / "bench.sqlite3")}
                servers_ = []
                trace = Path(tmp) / "trace.json" if args.trace else None
                for i in range(args.processes):
                    # one after the other: the first migrates a fresh database
                    if args.try_:
                        env["HEARTSUIT_TRACE_TRY"] = args.try_
                    server = Server(env, Path(tmp) / f"s{i}.log", trace if i == 0 else None)
                    servers_.append(stack.enter_context(server))
                figures = one_run(args, servers_, run, profile)
                runs.append(figures)
                print(f"  run {run + 1}: {line(figures)}", flush=True)
                if trace is not None:
                    stack.close()  # the server writes its trace as it stops
                    seen = json.loads(trace.read_text()) if trace.exists() else None
                    if seen is None:
                        print("  (no trace written)", flush=True)
                    else:
                        print(explain(seen, figures.slow), flush=True)
                logs = " ".join(p.read_text(errors="replace") for p in Path(tmp).glob("*.log"))
                if "Traceback" in logs:
                    at = logs.index("Traceback")
                    print(logs[at : at + 2000], file=sys.stderr)
    print(median_line(runs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
