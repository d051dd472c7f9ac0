"""``GET /api/hearts/stats`` over the real site: pages play over ``/ws`` (each a player of its
own), and each player's figures come back by the player header, counted for the seat their
page holds in every mode: against the computer, one device, online."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.hearts_support import Seat, play_until_over
from tests.server_support import Site, running_site

HEADER = "X-Heartsuit-Player"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with running_site(tmp_path / "site.sqlite3", hearts_pace_ms=0, hearts_grace_ms=50) as s:
        yield s


def person(site: Site, stack: ExitStack) -> Seat:
    peer = stack.enter_context(site.peer())
    peer.ask("lang", lang="en")
    return Seat(peer)


def stats(site: Site, player: str | None) -> dict[str, Any]:
    headers = {HEADER: player} if player is not None else {}
    answer = site.client.get("/api/hearts/stats", headers=headers)
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    body: dict[str, Any] = answer.json()
    return body


def test_a_match_against_the_computer_and_one_left_are_each_players_own(site: Site) -> None:
    with ExitStack() as stack:
        ana = person(site, stack)
        ana.create(mode="computer", options={"target": 1})
        play_until_over([ana])
        sheet = ana.state["sheet"]["hands"]
        won = ana.seat in ana.state["over"]["winners"]
        budi = person(site, stack)
        budi.create(mode="computer", preset="three")
        budi.until(lambda s: budi.my_turn(s))
        left = budi.ask("hearts.leave", table=budi.table, token=budi.token)
        assert left["type"] == "hearts.state"

        mine = stats(site, ana.peer.player)
        assert mine["overall"]["matches"] == 1 and mine["overall"]["left"] == 0
        assert (mine["overall"]["won"], mine["overall"]["lost"]) == ((1, 0) if won else (0, 1))
        assert mine["overall"]["hands"] == len(sheet)
        assert mine["overall"]["points"] == sum(points[0] for points in sheet)
        assert [g["preset"] for g in mine["by_preset"]] == ["standard"]
        assert mine["best"] is not None and mine["best"]["preset"] == "standard"

        theirs = stats(site, budi.peer.player)
        assert theirs["overall"]["matches"] == theirs["overall"]["left"] == 1
        assert theirs["overall"]["won"] == theirs["overall"]["lost"] == 0
        assert [g["preset"] for g in theirs["by_preset"]] == ["three"]
        assert theirs["best"] is None


def test_online_each_friend_counts_their_own_seat(site: Site) -> None:
    with ExitStack() as stack:
        host = person(site, stack)
        host.create(mode="online", name="Host", options={"target": 1})
        guest = person(site, stack)
        guest.sit(host.table, 1, "Guest")
        started = host.ask("hearts.start", table=host.table, token=host.token)
        assert started["type"] == "hearts.state"
        play_until_over([host, guest])
        winners = host.state["over"]["winners"]
        for who in (host, guest):
            overall = stats(site, who.peer.player)["overall"]
            assert overall["matches"] == 1
            assert overall["won"] == int(who.seat in winners)


def test_one_device_counts_once_for_the_first_seat(site: Site) -> None:
    with ExitStack() as stack:
        device = person(site, stack)
        created = device.ask(
            "hearts.create",
            mode="hotseat",
            options={"target": 1, "passing": False},
            seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "computer"},
                   {"kind": "computer"}],
        )  # fmt: skip
        assert created["type"] == "hearts.created" and len(created["tokens"]) == 2
        device.table = created["table"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        opened = device.open(device.table, list(tokens.values()))
        assert opened["type"] == "hearts.state"
        assert device.peer.player  # one player id for both people at the device
        counting = site.client.app.state.hearts.counting  # type: ignore[attr-defined]
        claims = site.client.portal.call(counting.store.claims, device.table)  # type: ignore[union-attr]
        assert claims == {0: device.peer.player}


def test_no_player_or_a_bad_one_has_no_figures(site: Site) -> None:
    for player in (None, "", "short", "not a player id at all!", "x" * 65):
        body = stats(site, player)
        assert body["overall"]["matches"] == 0 and body["by_preset"] == []
        assert body["best"] is None and body["worst"] is None
    # the id is never read from the URL (access logs keep URLs)
    with ExitStack() as stack:
        ana = person(site, stack)
        ana.create(mode="computer", options={"target": 1})
        play_until_over([ana])
        by_url = site.client.get("/api/hearts/stats", params={"player": ana.peer.player})
        assert by_url.json()["overall"]["matches"] == 0
