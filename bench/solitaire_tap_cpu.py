"""The CPU one Heart to Heart tap costs in the service and its store, without the sockets.

``--players`` players, in one event loop, each deal a game and tap it as the load bench's
players do (the first pair the view's ``answers`` offer, else the stock; a new deal when the
game is over), all at once, round after round: so the taps of a round share group-commit
batches, as on a busy site. Prints the process's CPU time (all threads: the event loop and
SQLite's writer thread) per tap, medians of ``--runs`` runs on a fresh SQLite file (fsync on).
What ``solitaire_load.py`` measures on top of this is the WebSocket: parsing a frame, the
pydantic check of the message, encoding and sending the state. ``--profile FILE`` writes a
cProfile of the last run (``python -m pstats FILE``).

    nice -n 19 .venv/bin/python bench/solitaire_tap_cpu.py [--players 200] [--rounds 20]
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

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.service import Played, SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database


async def one_run(path: Path, players: int, rounds: int, profile: str) -> tuple[float, int]:
    db = Database(sqlite_url(path))
    await db.open()
    try:
        service = SolitaireService(SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db)))
        ids = [(await service.players.hello(None)).id for _ in range(players)]
        tabs = [object() for _ in ids]
        games: list[Played] = list(
            await asyncio.gather(
                *(service.new_game(p, viewer=t) for p, t in zip(ids, tabs, strict=True))
            )
        )
        partners: list[object | None] = [None] * players

        async def tap(i: int) -> int:
            played = games[i]
            view = played.view
            assert view is not None
            if view.outcome != "playing":
                games[i] = await service.new_game(ids[i], leave=view.id, viewer=tabs[i])
                partners[i] = None
                return 0
            target: object = "stock"
            if partners[i] is not None:
                target, partners[i] = partners[i], None
            elif view.answers is not None and view.answers.pairs:
                target, partners[i] = view.answers.pairs[0]
            games[i] = await service.tap(
                ids[i],
                view.id,
                target,
                intent=f"i{time.perf_counter_ns()}-{i}",
                base=view.log_length,
                viewer=tabs[i],
            )
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
        return (time.process_time() - cpu0) / taps * 1000, taps
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
            ms, taps = asyncio.run(
                one_run(
                    Path(tmp) / "db.sqlite3",
                    args.players,
                    args.rounds,
                    args.profile if last else "",
                )
            )
        figures.append(ms)
        print(f"  run {run + 1}: {taps} taps, {ms:.3f} ms CPU per tap", flush=True)
    print(
        f"MEDIAN of {args.runs}: {statistics.median(figures):.3f} ms CPU per tap "
        f"(service and store, no sockets); load avg {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
