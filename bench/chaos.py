"""Chaos: several ``heartsuit serve`` processes on one PostgreSQL and one Redis, one killed with
SIGKILL at random moments, again and again, while people play.

Starts ``--processes`` servers (``python -m heartsuit serve``, each on its own port; the
database and Redis from ``--database-url``/``--redis-url``, ``HEARTSUIT_TEST_POSTGRES``/
``HEARTSUIT_TEST_REDIS``, or throwaway servers started here, see ``bench/services.py``), then in
one asyncio client:

* ``--tables`` online Hearts tables, each with two scripted people on two different processes
  (the host's and the next one) and two computers; people act after 0.2–0.6 s, the host asks
  for a rematch when a match ends;
* ``--solitaire`` Heart to Heart players tapping the stock every 0.2–0.6 s (a new deal when a
  tap is refused).

Every ``--every`` seconds (uniform in the range) a random process is killed with SIGKILL and
started again a second later; ``--kills`` times. A socket that closes reconnects at once to
another process that answers and opens its table with its seat token, taking the seat over as
the page does when its tab held the seat (or resumes its game).
Afterwards every acknowledged action is looked up in the database, and the figures printed:

* acknowledged actions, and those NOT in the log (must be 0): Hearts passes and plays (the
  reply to the person came, so the server had committed it), solitaire moves (the move count
  of the last state acknowledged vs. the rows of the game's log);
* per kill and table: the time from the kill until the table's version moved again (as the
  table's people saw it): median, p90, max;
* per table, its longest wait: the longest time its people saw its version stand still (kill
  or no kill; to the end of the run for the last one), and the stalls: waits longer than
  ``--stall`` seconds (their table, when and at what version, are printed);
* tables that awaited a computer at a kill, and of those how many had a computer play after
  it (the computer turns resumed, on whichever process owned the table then);
* reconnects, and those that got their seat back (``hearts.open`` answered with the seat);
* sockets closed by the server for a write conflict (1011, Heart to Heart between processes).

    .venv/bin/python bench/chaos.py --kills 10
    .venv/bin/python bench/chaos.py --processes 3 --tables 12 --solitaire 12 --kills 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from heartsuit.server.hearts.frames import apply_patch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from services import free_port, services

MANY = "1000000"


# --- the servers -------------------------------------------------------------------------------


class Process:
    def __init__(self, index: int, env: dict[str, str], logs: Path) -> None:
        self.index = index
        self.port = free_port()
        self.env = env
        self.log = logs / f"server-{index}.log"
        self.popen: subprocess.Popen[bytes] | None = None
        self.alive = False

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                [sys.executable, "-m", "heartsuit", "serve", "--port", str(self.port)],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def healthy(self) -> bool:
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as r,
        ):
            return bool(r.read() == b"ok")
        return False

    async def wait_healthy(self) -> None:
        for _ in range(600):
            if self.healthy():
                self.alive = True
                return
            await asyncio.sleep(0.05)
        raise RuntimeError(f"server {self.index} did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        self.alive = False
        if self.popen is not None:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait()

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


# --- the people --------------------------------------------------------------------------------


@dataclass
class Figures:
    hearts_acked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    solitaire_acked: dict[str, int] = field(default_factory=dict)
    reconnects: int = 0
    seat_kept: int = 0
    seat_lost: int = 0
    conflict_closes: int = 0
    #: seconds from a Hearts socket's loss to its seat opened again
    reconnect_s: list[float] = field(default_factory=list)
    #: requests that got no answer within 20 s (the socket is then dropped and opened again)
    timeouts: int = 0
    #: seconds from sending a Hearts action to its answer
    answer_s: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


@dataclass
class TableWatch:
    id: str
    version: int = 0
    #: (time, version) each time the version moved
    moves: list[tuple[float, int]] = field(default_factory=list)
    #: whether the last state seen awaited a computer (a computer seat, or one marked away)
    awaits_computer: bool = False
    #: what the last state seen said (for the report of a table that stopped)
    last: str = ""
    #: what the state of each version seen said (for the report of a stall)
    said: dict[int, str] = field(default_factory=dict)

    def saw(self, state: dict[str, Any]) -> None:
        version = int(state["table"]["version"])
        if version > self.version:
            self.version = version
            self.moves.append((time.monotonic(), version))
            seats = state["table"]["seats"]
            self.awaits_computer = any(
                seats[s]["kind"] == "computer" or seats[s]["away"] for s in state["awaiting"]
            )
            self.last = (
                f"v{version} {state['table']['status']} awaiting {state['awaiting']} "
                f"over={state.get('over') is not None} "
                f"seats {[(x['kind'], x['connected'], x['away']) for x in seats]}"
            )
            self.said[version] = self.last


class Chaos:
    def __init__(self, procs: list[Process], rng: random.Random, figures: Figures) -> None:
        self.procs = procs
        self.rng = rng
        self.figures = figures
        self.stopping = False
        self.tables: dict[str, TableWatch] = {}

    async def dropped(self, ws: Any, exc: Exception) -> None:
        """A socket closed or went unanswered: count why, close it, and pause a moment before
        the caller connects again."""
        if isinstance(exc, TimeoutError):
            self.figures.timeouts += 1
        if isinstance(exc, websockets.ConnectionClosed) and exc.rcvd and exc.rcvd.code == 1011:
            self.figures.conflict_closes += 1
        await close_quietly(ws)
        await asyncio.sleep(0.05)

    async def connect(self, avoid: int | None = None) -> tuple[Any, int]:
        """A socket to a live process (not ``avoid`` if another answers)."""
        while True:
            order = [p for p in self.procs if p.alive]
            self.rng.shuffle(order)
            order.sort(key=lambda p: p.index == avoid)
            for proc in order:
                try:
                    ws = await websockets.connect(
                        f"ws://127.0.0.1:{proc.port}/ws", open_timeout=5, max_size=2**20
                    )
                except (OSError, TimeoutError, websockets.InvalidHandshake):
                    continue
                return ws, proc.index
            await asyncio.sleep(0.1)

    async def connect_to(self, index: int) -> Any:
        return await websockets.connect(f"ws://127.0.0.1:{self.procs[index].port}/ws")

    # --- Hearts ---

    async def table(self, index: int) -> None:
        n = len(self.procs)
        host_ws = await self.connect_to(index % n)
        guest_ws = await self.connect_to((index + 1) % n)
        for ws in (host_ws, guest_ws):
            await ask(ws, {"type": "hello"})
        created = await ask(host_ws, {"type": "hearts.create", "mode": "online", "name": "H"})
        table = created["table"]
        host_token = created["tokens"][0]["token"]
        seated = await ask(guest_ws, {"type": "hearts.sit", "table": table, "seat": 1, "name": "G"})
        await ask(host_ws, {"type": "hearts.start", "table": table, "token": host_token})
        watch = self.tables[table] = TableWatch(table)
        await asyncio.gather(
            self.person(host_ws, index % n, watch, 0, host_token),
            self.person(guest_ws, (index + 1) % n, watch, 1, seated["token"]),
        )

    async def person(self, ws: Any, proc: int, watch: TableWatch, seat: int, token: str) -> None:
        state: dict[str, Any] | None = None
        lost_at = 0.0
        while not self.stopping:
            try:
                if ws is None:
                    ws, proc = await self.connect(avoid=proc)
                    self.figures.reconnects += 1
                    await ask(ws, {"type": "hello"})
                    # as the page does: the tab held the seat, so it takes it back (the dead
                    # process may still count as its holder until its alive key expires)
                    opened = await ask(
                        ws,
                        {
                            "type": "hearts.open",
                            "table": watch.id,
                            "tokens": [token],
                            "take_over": True,
                        },
                    )
                    if opened.get("type") == "hearts.state" and seat in opened.get("you", []):
                        self.figures.seat_kept += 1
                        self.figures.reconnect_s.append(time.monotonic() - lost_at)
                    else:
                        self.figures.seat_lost += 1
                        print(f"  a seat was not given back: {str(opened)[:300]}", flush=True)
                        return
                    state = opened
                    watch.saw(opened)
                state = await self.play(ws, watch, seat, token, state)
            except (websockets.ConnectionClosed, OSError, TimeoutError) as exc:
                if lost_at == 0.0 or ws is not None:
                    lost_at = time.monotonic()
                await self.dropped(ws, exc)
                ws = None
        await close_quietly(ws)

    async def play(
        self, ws: Any, watch: TableWatch, seat: int, token: str, state: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """Act whenever it is this seat's turn; returns when stopping (raises when closed)."""
        req = 1000
        pending: dict[int, dict[str, Any]] = {}
        sent_at: dict[int, float] = {}
        acted_at = -1
        while not self.stopping:
            if state is not None and not pending:
                version = int(state["table"]["version"])
                action = self.choose(state, seat, token) if version != acted_at else None
                if action is not None:
                    acted_at = version
                    await asyncio.sleep(self.rng.uniform(0.2, 0.6))
                    req += 1
                    pending[req] = action
                    sent_at[req] = time.monotonic()
                    await ws.send(json.dumps({**action, "req": req}))
            if sent_at and time.monotonic() - min(sent_at.values()) > 20:
                raise TimeoutError("no answer to an action for 20 s")
            try:
                raw = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            message = json.loads(raw)
            kind = message.get("type")
            got = message.get("req")
            if kind == "hearts.state":
                state = message
                watch.saw(message)
            elif kind == "hearts.patch":
                # as the page does: the patch on the state held, or open the table again
                patched = apply_patch(state, message) if state is not None else None
                if patched is None:  # a version missed: a whole state again
                    opening = {"type": "hearts.open", "table": watch.id, "tokens": [token]}
                    await ws.send(json.dumps(opening))
                else:
                    state = patched
                    watch.saw(patched)
            elif kind == "error":
                self.figures.error(str(message.get("code")))
                if isinstance(message.get("state"), dict):
                    state = message["state"]
                    watch.saw(state)
            if isinstance(got, int) and got in pending:
                action = pending.pop(got)
                self.figures.answer_s.append(time.monotonic() - sent_at.pop(got))
                answered = kind in ("hearts.state", "hearts.patch")
                if answered and action["type"] in ("hearts.pass", "hearts.play"):
                    self.figures.hearts_acked.append((watch.id, {**action, "seat": seat}))
                acted_at = -1 if kind == "error" else acted_at
        return state

    def choose(self, state: dict[str, Any], seat: int, token: str) -> dict[str, Any] | None:
        table = state["table"]["id"]
        if state.get("over") is not None:
            if seat == 0:
                return {"type": "hearts.rematch", "table": table, "token": token}
            return None
        view = state.get("view")
        between = (state.get("public") or {}).get("next_hand") or {}
        if seat not in state.get("awaiting", ()) and seat in between.get("waiting", ()):
            return {"type": "hearts.next", "table": table, "token": token}  # "next hand"
        if seat not in state.get("awaiting", ()) or view is None:
            return None
        base = {"table": table, "token": token, "version": state["table"]["version"]}
        if view["phase"] == "moon":
            return {"type": "hearts.moon", "choice": "others_plus_26", **base}
        if view["must_pass"]:
            count = state["table"]["rules"]["pass_count"]
            return {"type": "hearts.pass", "cards": view["hand"][:count], **base}
        if not view["legal"]:
            return None
        return {"type": "hearts.play", "card": self.rng.choice(view["legal"]), **base}

    # --- Heart to Heart ---

    async def solitaire(self, index: int) -> None:
        ws: Any = await self.connect_to(index % len(self.procs))
        proc = index % len(self.procs)
        welcome = await ask(ws, {"type": "hello"})
        player = welcome["player"]
        game = (await ask(ws, {"type": "solitaire.new"}))["game"]["id"]
        while not self.stopping:
            try:
                if ws is None:
                    ws, proc = await self.connect(avoid=proc)
                    self.figures.reconnects += 1
                    await ask(ws, {"type": "hello", "player": player})
                    resumed = await ask(ws, {"type": "solitaire.resume"})
                    if resumed.get("type") == "solitaire.state":
                        game = resumed["game"]["id"]
                await asyncio.sleep(self.rng.uniform(0.2, 0.6))
                reply = await ask(ws, {"type": "solitaire.tap", "game": game, "target": "stock"})
                if reply.get("type") == "solitaire.state":
                    moves = int(reply["game"]["moves"])
                    acked = self.figures.solitaire_acked
                    acked[game] = max(acked.get(game, 0), moves)
                    if reply["game"]["outcome"] != "playing" or reply["game"]["stock_count"] == 0:
                        game = await new_game(ws, game)
                else:
                    self.figures.error(str(reply.get("code")))
                    game = await new_game(ws, game)
            except (websockets.ConnectionClosed, OSError, TimeoutError) as exc:
                await self.dropped(ws, exc)
                ws = None
        await close_quietly(ws)


