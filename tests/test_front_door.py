"""The front door: the checked-in nginx configuration (``deploy/nginx/heartsuit.conf``) in front
of two ``heartsuit serve`` processes on one PostgreSQL and one Redis, as a deployment runs them.

An online table of two people (and two computers) is played through nginx: every socket that
names the table (``/ws?table=<id>``, as the table page opens it) lands on one process; that
process is killed with SIGKILL, the people reconnect through nginx, which sends them to the
other process, and the match goes on from where it was with nothing lost. Also: a client's own
``X-Forwarded-For`` is never believed (the processes count the address nginx saw), and pages,
static files and their cache headers arrive through nginx compressed as the app sends them.

Needs nginx (``./dev test`` installs Debian's package), ``HEARTSUIT_TEST_POSTGRES`` and
``HEARTSUIT_TEST_REDIS`` (``./dev test`` starts throwaway ones).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.hearts_support import Seat
from tests.nginx_front import Front, free_port, nginx_binary, nginx_front
from tests.server_support import Peer, scratch_database

REDIS_URL = os.environ.get("HEARTSUIT_TEST_REDIS", "")
POSTGRES_URL = os.environ.get("HEARTSUIT_TEST_POSTGRES", "")
pytestmark = [
    pytest.mark.skipif(not REDIS_URL, reason="set HEARTSUIT_TEST_REDIS to a redis URL"),
    pytest.mark.skipif(not POSTGRES_URL, reason="set HEARTSUIT_TEST_POSTGRES to a postgres URL"),
    pytest.mark.skipif(
        nginx_binary() is None,
        reason="nginx is not installed (./dev test installs Debian's nginx unless "
        "HEARTSUIT_NO_NGINX=1)",
    ),
]

#: a short lease, so that the survivor takes the dead process's tables over within the test
LEASE_MS = 600
#: open sockets per address on each process: the people's few, and the spoofing check's
CONNECTIONS_PER_ADDRESS = 6


@dataclass
class Process:
    """One ``heartsuit serve`` child."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def accepted(self, path: str) -> list[str]:
        """The addresses this process accepted a WebSocket on ``path`` from, as it believed
        them (uvicorn's ``<address>:<port> - "WebSocket <path>" [accepted]`` lines)."""
        pattern = re.compile(r'(\S+):\d+ - "WebSocket ' + re.escape(path) + r'" \[accepted\]')
        return pattern.findall(self.output())


def healthy(port: int) -> bool:
    with (
        contextlib.suppress(OSError),
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer,
    ):
        return bool(answer.read() == b"ok")
    return False


def wait_for(check: Any, what: str, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


@contextlib.contextmanager
def processes(count: int, database_url: str, origin: str, tmp: Path) -> Iterator[list[Process]]:
    """``count`` ``heartsuit serve`` processes on one database and Redis, started one after the
    other (the first migrates the database), behind a proxy at ``origin`` on 127.0.0.1."""
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "DATABASE_URL": database_url,
        "REDIS_URL": REDIS_URL,
        "HEARTSUIT_HEARTS_PACE_MS": "0",
        "HEARTSUIT_HEARTS_LEASE_MS": str(LEASE_MS),
        "HEARTSUIT_ORIGINS": origin,
        "HEARTSUIT_FORWARDED_ALLOW_IPS": "127.0.0.1",
        "HEARTSUIT_MAX_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS_PER_ADDRESS),
    }
    started: list[Process] = []
    try:
        for i in range(count):
            port = free_port()
            log = tmp / f"serve-{i}.log"
            with log.open("wb") as out:
                child = subprocess.Popen(
                    [sys.executable, "-m", "heartsuit", "serve", "--port", str(port)],
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            started.append(Process(port, child, log))
            wait_for(lambda: healthy(port) or child.poll() is not None, f"process {i} up")  # noqa: B023
            assert child.poll() is None, started[-1].output()
        yield started
    finally:
        for proc in started:
            if proc.process.poll() is None:
                proc.process.kill()
            proc.process.wait()


class Socket:
    """A real WebSocket client through nginx, with the two methods :class:`Peer` uses."""

    def __init__(
        self, front: Front, path: str, *, source: str = "127.0.0.1", spoof: str | None = None
    ) -> None:
        from websockets.sync.client import connect
        from websockets.typing import Origin

        headers = {"X-Forwarded-For": spoof, "X-Real-IP": spoof} if spoof else None
        self.ws = connect(
            front.ws_url(path),
            origin=Origin(front.origin),
            additional_headers=headers,
            open_timeout=20,
            source_address=(source, 0),
            proxy=None,
            legacy=True,
        )

    def send_text(self, data: str) -> None:
        self.ws.send(data)

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=30))

    def close(self) -> None:
        self.ws.close()


def seat_at(front: Front, path: str, stack: ExitStack, player: str | None = None) -> Seat:
    sock = Socket(front, path)
    stack.callback(sock.close)
    peer = Peer(sock)  # type: ignore[arg-type]
    peer.hello(player)
    peer.ask("lang", lang="en")
    return Seat(peer)


def play_turns(seats: list[Seat], turns: int) -> None:
    """The people act ``turns`` times between them, each when it is their turn (the computers
    play at once between them); as :func:`tests.hearts_support.play_until_over`, the first
    seat's socket tells who must act once it has heard the last action."""
    reached = max(p.version for p in seats)
    for _ in range(turns):

        def next_turn(s: dict[str, Any], reached: int = reached) -> bool:
            return s["table"]["version"] >= reached and any(p.seat in s["awaiting"] for p in seats)

        state = seats[0].until(next_turn)
        person = next(p for p in seats if p.seat in state["awaiting"])
        person.until(person.my_turn)
        reply = person.act()
        assert reply["type"] in ("hearts.state", "hearts.patch"), reply
        reached = person.version


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Front, list[Process]]]:
    pytest.importorskip("asyncpg")
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    with (
        scratch_database(POSTGRES_URL, "heartsuit_front") as url,
        processes(2, url, origin, tmp_path) as procs,
        nginx_front([p.port for p in procs], tmp_path / "nginx", port=port) as front,
    ):
        yield front, procs


