"""Between hands over /ws: the computers wait for "next hand", online a timer goes on without
those who did not say it, and both live in the table's log (a restart keeps the wait).

Every table here plays its first hand to the end (the people play their first legal card),
then looks at the second hand's passing: a computer that passed went on, one that did not
waits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.hearts_support import Seat, play_until_over, table_log
from tests.server_support import Site, running_site


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    # a timer between hands that no test waits out unless it means to
    with running_site(
        tmp_path / "site.sqlite3", hearts_pace_ms=0, hearts_grace_ms=50, hearts_next_hand_ms=60_000
    ) as s:
        yield s


def seat(site: Site, stack: ExitStack) -> Seat:
    peer = stack.enter_context(site.peer())
    peer.ask("lang", lang="en")
    return Seat(peer)


def kinds(site: Site, table: str) -> list[str]:
    return [entry.kind for entry in table_log(site.db_path, table)[2]]


def computer_passes(site: Site, table: str, hand_start: int) -> int:
    """How many passes of computer seats the log holds after entry ``hand_start``."""
    _, seats, entries = table_log(site.db_path, table)
    return sum(
        1
        for e in entries[hand_start:]
        if e.kind == "action"
        and e.data["type"] == "pass"
        and seats[e.data["seat"]].kind == "computer"
    )


def settle(person: Seat) -> None:
    """A few round trips: a computer turn that was due has been played by then (pace 0)."""
    for _ in range(3):
        reply = person.ask("hearts.open", table=person.table, tokens=[person.token])
        assert reply["type"] == "hearts.state", reply


def first_hand(person: Seat, **fields: Any) -> dict[str, Any]:
    person.create(mode="computer", **fields)
    play_until_over([person], hands=1)
    return person.until(lambda s: s["public"]["hand_number"] == 1)


def test_the_computers_wait_for_next_hand_against_the_computer(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        state = first_hand(me)
        between = state["public"]["next_hand"]
        assert between == {"hand": 1, "waiting": [0], "deadline_ms": None, "timer_ms": None}
        start = len(kinds(site, me.table))
        settle(me)
        assert computer_passes(site, me.table, start) == 0
        assert me.state["public"]["passed"] == [False] * 4
        reply = me.ask("hearts.next", table=me.table, token=me.token)
        assert reply["type"] in ("hearts.state", "hearts.patch"), reply
        assert me.state["public"]["next_hand"] is None
        assert kinds(site, me.table)[start] == "ready"
        me.until(lambda s: s["public"]["passed"] == [False, True, True, True])
        assert computer_passes(site, me.table, start) == 3
        # said again, when nobody waits: nothing changes, no error
        version = me.version
        again = me.ask("hearts.next", table=me.table, token=me.token)
        assert again["type"] in ("hearts.state", "hearts.patch") and me.version == version


def test_a_person_who_plays_on_is_ready(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        state = first_hand(me)
        assert state["public"]["next_hand"]["waiting"] == [0]
        start = len(kinds(site, me.table))
        reply = me.act()  # the second hand's pass, without "next hand"
        assert reply["type"] in ("hearts.state", "hearts.patch"), reply
        me.until(lambda s: s["public"]["passed"] == [True] * 4 or s["public"]["phase"] == "play")
        assert "ready" not in kinds(site, me.table)[start:]
        assert me.state["public"]["next_hand"] is None


def test_the_wait_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    with running_site(db, hearts_pace_ms=0) as site, ExitStack() as stack:
        me = seat(site, stack)
        first_hand(me)
        table, token = me.table, me.token
        start = len(kinds(site, table))
    with running_site(db, hearts_pace_ms=0) as site, ExitStack() as stack:
        me = seat(site, stack)
        reply = me.open(table, [token])
        assert reply["public"]["next_hand"]["waiting"] == [0]
        settle(me)
        assert computer_passes(site, table, start) == 0  # the restart played no computer turn
        me.ask("hearts.next", table=table, token=token)
        me.until(lambda s: s["public"]["passed"] == [False, True, True, True])


def online(site: Site, stack: ExitStack) -> list[Seat]:
    """Two people and two computers online, the first hand played."""
    host = seat(site, stack)
    host.create(mode="online", name="Host")
    guest = seat(site, stack)
    guest.sit(host.table, 1, "Guest")
    started = host.ask("hearts.start", table=host.table, token=host.token)
    assert started["table"]["status"] == "playing", started
    play_until_over([host, guest], hands=1)
    for person in (host, guest):
        person.until(lambda s: s["public"]["hand_number"] == 1)
    return [host, guest]


def test_online_each_person_confirms(site: Site) -> None:
    with ExitStack() as stack:
        host, guest = online(site, stack)
        between = guest.state["public"]["next_hand"]
        assert between["waiting"] == [0, 1] and between["timer_ms"] == 60_000
        ended = table_log(site.db_path, host.table)[2][-1].at_ms
        assert between["deadline_ms"] == ended + 60_000
        start = len(kinds(site, host.table))
        host.ask("hearts.next", table=host.table, token=host.token)
        guest.until(lambda s: s["public"]["next_hand"]["waiting"] == [1])
        settle(guest)
        assert computer_passes(site, host.table, start) == 0  # the guest is still waited for
        guest.ask("hearts.next", table=guest.table, token=guest.token)
        host.until(lambda s: s["public"]["passed"] == [False, False, True, True])
        assert host.state["public"]["next_hand"] is None


def test_online_the_timer_goes_on_without_those_who_did_not_confirm(tmp_path: Path) -> None:
    with (
        running_site(
            tmp_path / "site.sqlite3", hearts_pace_ms=0, hearts_next_hand_ms=200
        ) as site,
        ExitStack() as stack,
    ):
        host, guest = online(site, stack)
        assert guest.state["public"]["next_hand"]["timer_ms"] == 200
        # nobody says "next hand": the computers pass once the timer is over
        guest.until(lambda s: s["public"]["passed"][2:] == [True, True])
        assert "ready" not in kinds(site, host.table)


def test_bad_next_hand_and_pace_intents_change_nothing(site: Site) -> None:
    with ExitStack() as stack:
        host, guest = online(site, stack)
        before = len(kinds(site, host.table))
        wrong = guest.ask("hearts.next", table=host.table, token=host.token)
        assert wrong["type"] == "error" and wrong["code"] == "not_open"
        unknown = guest.ask("hearts.next", table=host.table, token="x" * 32)
        assert unknown["type"] == "error" and unknown["code"] == "bad_token"
        pace = guest.ask("hearts.pace", table=guest.table, token=guest.token, pace="fast")
        assert pace["type"] == "error" and pace["code"] == "not_host"
        odd = host.ask("hearts.pace", table=host.table, token=host.token, pace="warp")
        assert odd["type"] == "error" and odd["code"] == "bad_message"
        assert len(kinds(site, host.table)) == before
        assert guest.state["public"]["next_hand"]["waiting"] == [0, 1]


def test_the_pace_is_chosen_at_creation_and_changed_in_the_log(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer", pace="slow")
        assert me.state["table"]["pace"] == "slow"
        reply = me.ask("hearts.pace", table=me.table, token=me.token, pace="fast")
        assert reply["type"] == "hearts.state" and reply["table"]["pace"] == "fast", reply
        # the computers may pass meanwhile (they decide outside the table's lock): count the
        # pace entries, not the versions
        logged = kinds(site, me.table)
        assert logged[:2] == ["pace", "start"] and logged.count("pace") == 2
        same = me.ask("hearts.pace", table=me.table, token=me.token, pace="fast")
        assert same["type"] in ("hearts.state", "hearts.patch")
        assert kinds(site, me.table).count("pace") == 2  # the same pace again logs nothing