async def close_quietly(ws: Any) -> None:
    if ws is not None:
        with contextlib.suppress(Exception):
            await ws.close()


async def new_game(ws: Any, leaving: str) -> str:
    reply = await ask(ws, {"type": "solitaire.new", "leave": leaving})
    if reply.get("type") != "solitaire.state":
        raise RuntimeError(f"no new deal: {reply}")
    return str(reply["game"]["id"])


_REQ = [0]


async def ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send with a fresh req and return the reply to it (pushes before it are skipped)."""
    _REQ[0] += 1
    req = _REQ[0]
    await ws.send(json.dumps({**message, "req": req}))
    while True:
        reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if reply.get("req") == req:
            return reply


# --- the run -----------------------------------------------------------------------------------


async def run(args: argparse.Namespace, procs: list[Process]) -> tuple[Figures, dict[str, Any]]:
    rng = random.Random(args.seed)
    figures = Figures()
    chaos = Chaos(procs, rng, figures)
    # the first process migrates the fresh database; the others start once it has
    procs[0].start()
    await procs[0].wait_healthy()
    for proc in procs[1:]:
        proc.start()
    for proc in procs[1:]:
        await proc.wait_healthy()
    people = [asyncio.create_task(chaos.table(i)) for i in range(args.tables)]
    people += [asyncio.create_task(chaos.solitaire(i)) for i in range(args.solitaire)]
    await asyncio.sleep(args.warmup)
    kills: list[tuple[float, int, dict[str, tuple[int, bool]]]] = []
    low, high = args.every
    for _ in range(args.kills):
        await asyncio.sleep(rng.uniform(low, high))
        victim = rng.choice(procs)
        before = {t: (w.version, w.awaits_computer) for t, w in chaos.tables.items()}
        kills.append((time.monotonic(), victim.index, before))
        victim.kill()
        print(f"  killed server {victim.index}; load avg {os.getloadavg()[0]:.2f}", flush=True)
        await asyncio.sleep(1.0)
        victim.start()
        await victim.wait_healthy()
    await asyncio.sleep(args.after)
    end = time.monotonic()
    chaos.stopping = True
    await asyncio.wait(people, timeout=30)
    for task in people:
        if task.done() and not task.cancelled() and task.exception() is not None:
            print(f"  a player stopped: {task.exception()!r}", flush=True)
        task.cancel()
    for task in people:
        with contextlib.suppress(BaseException):
            await task
    # after each kill: how long until each table moved on; whether computer turns resumed
    continued: list[float] = []
    stuck = 0
    stuck_tables: set[str] = set()
    awaiting_computer = resumed = 0
    for at, _victim, before in kills:
        for table, (version, computer) in before.items():
            watch = chaos.tables[table]
            later = [t for t, v in watch.moves if t > at and v > version]
            if later:
                continued.append(later[0] - at)
            else:
                stuck += 1
                stuck_tables.add(table)
                print(f"  table {table} did not move on: {watch.last}", flush=True)
            if computer:
                awaiting_computer += 1
                resumed += bool(later)
    # the longest time each table's version stood still, as its people saw it (a table's people
    # act after at most 0.6 s and its computers after a pace or two, so a long wait is a stall)
    stalls: list[tuple[float, str, float, int]] = []
    longest: dict[str, float] = {}
    for table, watch in chaos.tables.items():
        marks = [*(m for m in watch.moves if m[0] < end), (end, -1)]
        for (at, version), (later, _) in itertools.pairwise(marks):
            wait = later - at
            longest[table] = max(longest.get(table, 0.0), wait)
            if wait > args.stall:
                stalls.append((wait, table, at - kills[0][0] if kills else 0.0, version))
    for wait, table, since_first_kill, version in sorted(stalls, reverse=True):
        print(
            f"  table {table} stood still {wait:.1f} s ({since_first_kill:+.1f} s from the "
            f"first kill): {chaos.tables[table].said.get(version, f'v{version}')}",
            flush=True,
        )
    summary = {
        "longest": list(longest.values()),
        "stalls": len(stalls),
        "continued": continued,
        "stuck": stuck,
        "awaiting_computer": awaiting_computer,
        "resumed": resumed,
        "tables": list(chaos.tables),
        "stuck_tables": sorted(stuck_tables),
    }
    return figures, summary


async def check_log(database_url: str, figures: Figures) -> tuple[int, int, int, int]:
    """(Hearts acked, Hearts missing, solitaire moves acked, solitaire moves missing)."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(database_url)
    missing_hearts = missing_solitaire = 0
    try:
        async with engine.connect() as conn:
            logs: dict[str, list[dict[str, Any]]] = {}
            rows = await conn.execute(
                text("SELECT table_id, data FROM hearts_events WHERE kind = 'action'")
            )
            for table_id, data in rows:
                logs.setdefault(table_id, []).append(
                    json.loads(data) if isinstance(data, str) else data
                )
            for table_id, action in figures.hearts_acked:
                seat = action["seat"]
                if action["type"] == "hearts.play":
                    want = {"type": "play", "seat": seat, "card": action["card"]}
                    found = want in logs.get(table_id, [])
                else:
                    cards = sorted(action["cards"])
                    found = any(
                        e.get("type") == "pass"
                        and e.get("seat") == seat
                        and sorted(e.get("cards", [])) == cards
                        for e in logs.get(table_id, [])
                    )
                missing_hearts += not found
            counts = dict(
                (
                    await conn.execute(
                        text("SELECT game_id, count(*) FROM solitaire_moves GROUP BY game_id")
                    )
                ).all()
            )
            for game, moves in figures.solitaire_acked.items():
                missing_solitaire += max(0, moves - int(counts.get(game, 0)))
    finally:
        await engine.dispose()
    return (
        len(figures.hearts_acked),
        missing_hearts,
        sum(figures.solitaire_acked.values()),
        missing_solitaire,
    )


