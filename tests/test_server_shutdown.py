"""A site's stop: it finishes, with writes in flight and with a task that swallowed its
cancellation, and every write acknowledged before it is in the database.

The stop runs in a thread of its own (a daemon, so that a hang fails the test instead of
holding up the test run): a stop that does not finish within its limit is the failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import threading
import time
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

from heartsuit.server.hearts.service import HeartsService
from heartsuit.server.solitaire.service import Played, SolitaireService
from heartsuit.server.storage.db import StoreError
from tests.server_process import server_process
from tests.server_support import Site, running_site

#: how long a stop may take here (on a loaded machine), far more than it needs
STOP_LIMIT_S = 60.0


def stop_within(stack: ExitStack, limit_s: float = STOP_LIMIT_S) -> float:
    """Close ``stack`` (the site) in a thread; the seconds it took, or a failure after
    ``limit_s``."""
    done = threading.Event()
    failed: list[BaseException] = []

    def stop() -> None:
        try:
            stack.close()
        except BaseException as exc:  # reported below, in the test's thread
            failed.append(exc)
        finally:
            done.set()

    began = time.monotonic()
    threading.Thread(target=stop, daemon=True, name="site-stop").start()
    assert done.wait(limit_s), f"the site did not stop within {limit_s} s"
    assert not failed, failed
    return time.monotonic() - began


def logged_intents(db_path: Path) -> set[str]:
    """Every intent the database holds: logged moves and intents that changed nothing."""
    with closing(sqlite3.connect(db_path)) as db:
        moves = db.execute("SELECT intent FROM solitaire_moves WHERE intent IS NOT NULL")
        quiet = db.execute("SELECT intent FROM solitaire_quiet_intents")
        return {str(row[0]) for row in [*moves.fetchall(), *quiet.fetchall()]}


def start_tapping(site: Site, players: int, acked: list[str], ended: list[str]) -> None:
    """``players`` players tapping their games in the site's event loop, as fast as their
    answers come, until the store refuses (the site is stopping); each intent is added to
    ``acked`` once its tap was answered."""
    service: SolitaireService = site.client.app.state.solitaire  # type: ignore[attr-defined]
    portal = site.client.portal
    assert portal is not None

    async def play(n: int) -> None:
        tab = object()
        player = (await service.players.hello(None)).id
        played: Played = await service.new_game(player, viewer=tab)
        partner: object | None = None
        count = 0
        try:
            while True:
                view = played.view
                assert view is not None
                if view.outcome != "playing":
                    played = await service.new_game(player, leave=view.id, viewer=tab)
                    partner = None
                    continue
                target: object = "stock"
                if partner is not None:
                    target, partner = partner, None
                elif view.answers is not None and view.answers.pairs:
                    target, partner = view.answers.pairs[0]
                count += 1
                intent = f"p{n}-{count}"
                played = await service.tap(
                    player, view.id, target, intent=intent, base=view.log_length, viewer=tab
                )
                acked.append(intent)
        except StoreError as exc:
            ended.append(repr(exc))
        except Exception as exc:  # the store closing under a write, or the engine gone
            ended.append(repr(exc))

    async def start() -> None:
        for n in range(players):
            asyncio.get_running_loop().create_task(play(n), name=f"tapping {n}")

    portal.call(start)


def test_a_stop_with_taps_in_flight_finishes_and_keeps_every_acknowledged_tap(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "site.sqlite3"
    acked: list[str] = []
    ended: list[str] = []
    stack = ExitStack()
    site = stack.enter_context(running_site(db_path))
    start_tapping(site, 40, acked, ended)
    deadline = time.monotonic() + 30
    while len(acked) < 400 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(acked) >= 40, "the players never got going"
    at_stop = len(acked)
    stop_within(stack)
    kept = logged_intents(db_path)
    missing = [intent for intent in acked if intent not in kept]
    assert not missing, f"{len(missing)} acknowledged taps are not in the database: {missing[:5]}"
    # the taps went on while the site stopped (so writes were in flight at its stop)
    assert len(acked) >= at_stop


def test_a_task_that_swallows_its_cancellation_does_not_hold_up_the_stop(
    tmp_path: Path,
) -> None:
    """A client library can turn a cancellation into an error of its own, which a loop may
    log and go on from (the table owner's Redis round did, and the site's stop waited for it
    forever): the stop cancels such a task again until it ends."""
    stack = ExitStack()
    site = stack.enter_context(running_site(tmp_path / "site.sqlite3"))
    hearts: HeartsService = site.client.app.state.hearts  # type: ignore[attr-defined]
    portal = site.client.portal
    assert portal is not None
    swallowed: list[int] = []

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed.append(1)  # the first cancellation "became an error", and was logged

    async def start() -> None:
        hearts.turns.drivers["stubborn"] = asyncio.get_running_loop().create_task(stubborn())

    portal.call(start)
    took = stop_within(stack)
    assert swallowed == [1]
    assert took < STOP_LIMIT_S
    with contextlib.suppress(Exception):
        stack.close()


def test_a_server_killed_outright_has_every_acknowledged_tap_in_its_database(
    tmp_path: Path,
) -> None:
    """``heartsuit serve`` on a SQLite file, players tapping over real WebSockets, then SIGKILL
    in the middle of it: every tap whose answer came back is in the log (the writer thread
    commits, with fsync, before the answer is sent), whatever was in flight."""
    from websockets.sync.client import connect

    acked: list[str] = []
    lock = threading.Lock()
    stopping = threading.Event()

    def player(port: int, n: int) -> None:
        with contextlib.suppress(Exception), connect(f"ws://127.0.0.1:{port}/ws") as ws:

            def ask(message: dict[str, Any]) -> dict[str, Any]:
                ws.send(json.dumps({**message, "req": 1}))
                while True:
                    reply: dict[str, Any] = json.loads(ws.recv(timeout=30))
                    if reply.get("req") == 1:
                        return reply

            ask({"type": "hello"})
            game: dict[str, Any] = ask({"type": "solitaire.new"})["game"]
            count = 0
            while not stopping.is_set():
                if game["outcome"] != "playing":
                    game = ask({"type": "solitaire.new", "leave": game["id"]})["game"]
                    continue
                pairs = (game.get("answers") or {}).get("pairs")
                count += 1
                intent = f"k{n}-{count}"
                reply = ask(
                    {
                        "type": "solitaire.tap",
                        "game": game["id"],
                        "target": pairs[0][0] if pairs else "stock",
                        "intent": intent,
                        "base": game["log_length"],
                    }
                )
                if reply.get("type") == "solitaire.state":
                    with lock:
                        acked.append(intent)
                if isinstance(reply.get("game"), dict):
                    game = reply["game"]

    with server_process(tmp_path) as server:
        threads = [
            threading.Thread(target=player, args=(server.port, n), daemon=True) for n in range(12)
        ]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while len(acked) < 300 and time.monotonic() < deadline:
            time.sleep(0.05)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        stopping.set()
        for thread in threads:
            thread.join(30)
    with lock:
        answered = list(acked)
    assert len(answered) >= 50, "the players never got going"
    kept = logged_intents(tmp_path / "site.sqlite3")
    missing = [intent for intent in answered if intent not in kept]
    assert not missing, f"{len(missing)} answered taps are not in the database: {missing[:5]}"
