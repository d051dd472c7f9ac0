"""The CPU one Heart to Heart tap costs above the socket: the endpoint, the service, the view,
the frame's text and the store, without the WebSocket.

Like ``solitaire_tap_cpu.py`` (``--players`` players in one event loop, all tapping at once,
round after round, on a fresh SQLite file with fsync on), but each tap goes through the
endpoint as a connection hands it over: a validated ``solitaire.tap`` message to
:meth:`SolitaireSession.handle`, answered with the state frame's text (``encode``, as the
connection writes it; the socket write itself is left out). Each player taps as the load
bench's players do: the first pair the engine offers (two taps), else the stock, and a new
deal (leaving the old) when the game is over (often: many random deals are dead from the
start). Prints the process's CPU time per tap (all threads: the event loop and SQLite's writer;
the new deals' CPU counted in, as in ``solitaire_tap_cpu.py``), medians of ``--runs`` runs,
with the load average. It reads only what every version of the endpoint has (the session's
game and the service's engine), so the same file measures an older checkout
(``PYTHONPATH=.../src``).

    nice -n 19 .venv/bin/python bench/solitaire_endpoint_cpu.py [--players 200] [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import statistics
import tempfile
import time
from pathlib import Path

from heartsuit.server.core import messages
from heartsuit.server.core.bus import LocalBus
from heartsuit.server.core.game_service import OnNotice
from heartsuit.server.core.protocol import Encoded, Reply, encode
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import Player, PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.endpoint import SolitaireEndpoint, SolitaireSession
from heartsuit.server.solitaire.protocol import SolitaireNew, SolitaireTap
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database


class Tab:
    """A connection's side of a session, as far as the endpoint sees it: frames are encoded
    as the connection encodes them, and kept (the last one) instead of written to a socket."""

    def __init__(self, player: Player) -> None:
        self._player = player
        self.last = ""
        self.frames = 0

    @property
    def player(self) -> Player | None:
        return self._player

    @property
    def lang(self) -> messages.Lang:
        return "id"

    async def send(self, message: Reply | Encoded, req: int | None = None) -> None:
        self.last = encode(message, req)
        self.frames += 1

    async def follow(self, channel: str, on_notice: OnNotice) -> None:
        return None

    def unfollow(self, channel: str) -> None:
        return None


async def one_run(path: Path, players: int, rounds: int, profile: str) -> tuple[float, int, int]:
    db = Database(sqlite_url(path))
    await db.open()
    try:
        service = SolitaireService(
            SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db)), bus=LocalBus()
        )
        endpoint = SolitaireEndpoint(service)
        people = [await service.players.hello(None) for _ in range(players)]
        tabs = [Tab(p) for p in people]
        sessions: list[SolitaireSession] = [endpoint.session(tab) for tab in tabs]
        for person, session in zip(people, sessions, strict=True):
            await session.hello(person)
        deal = SolitaireNew(type="solitaire.new")
        await asyncio.gather(*(s.handle(p, deal, 1) for p, s in zip(people, sessions, strict=True)))
        partners: list[object | None] = [None] * players
        deals = 0

        async def tap(i: int) -> int:
            session, person = sessions[i], people[i]
            game_id = session._showing
            assert game_id is not None
            live = service._live[game_id]
            game = live.game
            if game.over:
                nonlocal deals
                deals += 1
                await session.handle(
                    person, SolitaireNew(type="solitaire.new", leave=game_id), None
                )
                partners[i] = None
                return 0
            target: object = "stock"
            if partners[i] is not None:
                target, partners[i] = partners[i], None
            else:
                pairs = [pair for pair in game.pairs() if isinstance(pair[0], int)]
                if pairs:
                    target, partners[i] = pairs[0]
            message = SolitaireTap(
                type="solitaire.tap",
                game=game_id,
                target=target,  # type: ignore[arg-type]
                intent=f"i{time.perf_counter_ns()}-{i}",
                base=live.record.log_length,
            )
            await session.handle(person, message, 7)
            return 1

        profiler = cProfile.Profile() if profile else None
        cpu0, taps = time.process_time(), 0
        if profiler is not None:
            profiler.enable()
        for _ in range(rounds):
            taps += sum(await asyncio.gather(*(tap(i) for i in range(players))))
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile)
        assert all('"type":"solitaire.state"' in tab.last for tab in tabs)
        return (time.process_time() - cpu0) / taps * 1000, taps, deals
    finally:
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", default="", help="a file for cProfile's figures")
    args = parser.parse_args()
    print(
        f"{args.players} players x {args.rounds} rounds; load avg {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    figures = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            last = run == args.runs - 1
            ms, taps, deals = asyncio.run(
                one_run(
                    Path(tmp) / "db.sqlite3",
                    args.players,
                    args.rounds,
                    args.profile if last else "",
                )
            )
        figures.append(ms)
        print(
            f"  run {run + 1}: {taps} taps and {deals} new deals, {ms:.3f} ms CPU per tap",
            flush=True,
        )
    print(
        f"MEDIAN of {args.runs}: {statistics.median(figures):.3f} ms CPU per tap "
        f"(endpoint, service and store, no sockets); load avg {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
