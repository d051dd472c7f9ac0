"""Hearts over /ws: each message, each mode, and every kind of bad input refused cleanly.

A refused message gets an ``error`` with the right code, changes nothing (the table's version
and log stay as they were), and the connection stays open.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from heartsuit.server.hearts.endpoint import HeartsSession
from heartsuit.server.hearts.frames import PATCHED_FIELDS
from tests.hearts_support import Seat, play_until_over, table_log
from tests.server_support import SendNow, Site, running_site


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with running_site(tmp_path / "site.sqlite3", hearts_pace_ms=0, hearts_grace_ms=50) as s:
        yield s


@pytest.fixture(params=["asgi", "at-once", "refused"])
def any_site(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Site]:
    """The site with each way a frame can leave: through the ASGI send only (TestClient), also
    written at once (as under ``heartsuit serve``: pushes then skip the queue and its task),
    and at once but always declined (as with a full outgoing buffer: every push falls back)."""
    send_now = None if request.param == "asgi" else SendNow()
    if send_now is not None:
        send_now.refuse = request.param == "refused"
    with running_site(
        tmp_path / "site.sqlite3", hearts_pace_ms=0, hearts_grace_ms=50, send_now=send_now
    ) as s:
        yield s


def seat(site: Site, stack: ExitStack, lang: str = "en") -> Seat:
    peer = stack.enter_context(site.peer())
    peer.ask("lang", lang=lang)
    return Seat(peer)


def online_table(site: Site, stack: ExitStack, people: int = 4, **fields: Any) -> list[Seat]:
    """An online table with ``people`` persons seated (seat 0 is the host), started."""
    host = seat(site, stack)
    host.create(mode="online", name="Host", **fields)
    invite = host.state["table"]["invite"]
    seats = [host]
    for number in range(1, people):
        guest = seat(site, stack)
        lobby = guest.ask("hearts.invite", invite=invite.lower())
        assert lobby["type"] == "hearts.lobby"
        guest.sit(host.table, number, f"Guest {number}")
        seats.append(guest)
    started = host.ask("hearts.start", table=host.table, token=host.token)
    assert started["type"] == "hearts.state", started
    assert started["table"]["status"] == "playing"
    return seats


def log_length(site: Site, table: str) -> int:
    return len(table_log(site.db_path, table)[2])


# --- against the computer ---------------------------------------------------------------------


def test_against_the_computer_a_whole_hand(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        created = me.create(mode="computer")
        assert len(created["tokens"]) == 1 and created["invite"] is None
        state = me.state
        assert state["table"]["mode"] == "computer"
        assert [s["kind"] for s in state["table"]["seats"]] == ["human"] + ["computer"] * 3
        assert len(state["view"]["hand"]) == 13
        play_until_over([me], hands=1)
        sheet = me.state["sheet"]
        assert len(sheet["hands"]) >= 1
        assert sum(sheet["hands"][0]) in (26, 78)  # 26 points, or a moon: 3 × 26
        assert log_length(site, me.table) == me.version


def test_the_reasons_for_cards_that_cannot_be_played_come_from_the_engine(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer", options={"passing": False})
        state = me.until(lambda s: me.my_turn(s))
        view = state["view"]
        illegal = [c for c in view["hand"] if c not in view["legal"]]
        assert illegal, "on the first trick some cards are always refused"
        assert set(state["illegal"]) == set(illegal)
        card = illegal[0]
        before = me.version
        reply = me.ask("hearts.play", table=me.table, token=me.token, card=card, version=me.version)
        assert reply["type"] == "error" and reply["code"] == "illegal"
        assert reply["reason"] == state["illegal"][card]
        assert reply["message"]  # the engine's reason, in words
        assert log_length(site, me.table) == before


def test_a_table_resumes_after_a_restart_with_its_computer_turns(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    # computers so slow that none has moved when the server stops
    with running_site(db, hearts_pace_ms=60_000) as site, ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer", options={"passing": False})
        table, token = me.table, me.token
        version = me.version
        opener = me.state["awaiting"]
    with running_site(db, hearts_pace_ms=0) as site, ExitStack() as stack:
        me = seat(site, stack)
        reply = me.open(table, [token], version=version)
        assert reply["type"] == "hearts.state"
        assert reply["table"]["version"] >= version
        if opener != [0]:
            # the computers resume on their own after the restart, up to my turn
            state = me.until(lambda s: me.my_turn(s))
            assert state["table"]["version"] > version


# --- same device ------------------------------------------------------------------------------


def test_same_device_shows_a_hand_only_to_the_person_whose_turn_it_is(site: Site) -> None:
    with ExitStack() as stack:
        device = seat(site, stack)
        created = device.create(
            mode="hotseat",
            seats=[
                {"kind": "human", "name": "Ana"},
                {"kind": "human", "name": "Budi"},
                {"kind": "computer"},
                {"kind": "computer"},
            ],
        )
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        assert set(tokens) == {0, 1}
        state = device.state
        assert state["view"] is None and state["you"] == [0, 1]
        assert set(state["awaiting"]) >= {0, 1}
        hands_seen: set[int] = set()
        for _ in range(2):
            awaited = min(s for s in device.state["awaiting"] if s in tokens)
            other = 1 - awaited
            refused = device.ask("hearts.look", table=device.table, token=tokens[other])
            if other not in device.state["awaiting"]:
                assert refused["code"] == "not_your_turn"
            looked = device.ask("hearts.look", table=device.table, token=tokens[awaited])
            assert looked["view"]["seat"] == awaited
            hands_seen.add(awaited)
            device.seat, device.token = awaited, tokens[awaited]
            reply = device.act()
            assert reply["type"] == "hearts.state"
            if awaited not in reply["awaiting"]:
                assert reply["view"] is None  # the next person sees the cover, not this hand
        assert hands_seen == {0, 1}
        # a reload starts behind the cover again
        again = seat(site, stack)
        reopened = again.open(device.table, list(tokens.values()), take_over=True)
        assert reopened["view"] is None


# --- online -----------------------------------------------------------------------------------


def test_online_invite_sit_start_and_play_a_hand(site: Site) -> None:
    with ExitStack() as stack:
        seats = online_table(site, stack, people=2)
        host = seats[0]
        kinds = [s["kind"] for s in host.state["table"]["seats"]]
        assert kinds == ["human", "human", "computer", "computer"]
        play_until_over(seats, hands=1)
        assert seats[1].state["sheet"]["hands"] == host.state["sheet"]["hands"]


def test_online_bad_inputs_change_nothing(site: Site) -> None:
    with ExitStack() as stack:
        host, guest = online_table(site, stack, people=2, options={"passing": False})
        other = seat(site, stack)
        other.create(mode="computer")
        table = host.table
        # the computers play until one of the two people must
        state = host.until(lambda s: bool({0, 1} & set(s["awaiting"])))
        turn = host if 0 in state["awaiting"] else guest
        idle = guest if turn is host else host
        turn.until(lambda s: turn.my_turn(s))
        idle.until(lambda s: s["table"]["version"] >= turn.version)
        before = log_length(site, table)
        card = turn.state["view"]["legal"][0]
        cases = [
            # out of turn
            (
                idle,
                "hearts.play",
                {"table": table, "token": idle.token, "card": card, "version": idle.version},
                "not_your_turn",
            ),
            # a card not held (a made-up one is not a card at all)
            (
                turn,
                "hearts.play",
                {"table": table, "token": turn.token, "card": "ZZ", "version": turn.version},
                "bad_card",
            ),
            # a forged token, and another table's token
            (
                turn,
                "hearts.play",
                {"table": table, "token": "x" * 32, "card": card, "version": turn.version},
                "bad_token",
            ),
            (
                turn,
                "hearts.play",
                {"table": table, "token": other.token, "card": card, "version": turn.version},
                "bad_token",
            ),
            # an unknown table
            (
                turn,
                "hearts.play",
                {
                    "table": "nosuchtable0",
                    "token": turn.token,
                    "card": card,
                    "version": turn.version,
                },
                "unknown_table",
            ),
            # passing when there is no passing
            (
                turn,
                "hearts.pass",
                {
                    "table": table,
                    "token": turn.token,
                    "cards": turn.state["view"]["hand"][:3],
                    "version": turn.version,
                },
                "illegal",
            ),
            # a stale version
            (
                turn,
                "hearts.play",
                {"table": table, "token": turn.token, "card": card, "version": turn.version - 1},
                "stale",
            ),
            # the host's powers are the host's
            (guest, "hearts.start", {"table": table, "token": guest.token}, "not_host"),
            (guest, "hearts.free", {"table": table, "token": guest.token, "seat": 0}, "not_host"),
            # joining a full table, and a bad invite
            (other, "hearts.sit", {"table": table, "seat": 2, "name": "Late"}, "table_started"),
            (other, "hearts.invite", {"invite": "NOPE2345"}, "bad_invite"),
            (other, "hearts.invite", {"invite": "ß" * 8}, "bad_invite"),
        ]
        for who, kind, fields, code in cases:
            reply = who.ask(kind, **fields)
            assert reply["type"] == "error", (kind, code, reply)
            assert reply["code"] == code, (kind, code, reply)
            assert reply["message"], reply
            assert log_length(site, table) == before, (kind, code)
        stale = turn.ask("hearts.play", table=table, token=turn.token, card=card, version=0)
        assert stale["code"] == "stale" and stale["state"]["table"]["version"] == before
        ok = turn.ask("hearts.play", table=table, token=turn.token, card=card, version=turn.version)
        assert ok["type"] in ("hearts.state", "hearts.patch"), ok  # a patch within a trick
        assert turn.version == before + 1
        # the same intent again: refused, never applied twice
        again = turn.ask(
            "hearts.play",
            table=table,
            token=turn.token,
            card=card,
            version=turn.version - 1,
        )
        assert again["type"] == "error"
        assert log_length(site, table) >= before + 1


@pytest.mark.parametrize(
    "frame, code",
    [
        ({"type": "hearts.create", "mode": "chess"}, "bad_message"),
        (
            {"type": "hearts.create", "preset": "standard", "options": {"moon": "twice"}},
            "bad_message",
        ),
        ({"type": "hearts.create", "options": {"target": 0}}, "bad_message"),
        ({"type": "hearts.create", "options": {"surprise": True}}, "bad_message"),
        ({"type": "hearts.create", "code": "HE1-Q-AAAAAAA"}, "bad_code"),
        # an empty code is refused as in every code field, not taken for "new cards"
        ({"type": "hearts.create", "code": ""}, "bad_code"),
        ({"type": "hearts.create", "code": "   "}, "bad_code"),
        ({"type": "hearts.create", "preset": "standard", "players": 5}, "bad_rules"),
        ({"type": "hearts.create", "preset": "cancellation", "players": 11}, "bad_message"),
        ({"type": "hearts.create", "name": "x" * 25}, "bad_name"),
        (
            {"type": "hearts.create", "seats": [{"kind": "computer", "level": "godlike"}]},
            "bad_message",
        ),
        ({"type": "hearts.open", "table": "../../etc"}, "bad_message"),
        (
            {
                "type": "hearts.play",
                "table": "abcdefgh",
                "token": "short",
                "card": "QS",
                "version": 0,
            },
            "bad_message",
        ),
        (
            {
                "type": "hearts.pass",
                "table": "abcdefgh",
                "token": "t" * 32,
                "cards": "QS",
                "version": 0,
            },
            "bad_message",
        ),
        ({"type": "hearts.sit", "table": "abcdefgh", "seat": 11, "name": "x"}, "bad_message"),
    ],
)
def test_malformed_messages_are_refused(site: Site, frame: dict[str, Any], code: str) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        reply = me.send_raw(json.dumps({**frame, "req": 7}))
        assert reply["type"] == "error" and reply["code"] == code, reply
        # the connection still works
        assert me.ask("hearts.invite", invite="ABCDEFGH")["code"] == "bad_invite"


def test_a_name_is_limited_and_shown_as_given(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer", name="  <b>Ana</b>\u0007  ")
        assert me.state["table"]["seats"][0]["name"] == "<b>Ana</b>"


def test_a_seat_token_on_two_sockets_is_refused_unless_taken_over(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer")
        second = seat(site, stack)
        refused = second.open(me.table, [me.token])
        assert refused["type"] == "error" and refused["code"] == "in_use"
        taken = second.open(me.table, [me.token], take_over=True)
        assert taken["type"] == "hearts.state" and taken["you"] == [0]
        for _ in range(50):
            message = me.receive()
            if message.get("type") == "error":
                assert message["code"] == "taken_over"
                break
        else:
            raise AssertionError("the first socket was not told")


def test_a_dropped_player_is_replaced_by_a_computer_and_takes_the_seat_back(site: Site) -> None:
    with ExitStack() as stack:
        host = seat(site, stack)
        host.create(mode="online", name="Host", options={"passing": False})
        table = host.table
        guest_stack = ExitStack()
        guest = seat(site, guest_stack)
        guest.ask("hearts.invite", invite=host.state["table"]["invite"])
        guest.sit(table, 1, "Guest")
        token = guest.token
        host.ask("hearts.start", table=table, token=host.token)
        guest_stack.close()  # the guest's connection drops
        # after the grace period a computer plays for the guest: the game goes on
        state = host.until(lambda s: 1 in [x["seat"] for x in s["table"]["seats"] if x["away"]])
        assert state["table"]["seats"][1]["kind"] == "human"
        play_until_over([host], hands=1)
        # the guest comes back with the seat token and has the seat again
        back = seat(site, stack)
        reply = back.open(table, [token])
        assert reply["type"] == "hearts.state" and reply["you"] == [1]
        assert reply["view"]["seat"] == 1
        assert not reply["table"]["seats"][1]["away"]


def test_leaving_freeing_and_a_rematch(site: Site) -> None:
    with ExitStack() as stack:
        host, guest, third = online_table(site, stack, people=3, options={"target": 1})
        left = third.ask("hearts.leave", table=host.table, token=third.token)
        assert left["type"] == "hearts.state"
        host.until(lambda s: s["table"]["seats"][2]["kind"] == "computer")
        busy = host.ask("hearts.free", table=host.table, token=host.token, seat=1)
        assert busy["code"] == "seat_busy"  # the guest is at the table
        play_until_over([host, guest])
        assert host.state["over"]["winners"]
        rematch = guest.ask("hearts.rematch", table=host.table, token=guest.token)
        assert rematch["type"] == "hearts.state"
        assert rematch["table"]["status"] == "playing" and rematch["sheet"]["hands"] == []
        host.until(lambda s: s["table"]["status"] == "playing" and s["over"] is None)


def test_a_game_code_replays_the_same_deal(site: Site) -> None:
    with ExitStack() as stack:
        first = seat(site, stack)
        first.create(mode="computer", code="he1-s-aaaaaam")
        second = seat(site, stack)
        second.create(mode="computer", code="HE1-S-AAAAAAM")
        assert first.state["view"]["hand"] == second.state["view"]["hand"]
        # the code is the table's secret while the match runs, even the one typed
        assert first.state["table"]["code"] is None


def test_every_preset_can_be_created(site: Site) -> None:
    with ExitStack() as stack:
        for preset, players in [
            ("standard", 4),
            ("three", 3),
            ("five", 5),
            ("omnibus", 4),
            ("black-maria", 3),
            ("cancellation", 10),
        ]:
            fields: dict[str, Any] = {"preset": preset}
            if preset == "cancellation":
                fields["players"] = players
            me = seat(site, stack)
            me.create(mode="computer", **fields)
            assert len(me.state["table"]["seats"]) == players
            assert me.state["table"]["preset"] == preset


def test_passing_twice_is_refused_and_changes_nothing(site: Site) -> None:
    with ExitStack() as stack:
        host, _guest = online_table(site, stack, people=2)
        reply = host.act()
        # a whole state, or a patch on the state the page holds (the computers may not have
        # passed yet: they decide outside the table's lock)
        assert reply["type"] in ("hearts.state", "hearts.patch"), reply
        assert 0 not in host.state["awaiting"]
        cards = host.state["view"]["passed"]
        assert len(cards) == 3
        again = host.ask(
            "hearts.pass", table=host.table, token=host.token, cards=cards, version=host.version
        )
        assert again["type"] == "error" and again["code"] == "not_your_turn"
        # the computers may pass meanwhile: the host's own entries are what must not grow
        host_passes = [
            e for e in table_log(site.db_path, host.table)[2]
            if e.kind == "action" and e.data.get("seat") == 0
        ]
        assert len(host_passes) == 1


def test_a_pass_made_while_others_passed_still_counts(site: Site) -> None:
    with ExitStack() as stack:
        host, guest = online_table(site, stack, people=2)
        guest.until(lambda s: guest.my_turn(s))
        seen = guest.version
        host.act()  # the host passes first: the guest's version is now behind
        cards = guest.state["view"]["hand"][:3]
        reply = guest.ask(
            "hearts.pass", table=guest.table, token=guest.token, cards=cards, version=seen
        )
        # a whole state, or a patch when the guest's page saw the version just before (the
        # computers decide outside the table's lock, so the host's pass may be all it missed)
        assert reply["type"] in ("hearts.state", "hearts.patch"), reply
        assert guest.state["view"]["passed"] == cards
        assert 1 not in guest.state["awaiting"]


def test_a_page_that_reconnects_gets_what_it_missed(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer", options={"passing": False})
        me.until(lambda s: me.my_turn(s))
        old = 1
        again = seat(site, stack)
        reply = again.open(me.table, [me.token], version=old, take_over=True)
        assert reply["type"] == "hearts.state" and not reply["resync"]
        played = [e for e in reply["events"] if e["type"] == "played"]
        assert len(played) == reply["table"]["version"] - old
        # a version the server no longer knows (or never had): a full resync
        far = again.open(me.table, [me.token], version=10_000, take_over=True)
        assert far["resync"] and far["events"] == []


def test_the_host_frees_a_seat_whose_player_has_gone(site: Site) -> None:
    with ExitStack() as stack:
        host = seat(site, stack)
        host.create(mode="online", name="Host")
        with ExitStack() as guest_stack:
            guest = seat(site, guest_stack)
            guest.sit(host.table, 2, "Gone")
        host.until(lambda s: s["table"]["seats"][2]["kind"] == "human")
        freed = host.ask("hearts.free", table=host.table, token=host.token, seat=2)
        assert freed["type"] == "hearts.state"
        assert freed["table"]["seats"][2]["kind"] == "open"  # in the lobby the seat reopens
        # a freed seat's token no longer opens it
        back = seat(site, stack)
        assert back.open(host.table, [guest.token])["code"] == "bad_token"


def test_leaving_the_lobby_reopens_the_seat_and_a_sit_takes_it(site: Site) -> None:
    with ExitStack() as stack:
        host = seat(site, stack)
        host.create(mode="online", name="Host")
        guest = seat(site, stack)
        guest.sit(host.table, 1, "Guest")
        taken = seat(site, stack).ask("hearts.sit", table=host.table, seat=1, name="Late")
        assert taken["code"] == "seat_taken"
        left = guest.ask("hearts.leave", table=host.table, token=guest.token)
        assert left["table"]["seats"][1]["kind"] == "open" and left["you"] == []
        late = seat(site, stack)
        assert late.sit(host.table, 1, "Late")["type"] == "hearts.seated"


def test_a_hearts_message_before_hello_is_refused(site: Site) -> None:
    with site.peer(hello=False) as peer:
        reply = peer.ask("hearts.create", mode="computer")
    assert reply["type"] == "error" and reply["code"] == "no_player"


def test_an_oversized_hearts_frame_is_refused_and_the_socket_stays(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        reply = me.send_raw(
            json.dumps({"type": "hearts.sit", "table": "abcdefgh", "seat": 0, "name": "x" * 20_000})
        )
        assert reply["type"] == "error" and reply["code"] == "too_large"
        assert me.ask("hearts.invite", invite="ABCDEFGH")["code"] == "bad_invite"


# --- the moon ---------------------------------------------------------------------------------


def test_the_shooter_chooses_how_the_moon_scores_and_everyone_sees_it(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    from heartsuit.cards import Card
    from heartsuit.server.hearts import new_table as hearts_setup
    from tests.test_hearts_moon import SEED, SHOOTER

    # a table of people takes no code (its seed is a secret): the scripted deal is given here
    monkeypatch.setattr(hearts_setup, "new_seed", lambda mode: SEED)
    with ExitStack() as stack:
        device = seat(site, stack)
        created = device.create(
            mode="hotseat",
            options={"moon": "shooter_chooses"},
            seats=[{"kind": "human", "name": f"P{n}"} for n in range(4)],
        )
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        # the play of tests/test_hearts_moon.py: first three cards passed, seat 0 high, others low
        while device.state["public"]["phase"] in ("pass", "play"):
            turn = min(device.state["awaiting"])
            device.seat, device.token = turn, tokens[turn]
            view = device.ask("hearts.look", table=device.table, token=tokens[turn])["view"]
            if view["must_pass"]:
                reply = device.ask(
                    "hearts.pass",
                    table=device.table,
                    token=tokens[turn],
                    cards=view["hand"][:3],
                    version=device.version,
                )
            else:
                legal = sorted(view["legal"], key=Card.parse)
                card = legal[-1] if turn == 0 else legal[0]
                reply = device.ask(
                    "hearts.play",
                    table=device.table,
                    token=tokens[turn],
                    card=card,
                    version=device.version,
                )
            assert reply["type"] == "hearts.state", reply
        state = device.state
        public = state["public"]
        assert state["awaiting"] == [SHOOTER] and state["view"] is None  # behind the cover
        assert public["phase"] == "moon" and public["shooter"] == SHOOTER
        assert public["moon_options"] == {
            "others_plus_26": [26, 26, 26, 0],
            "self_minus_26": [0, 0, 0, -26],
        }
        before = log_length(site, device.table)
        # only the shooter chooses, and only on the state it saw
        other = device.ask(
            "hearts.moon",
            table=device.table,
            token=tokens[0],
            choice="self_minus_26",
            version=device.version,
        )
        assert other["type"] == "error" and other["code"] == "not_your_turn"
        bad = device.ask(
            "hearts.moon",
            table=device.table,
            token=tokens[SHOOTER],
            choice="both",
            version=device.version,
        )
        assert bad["type"] == "error" and bad["code"] == "bad_message"
        looked = device.ask("hearts.look", table=device.table, token=tokens[SHOOTER])
        assert looked["view"]["seat"] == SHOOTER and looked["view"]["phase"] == "moon"
        stale = device.ask(
            "hearts.moon",
            table=device.table,
            token=tokens[SHOOTER],
            choice="self_minus_26",
            version=device.version - 1,
        )
        assert stale["type"] == "error" and stale["code"] == "stale"
        assert log_length(site, device.table) == before  # refusals change nothing
        chosen = device.ask(
            "hearts.moon",
            table=device.table,
            token=tokens[SHOOTER],
            choice="self_minus_26",
            version=device.version,
        )
        assert chosen["type"] == "hearts.state", chosen
        assert {"type": "moon_chosen", "seat": SHOOTER, "choice": "self_minus_26"} in chosen[
            "events"
        ]
        assert chosen["sheet"]["hands"] == [[0, 0, 0, -26]]
        assert chosen["sheet"]["moons"] == ["self_minus_26"]
        assert chosen["sheet"]["shooters"] == [SHOOTER]
        assert chosen["public"]["hand_number"] == 1 and chosen["view"] is None
        _, _, log = table_log(site.db_path, device.table)
        assert log[-1].data == {"type": "moon", "seat": SHOOTER, "choice": "self_minus_26"}


def test_a_person_who_gives_no_name_is_stored_unnamed(site: Site) -> None:
    # each page then says "you" only on the screen that plays the seat ("Seat 1" elsewhere)
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="online")
        assert me.state["table"]["seats"][0]["name"] == ""
        device = seat(site, stack)
        device.create(mode="hotseat", seats=[{"kind": "human"}, {"kind": "human"}])
        assert [s["name"] for s in device.state["table"]["seats"][:2]] == ["You", "You 2"]


# --- patches ----------------------------------------------------------------------------------


def test_cards_within_a_trick_reach_every_seat_as_patches_that_make_the_state_a_fresh_open_shows(
    any_site: Site,
) -> None:
    """Four people over the real WebSocket play two hands: a card played within a trick (and
    at a trick's end, and a pass but the last) reaches every seat as a ``hearts.patch``: the
    seats that only wait get public fields only; the person who played it gets a patch as the
    reply to the card (with their own hand, legal cards and reasons), and the person to play
    next a pushed patch with the same fields of their own; after each hand every person's
    patched state is the state a fresh ``hearts.open`` of their seat returns (but the events
    since)."""
    site = any_site
    with ExitStack() as stack:
        seats = online_table(site, stack)
        play_until_over(seats, hands=2)
        pass_replies = 0
        for person in seats:
            patches = [f for f in person.frames if f.get("type") == "hearts.patch"]
            assert len(patches) >= 10, f"seat {person.seat} got {len(patches)} patches"
            replies = [p for p in patches if "req" in p]
            next_turns = [p for p in patches if "req" not in p and person.seat in p["awaiting"]]
            waits = [p for p in patches if "req" not in p and person.seat not in p["awaiting"]]
            assert replies and next_turns and waits
            # a trick's end is a patch too (the hand's is not)
            assert any("tricks_played" in p["public"] for p in patches)
            for patch in patches:
                assert set(patch["public"]) <= PATCHED_FIELDS
                assert [e["type"] for e in patch["events"]] in (
                    ["played"],
                    ["played", "trick_done"],
                    ["passed"],
                )
            passes = [p for p in replies if p["events"][0]["type"] == "passed"]
            # a pass but the last of a hand: the seat's own cards passed, none to pass now
            pass_replies += len(passes)
            for patch in passes:
                assert patch["events"][0]["seat"] == person.seat
                assert not patch["view"]["must_pass"] and len(patch["view"]["passed"]) == 3
                assert person.seat not in patch["awaiting"]
            replies = [p for p in replies if p not in passes]
            for patch in replies:
                # the card just played left this seat's hand; it is not this seat's turn now,
                # unless its card ended the trick and won it
                played = patch["events"][0]
                assert played["seat"] == person.seat
                assert played["card"] not in patch["view"]["hand"]
                if person.seat in patch["awaiting"]:
                    assert patch["events"][-1]["type"] == "trick_done"
                    assert patch["events"][-1]["winner"] == person.seat
                    assert patch["view"]["legal"]
                else:
                    assert patch["view"]["legal"] == [] and patch["illegal"] == {}
            for patch in next_turns:
                if patch["events"][0]["type"] == "passed":
                    assert patch["view"]["must_pass"]  # another's pass: this seat still passes
                    continue
                assert patch["view"]["legal"], patch
                assert set(patch["view"]["legal"]) <= set(patch["view"]["hand"])
            for patch in waits:
                assert "view" not in patch and "illegal" not in patch
            # the state this socket made from its patches, against a fresh one
            fresh = seat(site, stack)
            reply = fresh.open(person.table, [person.token], take_over=True)
            assert reply["type"] == "hearts.state", reply
            held = person.state
            assert reply["table"]["version"] == held["table"]["version"]
            for key in ("you", "awaiting", "public", "view", "illegal", "pass_to", "sheet"):
                assert reply[key] == held[key], key
            assert reply["table"] == held["table"]
        # the people pass in turn here: all passes of a hand but the last are patches
        assert pass_replies >= 2 * 3


def test_a_shared_device_never_gets_a_patch(any_site: Site) -> None:
    """One screen shows each person's hand in turn: it always gets whole states (its cover and
    the hand shown depend on whose turn it is), also while the computers play within tricks."""
    site = any_site
    with ExitStack() as stack:
        device = seat(site, stack)
        created = device.create(
            mode="hotseat",
            seats=[{"kind": "human"}] * 2 + [{"kind": "computer"}] * 2,
        )
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        for _ in range(24):  # the pass, then cards until about three tricks are played
            awaited = min(s for s in device.until(lambda s: bool(s["awaiting"]))["awaiting"])
            if awaited not in tokens:
                device.receive()
                continue
            device.ask("hearts.look", table=device.table, token=tokens[awaited])
            device.seat, device.token = awaited, tokens[awaited]
            assert device.act()["type"] == "hearts.state"
        played = [e for f in device.frames for e in f.get("events", []) if e["type"] == "played"]
        assert len(played) >= 8
        assert not [f for f in device.frames if f.get("type") == "hearts.patch"]


def test_a_card_reaches_the_other_seats_in_the_publisher_s_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With frames written at once, each card's notice is answered inside the publish of the
    person who played it: no seat's listening task answers one (the queued way); declined
    writes (a full buffer) send every push the queued way instead, and each seat's patches
    still follow one another (``Seat.receive`` applies each to the state before)."""
    queued: list[int] = []
    at_once: list[bool] = []
    push, push_now = HeartsSession._push, HeartsSession._push_now

    async def counted_push(self: HeartsSession, live: Any) -> None:
        queued.append(live.version)
        await push(self, live)

    def counted_push_now(self: HeartsSession, live: Any, held: Any) -> bool:
        at_once.append(push_now(self, live, held))
        return at_once[-1]

    monkeypatch.setattr(HeartsSession, "_push", counted_push)
    monkeypatch.setattr(HeartsSession, "_push_now", counted_push_now)
    send_now = SendNow()
    with (
        running_site(tmp_path / "site.sqlite3", hearts_pace_ms=0, send_now=send_now) as site,
        ExitStack() as stack,
    ):
        seats = online_table(site, stack)
        queued.clear()
        at_once.clear()
        play_until_over(seats, hands=1)
        # 4 passes and 52 cards, each pushed to the three other seats
        assert queued == [] and len(at_once) >= 3 * 56 and all(at_once)
        send_now.refuse = True
        queued.clear()
        at_once.clear()
        play_until_over(seats, hands=2)  # a second hand, every push the queued way
        assert len(queued) >= 3 * 56 and at_once and not any(at_once)
        assert len({person.version for person in seats}) == 1


@pytest.mark.parametrize(
    "code, words",
    [
        ("HE1-Q-AAAAAAA", "unknown variant: after HE1- comes S, T, F, O, B or C6 to C10"),
        ("HH1-N-AAAAAAM", "is not a Hearts code: a Hearts code starts with HE"),
        ("HE1-S-AAAA", "must end with exactly seven letters"),
        ("", "Type a game code, like HE1-S-AAAAAAM"),
    ],
)
def test_a_bad_hearts_code_is_explained_in_hearts_words(site: Site, code: str, words: str) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)  # (in English)
        reply = me.ask("hearts.create", mode="computer", code=code)
        assert reply["code"] == "bad_code" and words in reply["message"], reply
        assert "HH1-N" not in reply["message"] or code.startswith("HH1")
