"""Several server processes on one database and one Redis: the people at a table may be connected
to different processes, and each hears every change, as in a deployment of several processes.

Each "process" is an app of its own (its own event loop, store connections, caches, Redis bus and
table leases) on the same database and the same real Redis (``HEARTSUIT_TEST_REDIS``; ``./dev
test`` starts a throwaway one, and a throwaway PostgreSQL, ``HEARTSUIT_TEST_POSTGRES``, on which
each test gets a scratch database). One process at a time owns a table by its lease and runs its
computer turns and grace timers; presence is shared, so the owner's grace decision counts the
people connected to every process. A process "killed" here is an app stopped without giving its
leases back or telling Redis it is gone, as a process killed with SIGKILL would leave them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, closing
from pathlib import Path
from typing import Any

import anyio
import pytest

from heartsuit.hearts.driver import computer_action
from heartsuit.server.core.redis_bus import PREFIX
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.hearts.live_table import LiveTable, LogEntry
from heartsuit.server.hearts.service import HeartsService, TableChanged, table_channel
from tests.hearts_support import Seat, play_until_over
from tests.server_process import free_port
from tests.server_support import Peer, Site, running_site, scratch_database

REDIS_URL = os.environ.get("HEARTSUIT_TEST_REDIS", "")
POSTGRES_URL = os.environ.get("HEARTSUIT_TEST_POSTGRES", "")
pytestmark = pytest.mark.skipif(not REDIS_URL, reason="set HEARTSUIT_TEST_REDIS to a redis URL")
needs_postgres = pytest.mark.skipif(
    not POSTGRES_URL, reason="set HEARTSUIT_TEST_POSTGRES to a postgres URL"
)

#: short leases and grace periods, so that a takeover happens within a test
LEASE_MS = 600
GRACE_MS = 500


def postgres_database() -> AbstractContextManager[str]:
    """A URL of a new, empty PostgreSQL database, dropped afterwards."""
    return scratch_database(POSTGRES_URL, "heartsuit_procs")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=needs_postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield sqlite_url(tmp_path / "site.sqlite3")
    else:
        pytest.importorskip("asyncpg")
        with postgres_database() as url:
            yield url


@pytest.fixture
def postgres_url() -> Iterator[str]:
    if not POSTGRES_URL:
        pytest.skip("set HEARTSUIT_TEST_POSTGRES to a postgres URL")
    pytest.importorskip("asyncpg")
    with postgres_database() as url:
        yield url


def site_of(url: str, tmp_path: Path, **options: Any) -> Any:
    options.setdefault("redis_url", REDIS_URL)
    options.setdefault("hearts_lease_ms", LEASE_MS)
    return running_site(tmp_path / "unused.sqlite3", database_url=url, **options)


def person(site: Site, stack: ExitStack) -> Seat:
    peer = stack.enter_context(site.peer())
    peer.ask("lang", lang="en")
    return Seat(peer)


def service(site: Site) -> HeartsService:
    hearts: HeartsService = site.client.app.state.hearts  # type: ignore[attr-defined]
    return hearts


def logged(site: Site, table: str) -> list[LogEntry]:
    """The table's log as the database holds it (read through the site's own store)."""
    store = service(site).store
    portal = site.client.portal
    assert portal is not None
    found = portal.call(store.get_table, table)
    assert found is not None
    return list(found[2])


def actions_of(log: list[LogEntry], seat: int) -> list[LogEntry]:
    return [e for e in log if e.kind == "action" and e.data.get("seat") == seat]


def wait_for(check: Callable[[], bool], what: str, limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


def kill(site: Site) -> None:
    """Make the app's stop leave its leases and its presence to expire (as SIGKILL would)."""
    shared = service(site).shared
    assert shared is not None
    shared.release_on_close = False


# --- tests -------------------------------------------------------------------------------------


