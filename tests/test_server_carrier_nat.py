"""Many players behind one address (a mobile carrier's NAT), on the real server process.

Sixty people on one public address, one tab each, play as people do: they open the site (a
``hello`` that makes their player), deal Heart to Heart games, start Hearts tables against the
computer, look an invite up and open a replay, round after round. With the site's default
limits none of them is ever refused: the limits count players, and the address only has
ceilings set for an address that stands for hundreds of people. (Before, sockets past 40 were
closed and most new games were refused with a wait the refusal did not tell truthfully.)
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from tests.server_process import server_process

pytestmark = pytest.mark.slow

PEOPLE = 60
ROUNDS = 3


class Person:
    def __init__(self, port: int) -> None:
        self.socket: ClientConnection = connect(
            f"ws://127.0.0.1:{port}/ws",
            origin=Origin(f"http://127.0.0.1:{port}"),
            open_timeout=20,
            legacy=True,
        )
        self.req = 0
        self.replies: list[dict[str, Any]] = []

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.req += 1
        self.socket.send(json.dumps({"type": kind, "req": self.req, **fields}))
        while True:
            reply: dict[str, Any] = json.loads(self.socket.recv(timeout=20))
            if reply.get("req") == self.req:
                self.replies.append(reply)
                return reply


def test_sixty_players_behind_one_address_are_never_refused(tmp_path: Path) -> None:
    with server_process(tmp_path, hearts_pace_ms=0) as server, ExitStack() as stack:
        people = [Person(server.port) for _ in range(PEOPLE)]
        for person in people:
            stack.callback(person.socket.close)
        # every socket is open at once, all from 127.0.0.1
        for person in people:
            welcome = person.ask("hello")
            assert welcome["type"] == "welcome", welcome
        tables: list[str] = []
        for _ in range(ROUNDS):
            for person in people:
                dealt = person.ask("solitaire.new")
                assert dealt["type"] == "solitaire.state", dealt
                created = person.ask("hearts.create", mode="computer")
                assert created["type"] == "hearts.created", created
                tables.append(created["table"])
                assert person.ask("hearts.invite", invite="ABCDEFGH")["code"] == "bad_invite"
                assert person.ask("hearts.replay", table=tables[-1])["code"] == "match_running"
        refused = [
            r
            for p in people
            for r in p.replies
            if r.get("code") in ("rate_limited", "too_many_connections", "too_many_tabs")
        ]
        assert refused == []
        # a reload of every tab (a hello with the kept id) is not refused either
        for person in people:
            player = person.replies[0]["player"]
            assert person.ask("hello", player=player)["type"] == "welcome"
