"""Two server processes on one database and one Redis: the people at a table may be connected
to different processes, and each hears every change, as in a deployment of several processes.

Each "process" is an app of its own (its own event loop, store connections, caches and Redis
bus) on the same SQLite file and the same real Redis (``HEARTSUIT_TEST_REDIS``; ``./dev test``
starts a throwaway one). Both run the table's computer turns; one of them logs each turn first
and the other catches up from the log.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

import pytest

from tests.hearts_support import Seat, play_until_over, table_log
from tests.server_support import Site, running_site

REDIS_URL = os.environ.get("HEARTSUIT_TEST_REDIS", "")
pytestmark = pytest.mark.skipif(not REDIS_URL, reason="set HEARTSUIT_TEST_REDIS to a redis URL")


def person(site: Site, stack: ExitStack) -> Seat:
    peer = stack.enter_context(site.peer())
    peer.ask("lang", lang="en")
    return Seat(peer)


def test_people_on_two_processes_play_a_hand_at_one_table(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    # a long grace: presence is still known per process (a person connected to the other
    # process must not be taken for gone while this test plays)
    options: dict[str, Any] = {
        "hearts_pace_ms": 0,
        "hearts_grace_ms": 600_000,
        "redis_url": REDIS_URL,
    }
    with (
        running_site(db, **options) as one,
        running_site(db, **options) as two,
        ExitStack() as stack,
    ):
        host = person(one, stack)
        host.create(mode="online", name="Host")
        guest = person(two, stack)
        lobby = guest.ask("hearts.invite", invite=host.state["table"]["invite"])
        assert lobby["type"] == "hearts.lobby", lobby
        guest.sit(host.table, 1, "Guest")
        # the host, on the other process, hears that the guest sat down
        host.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
        started = host.ask("hearts.start", table=host.table, token=host.token)
        assert started["type"] == "hearts.state", started
        guest.until(lambda s: s["table"]["status"] == "playing")
        play_until_over([host, guest], hands=1)
        # both saw the same hand end, and the log has each turn once
        assert host.state["sheet"] == guest.state["sheet"]
        assert len(host.state["sheet"]["hands"]) >= 1
    _record, _seats, log = table_log(db, host.table)
    assert [e.seq for e in log] == list(range(len(log)))
    assert host.state["table"]["version"] <= len(log)


def test_a_heart_to_heart_tap_on_the_other_process_is_caught_up_never_lost(
    tmp_path: Path,
) -> None:
    """Two tabs of one player on two processes: each tap lands on whichever process the tab is
    connected to, whose copy of the game may be behind; it is caught up and applied (or
    answered ``stale`` when the tab's own view was behind), never 1011 and never lost; the same
    intent sent to both is applied once."""
    db = tmp_path / "site.sqlite3"
    code = "HH1-N-AAAAAAM"
    with (
        running_site(db, redis_url=REDIS_URL) as one,
        running_site(db, redis_url=REDIS_URL) as two,
        ExitStack() as stack,
    ):
        a = stack.enter_context(one.peer())
        game = a.new_game(code)
        b = stack.enter_context(two.peer(a.player))
        assert b.player == a.player
        kinds: list[str] = []
        for turn in range(6):
            peer = a if turn % 2 == 0 else b
            # an old page (no base): always applied, on a copy caught up if need be
            reply = peer.ask("solitaire.tap", game=game["id"], target="stock", intent=f"s-{turn}")
            assert reply["type"] == "solitaire.state", reply
            kinds.append(reply["event"]["kind"])
            assert reply["game"]["log_length"] == turn + 1
        assert kinds == ["flipped"] * 6
        # the same intent to both processes: written once
        first = a.ask("solitaire.tap", game=game["id"], target=25, intent="twice", base=6)
        again = b.ask("solitaire.tap", game=game["id"], target=25, intent="twice", base=6)
        assert first["event"]["kind"] == "selected" and again["event"]["repeat"] is True
        assert again["game"]["log_length"] == 7
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT action, intent FROM solitaire_moves WHERE game_id = ? ORDER BY seq",
            (game["id"],),
        ).fetchall()
    assert rows == [("stock", f"s-{n}") for n in range(6)] + [("25", "twice")]