def test_people_on_two_processes_play_a_hand_at_one_table(
    database_url: str, tmp_path: Path
) -> None:
    options: dict[str, Any] = {"hearts_pace_ms": 0, "hearts_grace_ms": 600_000}
    with (
        site_of(database_url, tmp_path, **options) as one,
        site_of(database_url, tmp_path, **options) as two,
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
        # both saw the same hand end
        assert host.state["sheet"] == guest.state["sheet"]
        assert len(host.state["sheet"]["hands"]) >= 1
        # one process owns the table (the host's, which created it), and only one
        owners = [s for s in (one, two) if service(s).shared.owns(host.table)]  # type: ignore[union-attr]
        assert owners == [one]
        log = logged(one, host.table)
    assert [e.seq for e in log] == list(range(len(log)))
    assert host.state["table"]["version"] <= len(log)


@pytest.mark.parametrize("timer_ms", [600_000, 300])
def test_between_hands_the_owner_waits_for_people_on_either_process_or_its_timer(
    database_url: str, tmp_path: Path, timer_ms: int
) -> None:
    """The host's process owns the table; the guest says "next hand" on the other one, and the
    owner hears it and lets the computers pass. With a short timer nobody says it, and the
    owner's timer lets them pass."""
    options: dict[str, Any] = {
        "hearts_pace_ms": 0,
        "hearts_grace_ms": 600_000,
        "hearts_next_hand_ms": timer_ms,
    }
    with (
        site_of(database_url, tmp_path, **options) as one,
        site_of(database_url, tmp_path, **options) as two,
        ExitStack() as stack,
    ):
        host = person(one, stack)
        host.create(mode="online", name="Host")
        guest = person(two, stack)
        guest.sit(host.table, 1, "Guest")
        host.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
        host.ask("hearts.start", table=host.table, token=host.token)
        guest.until(lambda s: s["table"]["status"] == "playing")
        play_until_over([host, guest], hands=1)
        for someone in (host, guest):
            someone.until(lambda s: s["public"]["hand_number"] == 1)
        computers_passed = [False, False, True, True]
        if timer_ms > 1000:
            assert guest.state["public"]["next_hand"]["waiting"] == [0, 1]
            guest.ask("hearts.next", table=guest.table, token=guest.token)
            host.until(lambda s: s["public"]["next_hand"]["waiting"] == [0])
            host.ask("hearts.next", table=host.table, token=host.token)
        guest.until(lambda s: s["public"]["passed"] == computers_passed)
        kinds = [e.kind for e in logged(one, host.table)]
        assert kinds.count("ready") == (2 if timer_ms > 1000 else 0)


def test_a_card_played_travels_with_its_notice_and_nothing_hidden_does(
    postgres_url: str, tmp_path: Path
) -> None:
    """Another process applies a card played from its notice, without reading the log; the
    only card a notice names is the one played face up at that version (never a pass's, a
    seed, a token's hash), and the states built from it are those built from the log."""
    options: dict[str, Any] = {"hearts_pace_ms": 0, "hearts_grace_ms": 600_000}
    with (
        site_of(postgres_url, tmp_path, **options) as one,
        site_of(postgres_url, tmp_path, **options) as two,
        ExitStack() as stack,
    ):
        host = person(one, stack)
        host.create(mode="online", name="Host", options={"passing": True})
        table = host.table
        heard: list[TableChanged] = []
        portal = two.client.portal
        assert portal is not None

        done: list[bool] = []

        async def follow() -> None:
            # (it ends by itself once told to: a task still waiting here would hold the
            # site's shutdown)
            async with service(two).bus.listen(table_channel(table)) as queue:
                while not done:
                    with anyio.move_on_after(0.05):
                        notice = await queue.get()
                        if isinstance(notice, TableChanged):
                            heard.append(notice)

        following = portal.start_task_soon(follow)
        guest = person(two, stack)
        guest.sit(table, 1, "Guest")
        host.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
        assert host.ask("hearts.start", table=table, token=host.token)["type"] == "hearts.state"
        guest.until(lambda s: s["table"]["status"] == "playing")
        play_until_over([host, guest], hands=1)
        assert host.state["sheet"] == guest.state["sheet"]
        done.append(True)
        following.result(timeout=10)

        # process two's copy, caught up card by card from the notices, is what the log says
        async def copy_at(version: int) -> LiveTable:
            return await service(two).table(table, at_least=version)

        for _ in range(50):
            log = logged(one, table)
            copy = portal.call(copy_at, len(log))
            if copy.version == len(log):
                break
        fresh = LiveTable.replay(copy.record, copy.seats, log)
        assert copy.version == fresh.version and copy.match and fresh.match
        assert copy.match.actions == fresh.match.actions
        for seat in range(4):
            assert copy.match.view(seat) == fresh.match.view(seat), seat
        assert copy.match.scores == fresh.match.scores
    assert service(two).caught_up_from_notices > 0
    carried = [n for n in heard if n.card]
    assert len(carried) >= 20, heard  # most of a hand's 52 cards were played elsewhere
    for change in heard:
        entry = log[change.version - 1] if change.version >= 1 else None
        if change.card:
            assert entry is not None and entry.kind == "action", change
            assert entry.data == {"type": "play", "seat": change.seat, "card": change.card}
            assert change.at_ms == entry.at_ms and change.entry() == entry
        else:
            assert change.seat == -1 and change.entry() is None, change
    # every kind of entry that is not a card played went without one
    kinds = {log[n.version - 1].kind for n in heard if not n.card and not n.presence}
    assert {"seat", "start"} <= kinds, kinds
    assert any(log[n.version - 1].data.get("type") == "pass" for n in heard if not n.card), (
        "no pass was announced"
    )


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


def test_a_person_on_one_process_is_not_handed_to_a_computer_by_another(
    postgres_url: str, tmp_path: Path
) -> None:
    options: dict[str, Any] = {"hearts_pace_ms": 0, "hearts_grace_ms": GRACE_MS}
    with (
        site_of(postgres_url, tmp_path, **options) as one,
        site_of(postgres_url, tmp_path, **options) as two,
        ExitStack() as stack,
    ):
        host = person(one, stack)
        host.create(mode="online", name="Host")
        table = host.table
        with two.peer() as peer:
            guest = Seat(peer)
            guest.sit(table, 1, "Guest")
            host.until(lambda s: s["table"]["seats"][1]["connected"])
            host.ask("hearts.start", table=table, token=host.token)
            guest.until(lambda s: s["table"]["status"] == "playing")
            token = guest.token
        # the guest's socket on process two closed; they come back on process one at once
        back = person(one, stack)
        reply = back.open(table, [token])
        assert reply["type"] == "hearts.state" and reply["you"] == [1], reply
        # well past the grace period (and two of the owner's presence rounds): the seat is
        # still the guest's, connected, and nobody passed for it
        time.sleep(3 * GRACE_MS / 1000 + 2 * LEASE_MS / 1000)
        assert actions_of(logged(one, table), 1) == []
        state = back.ask("hearts.open", table=table, tokens=[token])
        assert state["type"] == "hearts.state", state
        seat = state["table"]["seats"][1]
        assert seat["kind"] == "human" and seat["connected"] and not seat["away"], seat
        assert 1 in state["awaiting"]
        # and when the guest really goes, the grace period ends and a computer passes for them
        back.peer.socket.close()
        host.until(lambda s: s["table"]["seats"][1]["away"])
        wait_for(lambda: len(actions_of(logged(one, table), 1)) == 1, "the computer's pass")


def test_a_seat_is_held_once_across_processes_and_taken_over_on_request(
    postgres_url: str, tmp_path: Path
) -> None:
    with (
        site_of(postgres_url, tmp_path, hearts_pace_ms=0) as one,
        site_of(postgres_url, tmp_path, hearts_pace_ms=0) as two,
        ExitStack() as stack,
    ):
        me = person(one, stack)
        me.create(mode="computer")
        elsewhere = person(two, stack)
        refused = elsewhere.open(me.table, [me.token])
        assert refused["type"] == "error" and refused["code"] == "in_use", refused
        taken = elsewhere.open(me.table, [me.token], take_over=True)
        assert taken["type"] == "hearts.state" and taken["you"] == [0], taken
        for _ in range(50):
            message = me.receive()
            if message.get("type") == "error":
                assert message["code"] == "taken_over", message
                break
        else:
            raise AssertionError("the socket on the first process was not told")


def test_when_the_owner_dies_another_process_takes_its_tables_over(
    postgres_url: str, tmp_path: Path
) -> None:
    # process two plays its computers at once; process one slowly, so that they are still
    # thinking when it dies
    with site_of(postgres_url, tmp_path, hearts_pace_ms=0) as two:
        with ExitStack() as dying:
            one = dying.enter_context(site_of(postgres_url, tmp_path, hearts_pace_ms=600_000))
            with one.peer() as peer:
                host = Seat(peer)
                host.create(mode="online", name="Host", options={"passing": True})
                table, token = host.table, host.token
                host.ask("hearts.start", table=table, token=token)
                host.until(lambda s: s["table"]["status"] == "playing" and host.my_turn(s))
                passed = host.act()
                # a pass that is not the hand's last is answered by a patch, else a whole state
                assert passed["type"] in ("hearts.state", "hearts.patch"), passed
                assert not host.state["view"]["must_pass"], host.state
                at_death = host.version
            assert service(one).shared.owns(table)  # type: ignore[union-attr]
            assert not service(two).shared.owns(table)  # type: ignore[union-attr]
            assert actions_of(logged(two, table), 2) == []  # the computers had not passed
            kill(one)
        # the host comes back on process two, which takes the table over once the dead
        # process's lease expired: the computers pass and play on until the host's turn
        with two.peer() as peer:
            again = Seat(peer)
            reply = again.open(table, [token])
            assert reply["type"] == "hearts.state", reply
            again.until(lambda s: s["table"]["version"] >= at_death + 3 and again.my_turn(s))
        assert service(two).shared.owns(table)  # type: ignore[union-attr]
        log = logged(two, table)
    assert [e.seq for e in log] == list(range(len(log)))
    for seat in (1, 2, 3):
        assert len(actions_of(log, seat)) >= 1, seat


# --- a turn logged but never announced ---------------------------------------------------------


def play_silently(site: Site, table: str) -> int:
    """Log the computers' turns until a person's, through the store alone, announcing nothing:
    what the owner leaves when it dies (or its write is cancelled) between its commit and its
    notice. Returns the version the log is then at."""
    store = service(site).store
    portal = site.client.portal
    assert portal is not None
    found = portal.call(store.get_table, table)
    assert found is not None
    live = LiveTable.replay(*found)
    written = 0
    while (awaited := live.awaiting()) and all(live.seats[s].kind == "computer" for s in awaited):
        action = computer_action(live.match, awaited[0], "easy", f"{table}/0")  # type: ignore[arg-type]
        entry = live.entry("action", action.to_dict(), 0)
        live.apply(entry)
        portal.call(store.append, live.record, entry, [])
        written += 1
    assert (
        written >= 1
        and live.awaiting()
        and all(live.seats[s].kind == "human" for s in live.awaiting())
    ), live.awaiting()
    return live.version


def listening(site: Site, table: str, limit_s: float) -> Callable[[int], bool]:
    """Follow the table's channel on ``site`` from now on; the function returned says whether
    a notice of the given version (or later) came within ``limit_s`` of now."""
    portal = site.client.portal
    assert portal is not None
    want: list[int] = []
    heard: list[int] = []
    ready = threading.Event()

    async def follow() -> bool:
        async with service(site).bus.listen(table_channel(table)) as queue:
            ready.set()
            with anyio.move_on_after(limit_s):
                while not (want and heard and max(heard) >= want[0]):
                    with anyio.move_on_after(0.05):
                        notice = await queue.get()
                        if isinstance(notice, TableChanged):
                            heard.append(notice.version)
                return True
        return False

    future = portal.start_task_soon(follow)
    assert ready.wait(10)

    def came(version: int) -> bool:
        want.append(version)
        return future.result(timeout=limit_s + 10)

    return came


def test_a_turn_logged_by_a_dead_owner_but_never_announced_reaches_the_people(
    postgres_url: str, tmp_path: Path
) -> None:
    """The rare stall of the chaos bench: the owner logged computer turns and died (or had
    its write cancelled on losing its lease) before announcing them. The log then awaits a
    person whose page still shows a computer's turn; the process that takes the table over
    announces the version it replayed (or, sooner, a process whose socket sits at the table
    finds its copy behind the log), so the person hears it is their turn."""
    with site_of(postgres_url, tmp_path, hearts_pace_ms=0) as two:
        with ExitStack() as dying:
            # the owner's computers think forever: every computer turn below is "its" write
            one = dying.enter_context(site_of(postgres_url, tmp_path, hearts_pace_ms=600_000))
            with one.peer() as peer:
                host = Seat(peer)
                host.create(mode="computer", options={"passing": True})
                table, token = host.table, host.token
            assert service(one).shared.owns(table)  # type: ignore[union-attr]
            kill(one)
        # the dead owner's lease outlives it (here by 8 s, long enough for the steps below on
        # a loaded machine; a lease renewed just before a kill does by up to one lease), and
        # its last turns land in the log meanwhile
        client = pytest.importorskip("redis").Redis.from_url(REDIS_URL)
        try:
            assert client.pexpire(f"{PREFIX}lease:{table}", 8000)
        finally:
            client.close()
        with two.peer() as peer:
            me = Seat(peer)
            opened = me.open(table, [token], take_over=True)
            assert opened["type"] == "hearts.state", opened
            me.until(me.my_turn)
            passed = me.act()  # the person passes; the computers' passes are the owner's
            assert passed["type"] in ("hearts.state", "hearts.patch"), passed
            assert not me.my_turn(), me.state
            seen = me.version
            came = listening(two, table, 30.0)
            logged_at = play_silently(two, table)
            assert logged_at > seen
            assert came(logged_at), "nobody announced the turns the dead owner logged"
            state = me.until(lambda s: s["table"]["version"] >= logged_at)
            assert me.my_turn(state), state
        # (the process the person is on may announce them before it takes the table over:
        # it follows the table, and its copy stayed behind the log for a round)
        wait_for(lambda: bool(service(two).shared.owns(table)), "the takeover")  # type: ignore[union-attr]


def test_a_turn_logged_but_never_announced_is_announced_by_the_living_owner(
    postgres_url: str, tmp_path: Path
) -> None:
    """The same gap while the owner lives on (a turn's write cancelled after its commit, or a
    notice lost): the owner's next round finds the log past every version announced and
    announces it."""
    with (
        site_of(postgres_url, tmp_path, hearts_pace_ms=600_000) as one,
        site_of(postgres_url, tmp_path, hearts_pace_ms=0) as two,
        ExitStack() as stack,
    ):
        host = person(one, stack)
        host.create(mode="computer", options={"passing": True})
        table = host.table
        me = person(two, stack)
        assert me.open(table, [host.token], take_over=True)["type"] == "hearts.state"
        me.until(me.my_turn)
        passed = me.act()
        assert passed["type"] in ("hearts.state", "hearts.patch"), passed
        assert not me.my_turn(), me.state
        came = listening(two, table, 20.0)
        logged_at = play_silently(two, table)
        assert came(logged_at), "the owner did not announce the turns logged behind its back"
        assert me.my_turn(me.until(lambda s: s["table"]["version"] >= logged_at))
        assert service(one).shared.owns(table)  # type: ignore[union-attr]


def test_a_table_opened_where_its_copy_went_stale_is_shown_as_logged(
    postgres_url: str, tmp_path: Path
) -> None:
    """A process keeps its copy of a table after it stops following it (its sockets left, or
    it lost the table's lease); a person who reconnects there must get the table as logged,
    not that copy, or their page waits for a turn that has moved on to them."""
    # a lease that outlasts a loaded machine's pauses: the second process must never take the
    # table over here (it would then update its copy), only be opened on
    lease_ms = 60_000
    with (
        site_of(postgres_url, tmp_path, hearts_pace_ms=0, hearts_lease_ms=lease_ms) as one,
        site_of(postgres_url, tmp_path, hearts_pace_ms=0, hearts_lease_ms=lease_ms) as two,
        ExitStack() as stack,
    ):
        host = person(one, stack)
        host.create(mode="computer", options={"passing": True})
        table = host.table
        portal = two.client.portal
        assert portal is not None
        stale = portal.call(service(two).table, table).version  # a copy nobody updates
        # the computers pass first: then the person's is the last pass (the exchange), answered
        # with the whole state; a pass before theirs would be answered with a patch
        host.until(lambda s: host.my_turn(s) and list(s["awaiting"]) == [host.seat])
        assert host.act()["type"] == "hearts.state"  # the person passes; the computers go on
        now = host.until(lambda s: host.my_turn(s) and s["table"]["version"] > stale + 1)
        assert portal.call(service(two).table, table).version == stale
        back = person(two, stack)
        opened = back.open(table, [host.token], take_over=True)
        assert opened["type"] == "hearts.state", opened
        assert opened["table"]["version"] == now["table"]["version"], (opened, now)
        assert back.my_turn(opened)


# --- entries that leave a table with no owner, logged but never announced ---------------------


def log_silently(site: Site, table: str, done: Callable[[LiveTable], bool]) -> int:
    """Log every awaited seat's turn (people's too, as the engine's easy computer would play
    them) through the store alone until ``done``: what a writer leaves when it dies between
    its commits and its notices. Returns the version the log is then at."""
    store = service(site).store
    portal = site.client.portal
    assert portal is not None
    found = portal.call(store.get_table, table)
    assert found is not None
    live = LiveTable.replay(*found)
    for _ in range(2000):
        if done(live):
            return live.version
        awaited = live.awaiting()
        assert awaited, live.status
        action = computer_action(live.match, awaited[0], "easy", f"{table}/{live.match_no}")  # type: ignore[arg-type]
        entry = live.entry("action", action.to_dict(), 0)
        live.apply(entry)
        portal.call(store.append, live.record, entry, [])
    raise AssertionError("the table never got there")


def log_entry_silently(site: Site, table: str, kind: str, data: dict[str, Any]) -> int:
    """Log one entry (a rematch, a seat changing hands) through the store alone."""
    store = service(site).store
    portal = site.client.portal
    assert portal is not None
    found = portal.call(store.get_table, table)
    assert found is not None
    live = LiveTable.replay(*found)
    entry = live.entry(kind, data, 0)  # type: ignore[arg-type]
    live.apply(entry)
    changed = [live.seats[int(data["seat"])]] if kind == "seat" else []
    portal.call(store.append, live.record, entry, changed)
    return live.version


def test_the_end_of_a_match_and_its_rematch_logged_by_a_dead_writer_reach_the_people(
    postgres_url: str, tmp_path: Path
) -> None:
    """A finished table is nobody's (its owner gives its lease back, and processes look for
    tables without an owner only among those under way), so the owner's "announce what the
    log holds past the last version announced" never covers the entry that ends a match: a
    writer that died between committing it and announcing it left the people waiting for a
    turn already played, and the rematch out of reach. Every process now also compares the
    log with its copy of the tables its sockets sit at and announces what nobody did."""
    with site_of(postgres_url, tmp_path, hearts_pace_ms=0) as two:
        with ExitStack() as dying:
            one = dying.enter_context(site_of(postgres_url, tmp_path, hearts_pace_ms=600_000))
            with one.peer() as peer:
                host = Seat(peer)
                host.create(mode="computer", options={"passing": False, "target": 1})
                table, token = host.table, host.token
            assert service(one).shared.owns(table)  # type: ignore[union-attr]
            kill(one)
        # the dead owner's lease outlives it long enough for the whole hand to be logged while
        # the table is under way (nobody else may take it over and announce it meanwhile)
        client = pytest.importorskip("redis").Redis.from_url(REDIS_URL)
        try:
            assert client.pexpire(f"{PREFIX}lease:{table}", 20_000)
            with two.peer() as peer:
                me = Seat(peer)
                assert me.open(table, [token], take_over=True)["type"] == "hearts.state"
                came = listening(two, table, 15.0)
                ended_at = log_silently(two, table, lambda live: live.status == "over")
                assert ended_at > me.version
                assert came(ended_at), "nobody announced the end of the match"
                over = me.until(lambda s: s["table"]["version"] >= ended_at)
                assert over["over"] is not None and over["table"]["status"] == "over", over
                assert not service(two).shared.owns(table)  # type: ignore[union-attr]
                # the rematch a person asked for on a process that died before announcing it
                client.delete(f"{PREFIX}lease:{table}")
                came = listening(two, table, 15.0)
                again_at = log_entry_silently(two, table, "rematch", {"seed": 12345})
                assert came(again_at), "nobody announced the rematch"
                state = me.until(lambda s: s["table"]["version"] >= again_at)
                assert state["table"]["status"] == "playing" and state["over"] is None, state
                # and its computers play on, on their new owner, until the person's turn
                me.until(lambda s: me.my_turn(s) and s["over"] is None)
        finally:
            client.close()
        assert service(two).shared.owns(table)  # type: ignore[union-attr]


def test_a_seat_taken_in_a_lobby_by_a_dead_writer_reaches_the_people(
    postgres_url: str, tmp_path: Path
) -> None:
    """A lobby is not under way either, so its owner's death leaves it with none: a person
    who sat down (or was freed by the host, or left) on a process that died before announcing
    it must still reach the others' pages."""
    with site_of(postgres_url, tmp_path, hearts_pace_ms=0) as two, ExitStack() as stack:
        with ExitStack() as dying:
            one = dying.enter_context(site_of(postgres_url, tmp_path))
            with one.peer() as peer:
                host = Seat(peer)
                host.create(mode="online", name="Host")
                table = host.table
                guest = person(two, stack)
                guest.sit(table, 1, "Guest")
            assert service(one).shared.owns(table)  # type: ignore[union-attr]
            kill(one)
        came = listening(two, table, 15.0)
        seated_at = log_entry_silently(
            two, table, "seat", {"seat": 2, "kind": "human", "name": "Ghost", "level": None}
        )
        assert seated_at > guest.version
        assert came(seated_at), "nobody announced the seat taken"
        state = guest.until(lambda s: s["table"]["version"] >= seated_at)
        assert state["table"]["seats"][2]["name"] == "Ghost", state["table"]["seats"]


def test_a_seat_handed_to_a_computer_by_a_dead_owner_is_shown_away(
    postgres_url: str, tmp_path: Path
) -> None:
    """A grace period that ends changes no log entry: the owner marks the seat away in Redis
    and announces it. An owner that died between the two left the seat away with nobody told;
    the process that takes the table over announces presence too, so the others see it."""
    with site_of(postgres_url, tmp_path, hearts_pace_ms=0) as two, ExitStack() as stack:
        with ExitStack() as dying:
            one = dying.enter_context(
                site_of(postgres_url, tmp_path, hearts_pace_ms=0, hearts_grace_ms=600_000)
            )
            with one.peer() as peer:
                host = Seat(peer)
                host.create(mode="online", name="Host", options={"passing": False})
                table = host.table
                guest = person(two, stack)
                guest.sit(table, 1, "Guest")
                host.ask("hearts.start", table=table, token=host.token)
                # the host plays until it is the guest's turn (the computers play their own)
                while 1 not in host.until(lambda s: bool(set(s["awaiting"]) & {0, 1}))["awaiting"]:
                    assert host.act()["type"] in ("hearts.state", "hearts.patch")
            guest.until(lambda s: 1 in s["awaiting"] and not s["table"]["seats"][0]["connected"])
            assert service(one).shared.owns(table)  # type: ignore[union-attr]
            kill(one)
        client = pytest.importorskip("redis").Redis.from_url(REDIS_URL)
        try:
            # the dead owner's grace timer marked the host away, and it died before telling
            assert client.pexpire(f"{PREFIX}lease:{table}", 10_000)
            portal = two.client.portal
            assert portal is not None
            portal.call(service(two).shared.mark_away, table, 0)  # type: ignore[union-attr]
            client.delete(f"{PREFIX}lease:{table}")
        finally:
            client.close()
        wait_for(lambda: bool(service(two).shared.owns(table)), "the takeover")  # type: ignore[union-attr]
        time.sleep(1.0)
        # a question answered after what was pushed meanwhile (so that this cannot hang)
        assert guest.ask("lang", lang="en")["type"] != "error"
        assert guest.state["table"]["seats"][0]["away"], guest.state["table"]["seats"]
        assert 1 in guest.state["awaiting"], guest.state


# --- heartsuit serve --workers N ---------------------------------------------------------------


class _Socket:
    """A real WebSocket client with the two methods :class:`Peer` uses of Starlette's."""

    def __init__(self, port: int) -> None:
        from websockets.sync.client import connect

        self._open = ExitStack()
        self.ws = self._open.enter_context(connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10))

    def send_text(self, data: str) -> None:
        self.ws.send(data)

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=20))

    def close(self) -> None:
        self._open.close()