def test_a_table_played_through_nginx_stays_on_one_process_and_survives_its_death(
    site: tuple[Front, list[Process]],
) -> None:
    front, procs = site
    with ExitStack() as stack:
        # the setup and join pages' sockets name no table: any process
        host = seat_at(front, "/ws", stack)
        host.create(mode="online", name="Host")
        table = host.table
        guest = seat_at(front, "/ws", stack)
        guest.sit(table, 1, "Guest")
        assert host.ask("hearts.start", table=table, token=host.token)["type"] == "hearts.state"
        # then each goes to the table page, whose socket names the table (the closed socket lets
        # go of the seat in a moment: until then it is in_use)
        path = f"/ws?table={table}"
        people: list[Seat] = []
        for before in (host, guest):
            before.peer.socket.close()
            person = seat_at(front, path, stack, player=before.peer.player)
            for _ in range(200):
                reply = person.open(table, [before.token])
                if reply.get("code") != "in_use":
                    break
                time.sleep(0.05)
            assert reply["type"] == "hearts.state", reply
            person.seat, person.token, person.state = before.seat, before.token, reply
            people.append(person)
        play_turns(people, 6)

        # both table sockets reached one process, and only that one
        landed = [p for p in procs if p.accepted(path)]
        assert len(landed) == 1, [(p.port, p.accepted(path)) for p in procs]
        assert len(landed[0].accepted(path)) == 2
        victim = landed[0]
        survivor = next(p for p in procs if p is not victim)
        acknowledged = max(p.version for p in people)

        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait()
        # the pages reconnect (through nginx, to the only process left) and open the table
        again: list[Seat] = []
        for before in people:
            with contextlib.suppress(Exception):
                before.peer.socket.close()
            person = seat_at(front, path, stack, player=before.peer.player)
            reply = person.open(table, [before.token], take_over=True)
            assert reply["type"] == "hearts.state", reply
            assert reply["you"] == [before.seat], reply
            person.seat, person.token, person.state = before.seat, before.token, reply
            # nothing acknowledged is lost
            assert person.version >= acknowledged, (person.version, acknowledged)
            again.append(person)
        assert len(survivor.accepted(path)) == 2, survivor.output()[-3000:]
        # the match goes on (the survivor took the dead process's lease and its computers)
        play_turns(again, 6)
        assert min(p.version for p in again) > acknowledged
        log = [entry for entry in again[0].frames if entry.get("type") == "error"]
        assert not log, log


def test_a_clients_forwarded_for_is_not_believed(site: tuple[Front, list[Process]]) -> None:
    front, procs = site
    path = "/ws?table=spoofed"  # one process for every socket here
    sockets: list[Socket] = []
    try:
        # from 127.0.0.5, each socket claiming to be someone else
        for i in range(CONNECTIONS_PER_ADDRESS):
            sock = Socket(front, path, source="127.0.0.5", spoof=f"203.0.113.{i + 1}")
            sockets.append(sock)
            assert Peer(sock).ask("lang", lang="en")["type"] == "lang"  # type: ignore[arg-type]
        # the process counted every one of them against 127.0.0.5: the next is refused
        extra = Socket(front, path, source="127.0.0.5", spoof="198.51.100.7")
        sockets.append(extra)
        try:
            refused = json.loads(extra.ws.recv(timeout=15))
        except TimeoutError:
            pytest.fail("a socket past the limit was let in: its own X-Forwarded-For was believed")
        assert refused["type"] == "error" and refused["code"] == "too_many_connections", refused
        # while another address (nginx's word, believed) still gets in
        other = Socket(front, path, source="127.0.0.6", spoof="203.0.113.1")
        sockets.append(other)
        assert Peer(other).ask("lang", lang="en")["type"] == "lang"  # type: ignore[arg-type]
    finally:
        for sock in sockets:
            with contextlib.suppress(Exception):
                sock.close()
    seen = [address for p in procs for address in p.accepted(path)]
    assert sorted(set(seen)) == ["127.0.0.5", "127.0.0.6"], seen
    assert not any("203.0.113" in p.output() or "198.51.100" in p.output() for p in procs)


def fetch(front: Front, path: str) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(front.url(path), headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return {k.lower(): v for k, v in answer.headers.items()}, answer.read()


def test_pages_and_static_files_arrive_compressed_with_their_cache_headers(
    site: tuple[Front, list[Process]],
) -> None:
    front, _ = site
    headers, body = fetch(front, "/hearts")
    assert headers.get("content-encoding") == "gzip", headers
    page = gzip.decompress(body).decode()
    assert "<html" in page
    assets = re.findall(r'(?:href|src)="(/static/[^"]+\.(?:css|js))"', page)
    assert assets, page[:2000]
    for asset in assets[:3]:
        headers, body = fetch(front, asset)
        assert headers.get("cache-control") == "public, max-age=31536000, immutable", headers
        assert headers.get("content-encoding") == "gzip", (asset, headers)
        assert "accept-encoding" in headers.get("vary", "").lower(), headers
        assert headers.get("etag"), headers
        gzip.decompress(body)  # whole, and compressed once
