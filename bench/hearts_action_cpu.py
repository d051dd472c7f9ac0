"""The CPU one Hearts table change costs in the service, the sessions and the views, without
the sockets.

``--tables`` online tables of four people, in one event loop: each person is a
:class:`~heartsuit.server.hearts.endpoint.HeartsSession` on a stand-in connection that encodes
every frame as the real one does (:func:`heartsuit.server.core.protocol.encode`) and hears its
table's channel on a task of its own (as :class:`~heartsuit.server.core.connection.Connection`
does), on a :class:`~heartsuit.server.core.bus.LocalBus` and a fresh SQLite file (fsync on). Round
after round, every table's awaited person acts at once (a random pass, a random legal card; a
rematch when the match is over), so their writes share group-commit batches as on a busy site;
after each round the notices are left to reach every socket. Prints the process's CPU time (all
threads: the event loop and SQLite's writer) per table change, medians of ``--runs`` runs. What
``hearts_tables.py --kind online`` measures on top of this is the WebSocket: parsing a frame,
the pydantic check of the message, compressing and sending each frame, and uvicorn.
``--profile FILE`` writes a cProfile of the last run (``python -m pstats FILE``).

    nice -n 19 .venv/bin/python bench/hearts_action_cpu.py [--tables 300] [--rounds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from heartsuit.server.core.bus import LocalBus, Notice
from heartsuit.server.core.player import Player
from heartsuit.server.core.protocol import Encoded, Reply, encode
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.hearts.endpoint import HeartsSession
from heartsuit.server.hearts.protocol import (
    HeartsCreate,
    HeartsPass,
    HeartsPlay,
    HeartsRematch,
    HeartsSit,
    HeartsStart,
)
from heartsuit.server.hearts.service import HeartsService
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.storage.db import Database


class Link:
    """A connection without a socket: frames are encoded and counted, channels heard (as
    :class:`~heartsuit.server.core.connection.Connection` does: a notice that finds its channel
    idle goes to the session's ``now`` inside the publish, one published by the link's own
    task waits for the reply; else it is queued for the channel's task)."""

    def __init__(self, bus: LocalBus) -> None:
        self.bus = bus
        self.lang = "en"
        self.player: Player | None = None
        self.frames = 0
        self.last: dict[str, Any] = {}
        self._channels: dict[str, asyncio.Task[None]] = {}
        #: the task answering this link's intent (see act), and what it published meanwhile
        self.reader: asyncio.Task[Any] | None = None
        self.later: list[Callable[[], None]] = []

    async def send(self, message: Reply | Encoded, req: int | None = None) -> None:
        encode(message, req).encode()
        self.frames += 1
        if req is not None and not isinstance(message, Encoded):
            self.last = message.model_dump()

    def send_now(self, message: Reply | Encoded) -> bool:
        encode(message).encode()
        self.frames += 1
        return True

    async def follow(
        self,
        channel: str,
        on_notice: Callable[[Notice], Awaitable[None]],
        now: Callable[[Notice], bool] | None = None,
    ) -> None:
        self.unfollow(channel)
        started = asyncio.Event()
        busy = False
        queue: asyncio.Queue[Notice] | None = None

        def later(notice: Notice) -> None:
            assert now is not None and queue is not None
            if busy or not queue.empty() or not now(notice):
                queue.put_nowait(notice)

        def direct(notice: Notice) -> bool:
            assert now is not None
            if busy:
                return False
            if asyncio.current_task() is self.reader:
                self.later.append(lambda: later(notice))
                return True
            return now(notice)

        async def listen() -> None:
            nonlocal busy, queue
            # (main's bus, for the figure before, takes no direct)
            listening = (
                self.bus.listen(channel) if now is None else self.bus.listen(channel, direct)
            )
            async with listening as queue:
                started.set()
                while True:
                    notice = await queue.get()
                    busy = True
                    try:
                        await on_notice(notice)
                    finally:
                        busy = False

        self._channels[channel] = asyncio.get_running_loop().create_task(listen())
        await started.wait()

    def after_reply(self) -> None:
        later, self.later = self.later, []
        for deliver in later:
            deliver()

    def unfollow(self, channel: str) -> None:
        task = self._channels.pop(channel, None)
        if task is not None:
            task.cancel()


async def one_run(path: Path, tables: int, rounds: int, profile: str) -> tuple[float, int, int]:
    db = Database(sqlite_url(path))
    await db.open()
    bus = LocalBus()
    service = HeartsService(
        SqlTableStore(db), bus=bus, clock=lambda: int(time.time() * 1000), pace_ms=700
    )
    await service.start()
    rng = random.Random(7)
    player = Player(id="bench-player", created_at_ms=0)
    try:
        people: list[list[tuple[HeartsSession, str]]] = []
        ids: list[str] = []
        for _ in range(tables):
            host_link = Link(bus)
            host = HeartsSession(service, host_link)  # type: ignore[arg-type]
            await host.handle(
                player, HeartsCreate(type="hearts.create", mode="online", name="Host"), 1
            )
            table_id = host_link.last["table"]
            seats = [(host, host_link.last["tokens"][0]["token"])]
            for seat in (1, 2, 3):
                link = Link(bus)
                session = HeartsSession(service, link)  # type: ignore[arg-type]
                await session.handle(
                    player,
                    HeartsSit(type="hearts.sit", table=table_id, seat=seat, name=f"P{seat}"),
                    1,
                )
                seats.append((session, link.last["token"]))
            await host.handle(
                player, HeartsStart(type="hearts.start", table=table_id, token=seats[0][1]), 2
            )
            people.append(seats)
            ids.append(table_id)
        await settle(bus)

        async def act(i: int) -> int:
            live = await service.table(ids[i])
            match = live.match
            assert match is not None
            if match.is_over:
                session, token = people[i][0]
                message: Any = HeartsRematch(type="hearts.rematch", table=ids[i], token=token)
            else:
                seat = live.awaiting()[0]
                session, token = people[i][seat]
                view = match.view(seat)
                if view.phase == "pass":
                    cards = [c.code for c in rng.sample(list(view.hand), live.rules.pass_count)]
                    message = HeartsPass(
                        type="hearts.pass",
                        table=ids[i],
                        token=token,
                        cards=cards,  # type: ignore[arg-type]
                        version=live.version,
                    )
                else:
                    message = HeartsPlay(
                        type="hearts.play",
                        table=ids[i],
                        token=token,
                        card=rng.choice(view.legal).code,
                        version=live.version,
                    )
            link: Link = session.link  # type: ignore[assignment]
            link.reader = asyncio.current_task()
            await session.handle(player, message, 9)
            link.reader = None
            link.after_reply()
            return 1

        profiler = cProfile.Profile() if profile else None
        versions = sum([(await service.table(t)).version for t in ids])
        started = time.process_time()
        if profiler is not None:
            profiler.enable()
        for _ in range(rounds):
            await asyncio.gather(*(act(i) for i in range(tables)))
            await settle(bus)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile)
        spent = time.process_time() - started
        changes = sum([(await service.table(t)).version for t in ids]) - versions
        frames = sum(s.link.frames for seats in people for s, _ in seats)  # type: ignore[attr-defined]
        for seats in people:
            for session, _ in seats:
                await session.close()
        await service.stop()
        return spent, changes, frames
    finally:
        await db.close()


async def settle(bus: LocalBus) -> None:
    """Let every socket's listener take its notices (and answer them)."""
    for _ in range(1000):
        await asyncio.sleep(0)
        if not any(q.qsize() for qs in bus._queues.values() for q in qs):
            await asyncio.sleep(0)
            if not any(q.qsize() for qs in bus._queues.values() for q in qs):
                return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", default="", help="a file for the last run's cProfile")
    args = parser.parse_args()
    per_change = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            spent, changes, frames = asyncio.run(
                one_run(
                    Path(tmp) / "bench.db",
                    args.tables,
                    args.rounds,
                    args.profile if run == args.runs - 1 else "",
                )
            )
        per_change.append(spent / changes * 1000)
        print(
            f"run {run + 1}: {changes} changes, {frames} frames, {spent:.2f} s CPU, "
            f"{per_change[-1]:.3f} ms per change (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    print(f"median: {statistics.median(per_change):.3f} ms CPU per change")


if __name__ == "__main__":
    main()