def workers_of(parent: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == parent and fields[0] != "Z":
                    found.add(int(entry.name))
    return found


def below(parent: int) -> set[int]:
    """Every live process under ``parent``: its children, theirs, and so on."""
    found = set()
    todo = [parent]
    while todo:
        children = workers_of(todo.pop())
        found |= children
        todo += children
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent does not)."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def healthy(port: int) -> bool:
    with (
        contextlib.suppress(OSError),
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer,
    ):
        return bool(answer.read() == b"ok")
    return False


def test_serve_with_workers_runs_them_restarts_a_dead_one_and_stops_them_all(
    postgres_url: str, tmp_path: Path
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": postgres_url,
        "REDIS_URL": REDIS_URL,
        "HEARTSUIT_HEARTS_PACE_MS": "0",
        "HEARTSUIT_HEARTS_LEASE_MS": str(LEASE_MS),
        # each serving process thinks for its computers in a worker process of its own
        "HEARTSUIT_HEARTS_THINKERS": "1",
    }
    out = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "heartsuit", "serve", "--workers", "2", "--port", str(port)],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    sockets: list[_Socket] = []
    try:
        wait_for(lambda: healthy(port) and len(workers_of(server.pid)) == 2, "two workers")
        first = workers_of(server.pid)
        # a table with two people, whichever workers their sockets landed on
        host_socket, guest_socket = _Socket(port), _Socket(port)
        sockets += [host_socket, guest_socket]
        host, guest = Seat(Peer(host_socket)), Seat(Peer(guest_socket))  # type: ignore[arg-type]
        host.peer.hello()
        guest.peer.hello()
        host.create(mode="online", name="Host")
        guest.sit(host.table, 1, "Guest")
        host.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
        assert host.ask("hearts.start", table=host.table, token=host.token)["type"] == (
            "hearts.state"
        )
        guest.until(lambda s: s["table"]["status"] == "playing")
        # each serving process has its thinking workers (and the forkserver they come from),
        # and computers thinking there play a hand against a person, on whichever process
        wait_for(lambda: all(below(pid) for pid in first), "each process's thinking workers")
        solo_socket = _Socket(port)
        sockets.append(solo_socket)
        solo = Seat(Peer(solo_socket))  # type: ignore[arg-type]
        solo.peer.hello()
        solo.create(mode="computer", name="Solo")
        play_until_over([solo], hands=1)
        # a worker killed outright is replaced, its thinking workers leave with it; the site
        # answers throughout
        victim = min(first)
        thinkers = below(victim)
        os.kill(victim, signal.SIGKILL)

        def replaced() -> bool:
            # one look at the children: two looks (one counting two, the next missing the
            # victim) pass while the victim is still dying, before any worker replaced it
            now = workers_of(server.pid)
            return len(now) == 2 and victim not in now and bool(now - first)

        wait_for(replaced, "a new worker in place of the killed one")
        wait_for(lambda: not any(map(alive, thinkers)), "the dead process's thinking workers gone")
        assert healthy(port)
        # SIGTERM stops the supervisor and every worker, and every thinking worker
        everyone = below(server.pid)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        assert workers_of(server.pid) == set()
        wait_for(lambda: not any(map(alive, everyone)), "every thinking worker stopped", 10)
    finally:
        for sock in sockets:
            with contextlib.suppress(Exception):
                sock.close()
        if server.poll() is None:
            server.kill()
            server.wait()
        out.close()
    text_out = (tmp_path / "serve.log").read_text(errors="replace")
    assert "starting another" in text_out, text_out