async def logged_version(database_url: str, table: str) -> int:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(database_url)
    try:
        async with engine.connect() as conn:
            query = text("SELECT version FROM hearts_tables WHERE id = :t")
            return int((await conn.execute(query, {"t": table})).scalar_one())
    finally:
        await engine.dispose()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def every_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition(":")
    pair = (float(low), float(high or low))
    if not 0.5 <= pair[0] <= pair[1] <= 600:
        raise argparse.ArgumentTypeError("LOW:HIGH seconds, 0.5..600")
    return pair


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--tables", type=int, default=9)
    parser.add_argument("--solitaire", type=int, default=9)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--every", type=every_range, default=(3.0, 6.0), help="LOW:HIGH s")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--after", type=float, default=10.0, help="seconds after the last kill")
    parser.add_argument("--pace", type=int, default=150, help="computer pace, ms")
    parser.add_argument("--grace", type=int, default=5000, help="grace period, ms")
    parser.add_argument("--lease", type=int, default=1000, help="table lease, ms")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stall", type=float, default=10.0, help="a wait longer is a stall, s")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--redis-url", default="")
    parser.add_argument("--logs", default="", help="keep the servers' logs in this directory")
    args = parser.parse_args()
    if not 2 <= args.processes <= 8:
        parser.error("--processes 2..8")
    print(
        f"{args.processes} processes, {args.tables} Hearts tables (2 people on 2 processes, "
        f"2 computers, pace {args.pace} ms), {args.solitaire} solitaire players; "
        f"{args.kills} kills every {args.every[0]:g}-{args.every[1]:g} s; lease {args.lease} ms, "
        f"grace {args.grace} ms; {os.cpu_count()} cores, load avg {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    with services(args.database_url, args.redis_url) as (database_url, redis_url):
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "HEARTSUIT_HEARTS_PACE_MS": str(args.pace),
            "HEARTSUIT_HEARTS_GRACE_MS": str(args.grace),
            "HEARTSUIT_HEARTS_LEASE_MS": str(args.lease),
            "HEARTSUIT_MAX_CONNECTIONS_PER_ADDRESS": MANY,
            "HEARTSUIT_MAX_TABS_PER_PLAYER": MANY,
            "HEARTSUIT_HELLOS_PER_MINUTE": MANY,
            "HEARTSUIT_NEW_GAMES_PER_MINUTE": MANY,
        }
        with contextlib.ExitStack() as keep:
            logs = args.logs or keep.enter_context(tempfile.TemporaryDirectory())
            Path(logs).mkdir(parents=True, exist_ok=True)
            procs = [Process(i, env, Path(logs)) for i in range(args.processes)]
            try:
                figures, summary = asyncio.run(run(args, procs))
            finally:
                for proc in procs:
                    proc.stop()
            hearts, lost_hearts, moves, lost_moves = asyncio.run(check_log(database_url, figures))
            for table in summary["stuck_tables"]:
                logged = asyncio.run(logged_version(database_url, table))
                print(f"  stalled table {table}: the log is at version {logged}")
    continued = summary["continued"]
    print(
        f"acknowledged: {hearts} Hearts actions ({lost_hearts} NOT in the log), "
        f"{moves} solitaire moves ({lost_moves} NOT in the log)"
    )
    print(
        f"after a kill, a table moved on in: median {statistics.median(continued or [0]):.2f} s, "
        f"p90 {pct(continued, 0.9):.2f} s, max {max(continued or [0]):.2f} s "
        f"({len(continued)} table-kills; {summary['stuck']} never moved on)"
    )
    longest = summary["longest"]
    print(
        f"longest wait of a table (its version standing still): median "
        f"{statistics.median(longest or [0]):.2f} s, max {max(longest or [0]):.2f} s; "
        f"stalls (a wait over {args.stall:g} s): {summary['stalls']}"
    )
    print(
        f"tables awaiting a computer at a kill: {summary['awaiting_computer']}, "
        f"computer turns resumed after: {summary['resumed']}"
    )
    waits = figures.reconnect_s
    print(
        f"a seat opened again after its socket was lost: median "
        f"{statistics.median(waits or [0]):.2f} s, p90 {pct(waits, 0.9):.2f} s, "
        f"max {max(waits or [0]):.2f} s; requests unanswered for 20 s: {figures.timeouts}"
    )
    answers = figures.answer_s
    print(
        f"answer to a Hearts action: median {statistics.median(answers or [0]) * 1000:.0f} ms, "
        f"p99 {pct(answers, 0.99) * 1000:.0f} ms, max {max(answers or [0]) * 1000:.0f} ms"
    )
    print(
        f"reconnects {figures.reconnects}, seats kept {figures.seat_kept}, lost "
        f"{figures.seat_lost}; write-conflict closes (1011) {figures.conflict_closes}; "
        f"error replies {dict(sorted(figures.errors.items()))}; "
        f"load avg {os.getloadavg()[0]:.2f}"
    )
    return 1 if lost_hearts or lost_moves else 0


if __name__ == "__main__":
    sys.exit(main())
