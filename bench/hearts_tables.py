"""Hearts tables under load: many simultaneous tables over real WebSockets against one server.

Starts the site in a child process (uvicorn, as ``heartsuit serve`` does, but with the Hearts
computer pace set here: ``--pace`` ms; ``heartsuit serve`` cannot set it) on 127.0.0.1 with a
temporary SQLite file, then one asyncio client process (``websockets``) sets up ``--tables``
tables of one kind and plays them:

* ``online``: four scripted people hold the four seats (four sockets per table: hello, the
  host creates an online table, three guests sit down, the host starts it);
* ``computer``: one person and three computers (``--level``) per table, one socket.

A person acts once it is their seat's turn: after a think time drawn uniformly from
``--think`` (``0.5:1.5`` seconds, so about one action a second per person), or at once with
``--think 0`` (the max-rate run). They pass random cards and play a random legal card; the host
asks for a rematch when a match ends. After the tables are set up and ``--warmup`` seconds have
passed, figures are taken over ``--seconds``:

* actions/s: people's actions acknowledged by the server; table changes/s: every entry appended
  to the tables' logs (people's and computers' actions), read from the versions the clients saw;
* latency of a person's action: from sending it to the moment EVERY socket at that table has
  received a ``hearts.state`` carrying its version, or a ``hearts.patch`` to it (the reply to
  the actor, pushes to the others): p50 and p99;
* idle round trip: a separate probe socket sends ``lang`` every 100 ms (no database, no table),
  which shows how long the server's event loop makes any frame wait;
* server CPU (user+system of the server process, all threads, % of one core) and that CPU per
  table change (ms; for online tables of people, per action: the figure that depends least on
  how loaded the machine is), the client
  process's CPU, the server's RSS before any table and after, and (RSS growth) / tables;
* how late the client's own event loop was (p99 and max of a 5 ms sleep's lateness): the
  client runs on uvloop and its garbage collector is off during the window (``bench/
  services.py``), so that its own pauses are not counted as the server's; what remains of its
  lateness is printed, as it is part of every latency it measured;
* with a window of two minutes or more, each whole minute's p99 and the share of the
  machine's CPU the hypervisor took in it (``/proc/stat``'s steal): where a long window's
  tail comes from.

Each run is a fresh server; several runs per size, medians printed. ``--profile DIR`` records
the server with py-spy during the window (collapsed stacks, one file per run; only samples
that hold the GIL, so threads waiting for it do not count as work; zlib and socket writes
that release it are undercounted). ``BENCH_GC_LOG=file`` makes the server write a line per
garbage collection (generation, ms), ``BENCH_GC_THRESHOLD=a,b,c`` sets its ``gc`` thresholds
instead of ``heartsuit serve``'s (its sweeper thread still runs), ``BENCH_GC_FREEZE=0`` leaves
out the collector's serving policy that ``heartsuit serve`` sets once loaded (``gc.freeze()``,
the thresholds, the sweeper: docs/site.md, "Garbage collection"), for Python's own collector.

    .venv/bin/python bench/hearts_tables.py --kind online --tables 100,300,1000 --runs 3
    .venv/bin/python bench/hearts_tables.py --kind online --tables 300 --think 0 --runs 3
    .venv/bin/python bench/hearts_tables.py --kind computer --tables 100 --pace 700

``--thinkers N`` is how many worker processes each server's computer players think in
(``HEARTSUIT_HEARTS_THINKERS``; by default one per core, as ``heartsuit serve``; 0: a thread of
the server). The server's CPU then counts its thinking workers too (each of them, and the
``forkserver`` they come from, is a descendant of the server process); the serving process's
own share is printed beside it ("serving"). ``BENCH_THINKERS_NICE=0`` runs the workers at the
serving process's priority instead of nice +10 (on a machine shared with other work, where the
niced workers get little of the cores). With a tree from before the pool
(``PYTHONPATH=old/src``) the option is left out and the computers think in a thread.

``--processes N`` runs N server processes on one PostgreSQL and one Redis instead (a fresh
database per run; the servers from ``--database-url``/``--redis-url``, the ``./dev test``
variables, or throwaway ones, see ``bench/services.py``); the four people of an online table
connect to four processes in turn (table i's seat s to process (i + s) mod N), the probe to the
first (``--route table``: all four to process i mod N, as a proxy routing by table would). CPU
and RSS are then the sum over the processes. ``--route shard`` routes the same way to processes
that share nothing, each on its own SQLite file and without Redis: what processes owning their
tables outright would be, with nothing to cross between them. ``--store postgres`` with one process
measures PostgreSQL alone. ``--via nginx`` puts the checked-in nginx configuration
(``deploy/nginx/heartsuit.conf``, run as ``tests/nginx_front.py`` runs it) in front of the
processes and connects every socket to it: with ``--route table`` the host creates the table on
a socket that names none (as the setup page does), then every seat's socket opens
``/ws?table=<id>`` (as the table page does) and nginx hashes it onto one process; with
``--route seat`` no socket names its table and nginx spreads them. nginx's own CPU is printed
apart.

    .venv/bin/python bench/hearts_tables.py --kind online --tables 300 --processes 3
    .venv/bin/python bench/hearts_tables.py --tables 100,300 --processes 2 --via nginx --route table
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import itertools
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from heartsuit.server.hearts.frames import apply_patch

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))  # the repository: tests/nginx_front.py
from tests.nginx_front import nginx_front  # noqa: E402

from services import (  # noqa: E402
    LoopLag,
    collector_paused,
    cpu_seconds,
    free_port,
    run_client,
    stop_process,
)

# --- the server --------------------------------------------------------------------------------


def serve(port: int, db: str, pace_ms: int, diagnose: str, what_if: str) -> None:
    """The child process: the site on uvicorn with ``heartsuit serve``'s configuration
    (:func:`heartsuit.cli.serve_cmd.uvicorn_config`), with a pace and lifted per-address
    limits."""
    import uvicorn

    from heartsuit.cli.serve_cmd import uvicorn_config
    from heartsuit.server.core.settings import Settings, sqlite_url

    try:
        from heartsuit.cli.serve_cmd import settle_process
    except ImportError:  # a tree from before 5fae9d9 (2026-12-02), compared through PYTHONPATH
        from heartsuit.cli.serve_cmd import (  # type: ignore[attr-defined,no-redef]
            settle_memory as settle_process,
        )

    shared_db = os.environ.get("BENCH_DATABASE_URL", "")

    if diagnose:
        time_the_write_lock(diagnose)
    if os.environ.get("BENCH_GC_LOG"):
        log_gc(os.environ["BENCH_GC_LOG"])
    if what_if:
        try_store(what_if, db)
    # every simulated person comes from 127.0.0.1: lift the per-address limits, which would
    # otherwise (rightly) refuse thousands of sockets and tables from one address
    many = 1_000_000
    # the computers' worker processes (a tree from before the pool has no such setting)
    thinkers = os.environ.get("BENCH_THINKERS", "")
    hearts: dict[str, int] = {"pace_ms": pace_ms}
    if thinkers and has_pool():
        hearts["thinkers"] = int(thinkers)
    games = None
    try:
        from heartsuit.server.hearts.game import hearts_game
        from heartsuit.server.hearts.settings import HeartsSettings
        from heartsuit.server.solitaire.game import solitaire_game

        games = [solitaire_game(), hearts_game(HeartsSettings(**hearts))]
        own: dict[str, int] = {}
    except ImportError:  # a tree from before each game had its own settings (2026-12-06)
        own = {f"hearts_{name}": value for name, value in hearts.items()}
    if os.environ.get("BENCH_THINKERS_NICE") and has_pool():
        from heartsuit.server.hearts import thinking_pool as hearts_thinking

        hearts_thinking.WORKER_NICE = int(os.environ["BENCH_THINKERS_NICE"])  # type: ignore[misc]
    settings = Settings(
        **own,  # type: ignore[arg-type]
        database_url=shared_db or sqlite_url(db),
        redis_url=os.environ.get("BENCH_REDIS_URL", ""),
        port=port,
        max_connections_per_address=many,
        hellos_per_minute=many,
        # every bench socket is a new player from 127.0.0.1 (a carrier's address would be many)
        new_players_per_minute=many,
        new_games_per_minute=many,
        # behind nginx (--via): its address as the pages see it, and its word believed
        origins=tuple(os.environ.get("BENCH_ORIGINS", "").split()),
        forwarded_allow_ips="127.0.0.1" if os.environ.get("BENCH_ORIGINS") else "",
    )
    # served as `heartsuit serve` serves: its transports (websockets-sansio with the bounded
    # send buffer, h11 with the bounded request head) and options (per-message-deflate...)
    quiet: dict[str, Any] = {
        "log_level": "warning",  # `serve` logs every connection at info; not 4,000 lines here
        "backlog": 4096,
    }
    config = (
        uvicorn_config(settings, games, **quiet)
        if games is not None
        else uvicorn_config(settings, **quiet)
    )
    # as `serve` does: the collector's serving policy (not with BENCH_GC_FREEZE=0, to measure
    # without)
    if os.environ.get("BENCH_GC_FREEZE") != "0":
        settle_process()
    if os.environ.get("BENCH_GC_THRESHOLD"):  # instead of serve's own thresholds
        import gc

        gc.set_threshold(*(int(x) for x in os.environ["BENCH_GC_THRESHOLD"].split(",")))
    uvicorn.Server(config).run()


def has_pool() -> bool:
    """Whether the tree measured has the thinking pool (``HeartsSettings.thinkers``, before
    that ``Settings.hearts_thinkers``)."""
    from heartsuit.server.core.settings import Settings

    try:
        from heartsuit.server.hearts.settings import HeartsSettings
    except ImportError:
        return "hearts_thinkers" in Settings.__dataclass_fields__
    return "thinkers" in HeartsSettings.__dataclass_fields__


def log_gc(out: str) -> None:
    """Diagnosis (``BENCH_GC_LOG=file``): a line ``wall-time generation ms`` per collection."""
    import gc

    sink = open(out, "a", buffering=1)  # noqa: SIM115 - open for the life of the process
    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            spent = (time.perf_counter() - began[0]) * 1000
            sink.write(f"{time.time():.4f} {info['generation']} {spent:.3f}\n")

    gc.callbacks.append(timed)


def time_the_write_lock(out: str) -> None:
    """Diagnosis (``--diagnose``): the same ``Database.writing`` with its lock timed, a line
    ``wall-time ms-waited ms-held`` per block, and each group-committed batch of
    ``Database.write`` (the path of every table action) timed, a line ``wall-time batch
    writes ms-held`` per batch, to ``out``."""
    from heartsuit.server.storage import db as dbmod

    sink = open(out, "a", buffering=1)  # noqa: SIM115 - open for the life of the process

    @contextlib.asynccontextmanager
    async def writing(self: Any) -> AsyncIterator[Any]:
        asked = time.perf_counter()
        engine = self.engine
        async with self._write_lock:
            got = time.perf_counter()
            async with engine.begin() as conn:
                yield conn
            held = (time.perf_counter() - got) * 1000
        sink.write(f"{time.time():.4f} {(got - asked) * 1000:.3f} {held:.3f}\n")

    dbmod.Database.writing = writing  # type: ignore[method-assign]
    write_batch = dbmod.Database._write_batch

    async def timed_batch(self: Any, engine: Any, batch: list[Any]) -> None:
        began = time.perf_counter()
        await write_batch(self, engine, batch)
        held = (time.perf_counter() - began) * 1000
        sink.write(f"{time.time():.4f} batch {len(batch)} {held:.3f}\n")

    dbmod.Database._write_batch = timed_batch  # type: ignore[method-assign]


def try_store(what_if: str, db_path: str) -> None:
    """What if (``--what-if one-hop``) a table's log entry were written in one trip to a writer
    thread, not in eight trips of aiosqlite each waiting for the event loop? Writes the same rows
    as ``SqlTableStore.append`` on a plain sqlite3 connection (WAL, synchronous FULL, foreign
    keys on), in one transaction, under the same process-wide write lock; seat changes still go
    the usual way."""
    import sqlite3
    from concurrent.futures import ThreadPoolExecutor

    from heartsuit.server.hearts import store as hearts_store
    from heartsuit.server.hearts.live_table import LogEntry, TableRecord

    thread = ThreadPoolExecutor(1)
    opened: list[sqlite3.Connection] = []
    original = hearts_store.SqlTableStore.append

    def connection() -> sqlite3.Connection:
        if not opened:
            conn = sqlite3.connect(db_path, isolation_level=None, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            opened.append(conn)
        return opened[0]

    def write(items: list[tuple[TableRecord, LogEntry]]) -> list[bool]:
        """One transaction for all ``items``; each in a savepoint; False: the seq was taken."""
        conn = connection()
        done = []
        conn.execute("BEGIN IMMEDIATE")
        for table, entry in items:
            row = hearts_store._entry_row(table.id, entry)
            conn.execute("SAVEPOINT one")
            try:
                conn.execute(
                    "INSERT INTO hearts_events (table_id, seq, kind, data, at_ms) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (row["table_id"], row["seq"], row["kind"], row["data"], row["at_ms"]),
                )
                conn.execute(
                    "UPDATE hearts_tables SET status = ?, version = ? WHERE id = ?",
                    (table.status, table.version, table.id),
                )
                conn.execute("RELEASE one")
                done.append(True)
            except sqlite3.IntegrityError:
                conn.execute("ROLLBACK TO one")
                conn.execute("RELEASE one")
                done.append(False)
        conn.execute("COMMIT")
        return done

    async def append(self: Any, table: TableRecord, entry: LogEntry, seats: Any = ()) -> None:
        if seats:
            await original(self, table, entry, seats)
            return
        async with self.db._write_lock:
            done = await asyncio.get_running_loop().run_in_executor(thread, write, [(table, entry)])
        if not done[0]:
            raise hearts_store.EntryConflict(f"entry {entry.seq} of {table.id} is logged")

    hearts_store.SqlTableStore.append = append  # type: ignore[method-assign,assignment]


class Server:
    """The child server for a ``with`` block, and its figures from /proc."""

    def __init__(
        self,
        pace_ms: int,
        where: Path,
        *,
        diagnose: bool,
        what_if: str,
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.env = env
        self.db = where / "bench.sqlite3"
        self.pace_ms = pace_ms
        self.diagnosis = where / "writes.txt" if diagnose else None
        self.log = where / "server.log"
        self.what_if = what_if
        self.process: subprocess.Popen[bytes] | None = None
        #: "closing a WebSocket after an unexpected error" lines the server logged during the run
        self.unexpected = 0

    def __enter__(self) -> Server:
        self.log_file = self.log.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(HERE),
                "--serve",
                str(self.port),
                str(self.db),
                str(self.pace_ms),
                str(self.diagnosis or ""),
                self.what_if,
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log_file,
            env={**os.environ, **self.env} if self.env else None,
        )
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.__exit__()
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            if self.log.exists():
                text = self.log.read_text(errors="replace")
                if os.environ.get("BENCH_DEBUG"):
                    print(f"--- {self.log}:\n{text[-6000:]}", file=sys.stderr)
                self.unexpected = text.count("closing a WebSocket after an unexpected error")
                if self.unexpected:
                    at = text.index("closing a WebSocket after an unexpected error")
                    print(text[at : at + 3000], file=sys.stderr)
            stop_process(self.process)
            self.log_file.close()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def cpu_seconds(self) -> float:
        """The server's CPU with its thinking workers' (and their forkserver's)."""
        return sum(cpu_seconds(pid) for pid in (self.pid, *descendants(self.pid)))

    def serving_cpu_seconds(self) -> float:
        """The serving process's own CPU."""
        return cpu_seconds(self.pid)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


class Servers:
    """Several :class:`Server` processes (one on SQLite; any number on PostgreSQL + Redis),
    started one after the other (the first migrates a fresh database), figures summed."""

    def __init__(self, count: int, pace_ms: int, where: Path, **options: Any) -> None:
        self.servers = []
        for i in range(count):
            home = where / f"server-{i}"
            home.mkdir()
            self.servers.append(Server(pace_ms, home, **options))
        self.diagnosis = self.servers[0].diagnosis
        #: the nginx in front (``--via nginx``), if any
        self.front: Any = None

    def __enter__(self) -> Servers:
        try:
            for server in self.servers:
                server.__enter__()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for server in self.servers:
            server.__exit__()

    @property
    def ports(self) -> list[int]:
        return [s.port for s in self.servers]

    @property
    def port(self) -> int:
        return self.servers[0].port

    @property
    def pid(self) -> int:
        return self.servers[0].pid

    @property
    def unexpected(self) -> int:
        return sum(s.unexpected for s in self.servers)

    def cpu_seconds(self) -> float:
        return sum(s.cpu_seconds() for s in self.servers)

    def serving_cpu_seconds(self) -> float:
        return sum(s.serving_cpu_seconds() for s in self.servers)

    def rss_mb(self) -> float:
        return sum(s.rss_mb() for s in self.servers)


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children, theirs, ...), from /proc."""
    parents: dict[int, list[int]] = collections.defaultdict(list)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(fields[1])].append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def nginx_cpu_seconds(front: Any) -> float:
    """The CPU time of an nginx master and its workers so far (0 without one)."""
    if front is None:
        return 0.0
    master = front.process.pid
    total = cpu_seconds(master)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == master:
                    total += cpu_seconds(int(entry.name))
    return total


def client_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def stolen_seconds() -> float:
    """CPU time the hypervisor gave to others while this machine's processes wanted it, all
    cores (``/proc/stat``'s steal; 0 where there is none): a minute with much of it is the
    machine's, not the server's."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


# --- the players -------------------------------------------------------------------------------


@dataclass(eq=False)
class Player:
    """One socket holding one seat."""

    ws: Any
    table: Table | None = None
    seat: int = 0
    token: str = ""
    version: int = -1
    state: dict[str, Any] | None = None
    #: the version an action was planned for (one action per state)
    planned: int = -1
    #: (version, time) of the states received lately
    arrivals: collections.deque[tuple[int, float]] = field(
        default_factory=lambda: collections.deque(maxlen=64)
    )
    waiting: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    #: req of an action sent -> when it was sent
    sent: dict[int, float] = field(default_factory=dict)
    next_req: int = 1

    def req(self) -> int:
        self.next_req += 1
        return self.next_req

    def heard_at(self, version: int) -> float | None:
        for seen, at in self.arrivals:
            if seen >= version:
                return at
        return None


@dataclass(eq=False)
class Table:
    id: str
    players: list[Player]
    #: (sent at, version it made) of actions not yet heard at every seat
    pending: list[tuple[float, int]] = field(default_factory=list)
    first_version: int = -1


class Load:
    """The client side: sets tables up, plays them, keeps the figures."""

    def __init__(
        self,
        ports: list[int],
        think: tuple[float, float],
        seed: int,
        *,
        deflate: bool = True,
        by_table: bool = False,
        table_query: bool = False,
    ) -> None:
        self.urls = [f"ws://127.0.0.1:{port}/ws" for port in ports]
        #: a table's sockets open /ws?table=<id> (through a proxy that hashes it: ``--via``)
        self.table_query = table_query
        #: every seat of table i to process i (``--route table``), else seat s to i + s
        self.by_table = by_table
        #: permessage-deflate, as browsers negotiate it (off: ``--no-deflate``)
        self.compression: str | None = "deflate" if deflate else None
        self.think = think
        self.rng = random.Random(seed)
        self.tables: list[Table] = []
        self.players: list[Player] = []
        self.playing = False
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        #: latencies (ms) of the window's actions, by the minute of the window they were sent in
        self.by_minute: dict[int, list[float]] = {}
        self.actions = 0
        self.errors: collections.Counter[str] = collections.Counter()
        self.loop_tasks: set[asyncio.Task[Any]] = set()

    # --- plumbing ---

    async def connect(self, where: int = 0, table: str = "") -> Player:
        """A socket to process ``where`` (modulo their number), naming ``table`` if asked."""
        url = self.urls[where % len(self.urls)]
        if table and self.table_query:
            url += f"?table={table}"
        ws = await websockets.connect(
            url,
            max_size=2**20,
            open_timeout=60,
            compression=self.compression,
            # browsers never send pings (the server pings a silent peer): neither do these
            ping_interval=None,
        )
        player = Player(ws)
        self.players.append(player)
        self.spawn(self.read(player))
        await self.ask(player, {"type": "hello"})
        return player

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.loop_tasks.add(task)
        task.add_done_callback(self.loop_tasks.discard)

    async def ask(self, player: Player, message: dict[str, Any]) -> dict[str, Any]:
        req = player.req()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        player.waiting[req] = future
        await player.ws.send(json.dumps({**message, "req": req}))
        try:
            return await asyncio.wait_for(future, 120)
        except TimeoutError:
            raise TimeoutError(f"no answer to {message} in 120 s") from None

    async def read(self, player: Player) -> None:
        try:
            async for raw in player.ws:
                now = time.perf_counter()
                self.on_message(player, json.loads(raw), now)
        except websockets.ConnectionClosed:
            pass

    def on_message(self, player: Player, message: dict[str, Any], now: float) -> None:
        kind = message.get("type")
        state = message if kind == "hearts.state" else None
        if kind == "hearts.patch":
            # as the page does: the patch on the state held
            state = apply_patch(player.state, message) if player.state is not None else None
            if state is None:
                self.errors["patch without its base"] += 1
        if kind == "error":
            self.errors[str(message.get("code"))] += 1
            state = message.get("state")
        req = message.get("req")
        if isinstance(req, int):
            sent = player.sent.pop(req, None)
            # the answer to an action: its whole state, or a patch (a card within a trick, a pass)
            answered = kind in ("hearts.state", "hearts.patch") and state is not None
            if sent is not None and answered and player.table is not None and state is not None:
                player.table.pending.append((sent, int(state["table"]["version"])))
                if self.window[0] <= now <= self.window[1]:
                    self.actions += 1
        if state is not None:
            self.on_state(player, state, now)
        if self.playing and isinstance(req, int):
            self.plan(player)  # the answer to its own action: the person may act again
        if isinstance(req, int):
            future = player.waiting.pop(req, None)
            if future is not None and not future.done():
                future.set_result(message)

    def on_state(self, player: Player, state: dict[str, Any], now: float) -> None:
        version = int(state["table"]["version"])
        if version < player.version:
            return
        if version > player.version:
            player.arrivals.append((version, now))
        player.version = version
        player.state = state
        table = player.table
        if table is not None and table.pending:
            self.resolve(table)
        if self.playing:
            self.plan(player)

    def resolve(self, table: Table) -> None:
        """Record the latency of every action that every seat has now heard of."""
        reached = min(p.version for p in table.players)
        keep = []
        for sent, version in table.pending:
            if version > reached:
                keep.append((sent, version))
                continue
            heard = [p.heard_at(version) for p in table.players]
            last = max(h if h is not None else time.perf_counter() for h in heard)
            if self.window[0] <= sent <= self.window[1]:
                minute = int((sent - self.window[0]) // 60)
                self.by_minute.setdefault(minute, []).append((last - sent) * 1000)
        table.pending = keep

    # --- playing ---

    def plan(self, player: Player) -> None:
        state = player.state
        if state is None or player.planned == player.version or player.table is None:
            return
        if player.sent:
            return  # a person waits for the answer to what they did (as the page does)
        if state.get("over") is not None:
            if player.seat != 0:
                return
        elif player.seat not in state["awaiting"] and player.seat in _waited(state):
            pass  # between hands: the person presses "next hand"
        elif player.seat not in state["awaiting"] or state.get("view") is None:
            return
        player.planned = player.version
        low, high = self.think
        if high <= 0:
            self.fire(player, player.version)
        else:
            delay = self.rng.uniform(low, high)
            asyncio.get_running_loop().call_later(delay, self.fire, player, player.version)

    def fire(self, player: Player, version: int) -> None:
        if not self.playing or player.version != version or player.state is None:
            return
        state, table = player.state, player.table
        assert table is not None
        message: dict[str, Any]
        if state.get("over") is not None:
            message = {"type": "hearts.rematch", "table": table.id, "token": player.token}
        elif player.seat not in state["awaiting"]:
            message = {"type": "hearts.next", "table": table.id, "token": player.token}
        else:
            view = state["view"]
            if view["must_pass"]:
                count = state["table"]["rules"]["pass_count"]
                cards = self.rng.sample(view["hand"], count)
                message = {"type": "hearts.pass", "cards": cards}
            else:
                message = {"type": "hearts.play", "card": self.rng.choice(view["legal"])}
            message.update(table=table.id, token=player.token, version=version)
        req = player.req()
        message["req"] = req
        player.sent[req] = time.perf_counter()
        self.spawn(player.ws.send(json.dumps(message)))

    # --- tables ---

    async def online_table(self, index: int) -> Table:
        host = await self.connect(index)
        created = await self.ask(host, {"type": "hearts.create", "mode": "online", "name": "Host"})
        assert created["type"] == "hearts.created", created
        token = created["tokens"][0]["token"]
        if self.table_query:
            # the setup page's socket named no table; the table page's names it
            await host.ws.close()
            self.players.remove(host)
            host = await self.connect(index, created["table"])
            # the closed socket lets go of the seat in a moment: until then it is in_use
            for _ in range(200):
                opened = await self.ask(
                    host, {"type": "hearts.open", "table": created["table"], "tokens": [token]}
                )
                if opened.get("code") != "in_use":
                    break
                self.errors["in_use"] -= 1  # the page's wait, not an error
                await asyncio.sleep(0.05)
            assert opened["type"] == "hearts.state", opened
        table = Table(created["table"], [host])
        host.table, host.token, host.seat = table, token, 0
        for seat in range(1, 4):
            guest = await self.connect(index if self.by_table else index + seat, table.id)
            seated = await self.ask(
                guest, {"type": "hearts.sit", "table": table.id, "seat": seat, "name": f"G{seat}"}
            )
            assert seated["type"] == "hearts.seated", seated
            guest.table, guest.token, guest.seat = table, seated["token"], seat
            table.players.append(guest)
        started = await self.ask(
            host, {"type": "hearts.start", "table": table.id, "token": host.token}
        )
        assert started["type"] == "hearts.state", started
        return table

    async def computer_table(self, level: str, index: int) -> Table:
        person = await self.connect(index)
        seats = [{"kind": "human"}] + [{"kind": "computer", "level": level}] * 3
        created = await self.ask(
            person, {"type": "hearts.create", "mode": "computer", "name": "P", "seats": seats}
        )
        assert created["type"] == "hearts.created", created
        table = Table(created["table"], [person])
        person.table, person.token, person.seat = table, created["tokens"][0]["token"], 0
        return table

    async def set_up(self, kind: str, count: int, level: str) -> None:
        gate = asyncio.Semaphore(32)

        async def one(index: int) -> None:
            async with gate:
                if kind == "online":
                    table = await self.online_table(index)
                else:
                    table = await self.computer_table(level, index)
                self.tables.append(table)

        # people only start once every table is there (computers start at once: the server's)
        await asyncio.gather(*(one(i) for i in range(count)))
        self.playing = True
        for player in self.players:
            self.plan(player)

    def versions(self) -> int:
        return sum(max(p.version for p in t.players) for t in self.tables)

    async def close(self) -> None:
        self.playing = False
        await asyncio.gather(*(p.ws.close() for p in self.players), return_exceptions=True)
        for task in list(self.loop_tasks):
            task.cancel()


async def probe(url: str, stop: asyncio.Event, out: list[float]) -> None:
    """Round trips of ``lang`` (no database, no table) every 100 ms until ``stop``."""
    async with websockets.connect(url) as ws:
        req = 0
        while not stop.is_set():
            req += 1
            started = time.perf_counter()
            await ws.send(json.dumps({"type": "lang", "lang": "en", "req": req}))
            while json.loads(await ws.recv()).get("req") != req:
                pass
            out.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.1)


# --- one run -------------------------------------------------------------------------------------


@dataclass
class Figures:
    tables: int
    sockets: int
    setup_s: float
    actions_per_s: float
    changes_per_s: float
    p50_ms: float
    p99_ms: float
    heard: int
    #: actions of the window that some seat had still not heard of 30 s after it
    unheard: int
    probe_p50_ms: float
    probe_p99_ms: float
    server_cpu: float  # % of one core (with the thinking workers)
    serving_cpu: float  # % of one core, the serving process alone
    client_cpu: float
    #: how late the client's own loop woke (p99, max; ms): part of every latency it measured
    client_lag_ms: tuple[float, float]
    rss_base_mb: float
    rss_mb: float
    errors: dict[str, int]
    #: nginx's master and worker (``--via nginx``), % of one core
    nginx_cpu: float = 0.0
    #: the window in wall-clock time (to pick the server's writes of the window)
    wall: tuple[float, float] = (0.0, 0.0)
    #: with --diagnose: writes/s, ms waited for the write lock p50/p99, ms held p50/p99
    lock: tuple[float, float, float, float, float] | None = None
    #: p99 of each whole minute of the window (a long window's tail, where it comes from), and
    #: the share of the machine's cores the hypervisor took in that minute (%)
    p99_by_minute: tuple[float, ...] = ()
    stolen_by_minute: tuple[float, ...] = ()

    @property
    def cpu_ms_per_change(self) -> float:
        """Server CPU (ms, all processes) per table change (for online tables of people, per
        action): the figure that depends least on how loaded the machine is."""
        return self.server_cpu * 10 / self.changes_per_s if self.changes_per_s else float("nan")

    @property
    def kb_per_table(self) -> float:
        return (self.rss_mb - self.rss_base_mb) * 1024 / self.tables


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def one_run(args: argparse.Namespace, server: Servers, tables: int, seed: int) -> Figures:
    load = Load(
        server.ports,
        args.think,
        seed,
        deflate=not args.no_deflate,
        by_table=args.route in ("table", "shard"),
        table_query=bool(args.via) and args.route == "table",
    )
    if server.front is not None:
        load.urls = [server.front.ws_url()]
    # the base: a server that has answered once (its modules loaded), with no table yet
    warm = await load.connect()
    await warm.ws.close()
    load.players.clear()
    await asyncio.sleep(0.5)
    rss_base = server.rss_mb()
    started = time.perf_counter()
    await load.set_up(args.kind, tables, args.level)
    setup_s = time.perf_counter() - started
    stop = asyncio.Event()
    probes: list[float] = []
    probe_task = asyncio.get_running_loop().create_task(probe(load.urls[0], stop, probes))
    # the client's collector is off from here (its own collection of everything set up, a
    # pause of the client's loop, comes before the warm-up, not at the window's start)
    with collector_paused():
        await asyncio.sleep(args.warmup)
        profiler = None
        if args.profile:
            pace = "max" if args.think[1] <= 0 else "think"
            out = Path(args.profile) / f"{args.kind}-{tables}-{pace}-{seed}.txt"
            out.parent.mkdir(parents=True, exist_ok=True)
            profiler = subprocess.Popen(
                [
                    shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy"),
                    "record",
                    "-p",
                    str(server.pid),
                    "-d",
                    str(int(args.seconds)),
                    "-r",
                    "200",
                    "-f",
                    "raw",
                    "-o",
                    str(out),
                    "--nonblocking",
                    "--gil",  # only what holds the GIL: work, not threads waiting for it
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        probes.clear()
        lag = LoopLag()
        cpu0, client0, versions0 = server.cpu_seconds(), client_cpu_seconds(), load.versions()
        serving0 = server.serving_cpu_seconds()
        nginx0 = nginx_cpu_seconds(server.front)
        now, wall = time.perf_counter(), time.time()
        load.window = (now, now + args.seconds)
        stolen = [stolen_seconds()]
        for _ in range(int(args.seconds // 60)):  # a long window: what each minute lost
            await asyncio.sleep(60)
            stolen.append(stolen_seconds())
        await asyncio.sleep(args.seconds % 60)
        cpu1, client1, versions1 = server.cpu_seconds(), client_cpu_seconds(), load.versions()
        serving1 = server.serving_cpu_seconds()
        nginx1 = nginx_cpu_seconds(server.front)
        rss = server.rss_mb()
        stop.set()
        client_lag = lag.stop()
        # let the last actions of the window reach every seat (up to 30 s)
        end = load.window[1]
        for _ in range(300):
            waiting = any(t.pending and t.pending[0][0] <= end for t in load.tables) or any(
                sent <= end for p in load.players for sent in p.sent.values()
            )
            if not waiting:
                break
            await asyncio.sleep(0.1)
    load.playing = False
    unheard = sum(1 for t in load.tables for sent, _ in t.pending if sent <= end)
    unheard += sum(1 for p in load.players for sent in p.sent.values() if sent <= end)
    await probe_task
    if profiler is not None:
        profiler.wait(timeout=args.seconds + 60)
    await load.close()
    latencies = [ms for minute in load.by_minute.values() for ms in minute]
    return Figures(
        tables=len(load.tables),
        sockets=sum(len(t.players) for t in load.tables),
        setup_s=setup_s,
        actions_per_s=load.actions / args.seconds,
        changes_per_s=(versions1 - versions0) / args.seconds,
        p50_ms=percentile(latencies, 0.50),
        p99_ms=percentile(latencies, 0.99),
        heard=len(latencies),
        unheard=unheard,
        probe_p50_ms=percentile(probes, 0.50),
        probe_p99_ms=percentile(probes, 0.99),
        server_cpu=100 * (cpu1 - cpu0) / args.seconds,
        serving_cpu=100 * (serving1 - serving0) / args.seconds,
        client_cpu=100 * (client1 - client0) / args.seconds,
        nginx_cpu=100 * (nginx1 - nginx0) / args.seconds,
        client_lag_ms=client_lag,
        rss_base_mb=rss_base,
        rss_mb=rss,
        errors=dict(load.errors),
        wall=(wall, wall + args.seconds),
        p99_by_minute=tuple(
            percentile(load.by_minute.get(m, []), 0.99) for m in range(int(args.seconds // 60))
        ),
        stolen_by_minute=tuple(
            100 * (b - a) / 60 / (os.cpu_count() or 1) for a, b in itertools.pairwise(stolen)
        ),
    )


def lock_figures(path: Path, wall: tuple[float, float]) -> tuple[float, float, float, float, float]:
    """Writes/s and the write lock's wait and hold times (p50, p99, ms) in the window: a
    block of ``writing()`` counts one write, a group-committed batch its number of writes (its
    hold is the batch's; the time a write waited for its batch is not in the waits)."""
    blocks: list[list[float]] = []
    batches: list[tuple[float, int, float]] = []
    for text in path.read_text().splitlines():
        fields = text.split()
        if len(fields) == 4 and fields[1] == "batch":
            batches.append((float(fields[0]), int(fields[2]), float(fields[3])))
        elif len(fields) == 3:
            blocks.append([float(x) for x in fields])
    writes = [w for w in blocks if wall[0] <= w[0] <= wall[1]]
    grouped = [b for b in batches if wall[0] <= b[0] <= wall[1]]
    waits = [w[1] for w in writes]
    holds = [w[2] for w in writes] + [b[2] for b in grouped]
    return (
        (len(writes) + sum(b[1] for b in grouped)) / (wall[1] - wall[0]),
        percentile(waits, 0.5),
        percentile(waits, 0.99),
        percentile(holds, 0.5),
        percentile(holds, 0.99),
    )


def line(f: Figures) -> str:
    errors = ", ".join(f"{k} {v}" for k, v in sorted(f.errors.items()) if v) or "none"
    return (
        f"{f.tables:5d} tables {f.sockets:5d} sockets | setup {f.setup_s:5.1f} s | "
        f"{f.actions_per_s:6.0f} actions/s {f.changes_per_s:6.0f} changes/s | "
        f"all seats heard p50 {f.p50_ms:7.1f} ms p99 {f.p99_ms:7.1f} ms "
        f"(n={f.heard}, unheard {f.unheard}) | "
        f"idle rt p50 {f.probe_p50_ms:6.1f} p99 {f.probe_p99_ms:6.1f} ms | "
        f"server CPU {f.server_cpu:3.0f}% = {f.cpu_ms_per_change:.2f} ms/change "
        f"(serving {f.serving_cpu:3.0f}%), "
        + (f"nginx CPU {f.nginx_cpu:.0f}%, " if f.nginx_cpu else "")
        + f"client CPU {f.client_cpu:3.0f}%, its loop late p99 {f.client_lag_ms[0]:.1f} "
        f"max {f.client_lag_ms[1]:.1f} ms | "
        f"RSS {f.rss_base_mb:.0f} -> {f.rss_mb:.0f} MB = {f.kb_per_table:.0f} KB/table | "
        f"errors: {errors}"
    ) + lock_text(f.lock) + minutes_text(f.p99_by_minute, f.stolen_by_minute)


def minutes_text(p99s: tuple[float, ...], stolen: tuple[float, ...]) -> str:
    if len(p99s) < 2:
        return ""
    return (
        " | p99 by minute "
        + " ".join(f"{x:.0f}" for x in p99s)
        + " ms, CPU stolen by the hypervisor "
        + " ".join(f"{x:.1f}" for x in stolen)
        + "%"
    )


def lock_text(lock: tuple[float, float, float, float, float] | None) -> str:
    if lock is None:
        return ""
    return (
        f" | {lock[0]:.0f} writes/s, write lock waited p50 {lock[1]:.1f} p99 {lock[2]:.1f} ms, "
        f"held p50 {lock[3]:.2f} p99 {lock[4]:.2f} ms"
    )


def median_line(runs: list[Figures]) -> str:
    def med(get: Callable[[Figures], float]) -> float:
        return statistics.median(get(f) for f in runs)

    return (
        f"MEDIAN of {len(runs)}: {runs[0].tables} tables, {runs[0].sockets} sockets, "
        f"{med(lambda f: f.actions_per_s):.0f} actions/s, "
        f"{med(lambda f: f.changes_per_s):.0f} table changes/s, "
        f"p50 {med(lambda f: f.p50_ms):.1f} ms, p99 {med(lambda f: f.p99_ms):.1f} ms, "
        f"idle round trip p50 {med(lambda f: f.probe_p50_ms):.1f} ms "
        f"p99 {med(lambda f: f.probe_p99_ms):.1f} ms, "
        f"server CPU {med(lambda f: f.server_cpu):.0f}% "
        f"= {med(lambda f: f.cpu_ms_per_change):.2f} ms per change "
        f"(serving process {med(lambda f: f.serving_cpu):.0f}%), "
        + (f"nginx CPU {med(lambda f: f.nginx_cpu):.0f}%, " if runs[0].nginx_cpu else "")
        + "client CPU "
        f"{med(lambda f: f.client_cpu):.0f}% (its loop late p99 "
        f"{med(lambda f: f.client_lag_ms[0]):.1f} ms), RSS {med(lambda f: f.rss_base_mb):.0f} -> "
        f"{med(lambda f: f.rss_mb):.0f} MB, {med(lambda f: f.kb_per_table):.0f} KB/table, "
        f"setup {med(lambda f: f.setup_s):.1f} s"
    ) + lock_text(
        tuple(statistics.median(f.lock[i] for f in runs if f.lock) for i in range(5))  # type: ignore[arg-type]
        if all(f.lock for f in runs)
        else None
    )


def think_range(text: str) -> tuple[float, float]:
    if ":" in text:
        low, high = (float(x) for x in text.split(":"))
    else:
        low = high = float(text)
    if not 0 <= low <= high <= 60:
        raise argparse.ArgumentTypeError("think times are LOW:HIGH seconds, 0..60")
    return low, high


def main() -> int:
    if len(sys.argv) == 7 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("online", "computer"), default="online")
    parser.add_argument("--tables", default="100,300,1000", help="sizes, e.g. 100,300,1000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--think",
        type=think_range,
        default=(0.5, 1.5),
        help="a person's think time, LOW:HIGH seconds (0: act at once)",
    )
    parser.add_argument("--pace", type=int, default=700, help="computer pace in ms (server)")
    parser.add_argument("--level", default="normal", choices=("easy", "normal", "hard"))
    parser.add_argument(
        "--thinkers",
        type=int,
        default=None,
        help="worker processes the computers think in (default: one per core; 0: a thread)",
    )
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--profile", default="", help="a directory for py-spy's stacks")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes; more than 1: on PostgreSQL + Redis",
    )
    parser.add_argument(
        "--route",
        choices=("seat", "table", "shard"),
        default="seat",
        help="with several processes: table i's seat s to process (i + s) mod N (seat), or all "
        "of table i's seats to process i mod N, as a proxy that hashes the table would (table); "
        "shard: the same, to processes that share nothing (each its own SQLite file, no Redis), "
        "as processes that own their tables outright would be",
    )
    parser.add_argument(
        "--via",
        choices=("", "nginx"),
        default="",
        help="connect through the checked-in nginx configuration in front of the processes "
        "(deploy/nginx/heartsuit.conf); --route table: sockets name their table",
    )
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--redis", action="store_true", help="one process on PostgreSQL with Redis too"
    )
    parser.add_argument("--database-url", default="", help="a PostgreSQL server (else started)")
    parser.add_argument("--redis-url", default="", help="a Redis server (else started)")
    parser.add_argument(
        "--no-deflate",
        action="store_true",
        help="clients do not offer permessage-deflate (browsers do)",
    )
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="time the server's SQLite write lock (waits and holds)",
    )
    parser.add_argument(
        "--what-if",
        default="",
        choices=("", "one-hop"),
        help="diagnosis: write log entries in one trip to a writer thread (not the server's "
        "code: a patch of the store inside the child process)",
    )
    args = parser.parse_args()
    if args.thinkers is not None:
        os.environ["BENCH_THINKERS"] = str(args.thinkers)
    elif "BENCH_THINKERS" not in os.environ:
        os.environ["BENCH_THINKERS"] = str(os.cpu_count() or 1)
    sizes = [int(x) for x in args.tables.split(",")]
    if not all(1 <= n <= 2000 for n in sizes) or not 1 <= args.runs <= 10:
        parser.error("keep --tables within 1..2000 and --runs within 1..10")
    # up to half an hour: a long window shows what a few seconds hide, the collector's
    # rarer pauses and a heap that grows over a match (docs/site.md, "Garbage collection")
    if not 1 <= args.seconds <= 1800:
        parser.error("keep --seconds within 1..1800")
    think = "at once (max rate)" if args.think[1] <= 0 else f"{args.think[0]}-{args.think[1]} s"
    store = f"; STORE REPLACED: {args.what_if}" if args.what_if else ""
    store += "; no permessage-deflate" if args.no_deflate else ""
    print(
        f"{args.kind} tables; think {think}; computer pace {args.pace} ms, "
        f"level {args.level}{store}; "
        + (f"thinkers {os.environ['BENCH_THINKERS']}; " if has_pool() else "no pool (a thread); ")
        + f"warm-up {args.warmup:.0f} s, window {args.seconds:.0f} s; {args.runs} runs per size; "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    if not 1 <= args.processes <= 8:
        parser.error("keep --processes within 1..8")
    if args.via and args.route == "shard":
        parser.error("--via nginx is for processes that share a database and Redis")
    several = args.processes > 1 and args.route != "shard"
    shared = several or args.store == "postgres" or args.redis
    with_redis = several or args.redis
    if shared and (args.diagnose or args.what_if):
        parser.error("--diagnose and --what-if are for one process on SQLite")
    with contextlib.ExitStack() as outer:
        where = ("", "")
        if shared:
            sys.path.insert(0, str(HERE.parent))
            from services import fresh_database, servers

            where = outer.enter_context(servers(args.database_url, args.redis_url))
            print(
                f"{args.processes} processes on PostgreSQL" + (" + Redis" if with_redis else ""),
                flush=True,
            )
        for tables in sizes:
            runs: list[Figures] = []
            for run in range(args.runs):
                with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
                    env: dict[str, str] | None = None
                    front_port = free_port()
                    if args.via:
                        env = {"BENCH_ORIGINS": f"http://127.0.0.1:{front_port}"}
                    if shared:
                        env = {
                            **(env or {}),
                            "BENCH_DATABASE_URL": stack.enter_context(fresh_database(where[0])),
                        }
                        if with_redis:
                            env["BENCH_REDIS_URL"] = where[1]
                    server = Servers(
                        args.processes,
                        args.pace,
                        Path(tmp),
                        diagnose=args.diagnose,
                        what_if=args.what_if,
                        env=env,
                    )
                    with server:
                        if args.via:
                            server.front = stack.enter_context(
                                nginx_front(server.ports, Path(tmp) / "nginx", port=front_port)
                            )
                        figures = run_client(one_run(args, server, tables, seed=run))
                    if server.diagnosis is not None:
                        figures.lock = lock_figures(server.diagnosis, figures.wall)
                    finish(figures, server, run, runs)
            print(median_line(runs), flush=True)
    return 0


def finish(figures: Figures, server: Servers, run: int, runs: list[Figures]) -> None:
    runs.append(figures)
    if server.unexpected:
        print(f"  (the server logged {server.unexpected} 'unexpected error' closes)")
    print(f"  run {run + 1}: {line(figures)}; load avg {os.getloadavg()[0]:.2f}", flush=True)


def _waited(state: dict[str, Any]) -> list[int]:
    """The people the computers wait for between hands ("next hand")."""
    between = (state.get("public") or {}).get("next_hand")
    return list(between["waiting"]) if between else []


if __name__ == "__main__":
    sys.exit(main())