def test_serve_refuses_workers_without_redis(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "heartsuit", "serve", "--workers", "3", "--db", str(tmp_path / "x")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "REDIS_URL" in done.stdout


# --- chaos, short ------------------------------------------------------------------------------


def test_chaos_kills_lose_no_acknowledged_action_keep_every_seat_and_stall_no_table(
    tmp_path: Path,
) -> None:
    """``bench/chaos.py`` in small: three processes, two kills (SIGKILL, restarted); it exits
    non-zero if an acknowledged action is missing from the log; every reconnect must get its
    seat back, and every table must move on after each kill and never stand still for long
    (15 s: its people act within 0.6 s and its computers within a pace, and a dead owner's
    tables get a new one within about two leases of 1 s, so only a stall comes near it, on a
    loaded machine too). Other timings are the bench's figures."""
    if not POSTGRES_URL:
        pytest.skip("set HEARTSUIT_TEST_POSTGRES to a postgres URL")
    bench = Path(__file__).resolve().parent.parent / "bench" / "chaos.py"
    done = subprocess.run(
        [
            *(sys.executable, str(bench), "--kills", "2", "--tables", "3", "--solitaire", "3"),
            *("--every", "3:4", "--warmup", "3", "--after", "5", "--seed", "7", "--stall", "15"),
        ],
        capture_output=True,
        text=True,
        timeout=280,
        env={
            **os.environ,
            "HEARTSUIT_TEST_POSTGRES": POSTGRES_URL,
            "HEARTSUIT_TEST_REDIS": REDIS_URL,
        },
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "(0 NOT in the log)" in out and "moves (0 NOT in the log)" in out, out
    assert out.count("killed server") == 2, out
    assert ", lost 0;" in out, out
    assert "table-kills; 0 never moved on)" in out, out
    assert "stalls (a wait over 15 s): 0" in out, out
