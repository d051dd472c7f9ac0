"""The shared-parts ``hearts.state`` frames are exactly the frames of the plain path.

:class:`StateFrames` encodes what every socket at a table shares once per version; this test
plays the first hands of every preset with computer players and checks, at every version, with
no hand shown and with each seat's in turn, several presence sets and "since" versions, that
its text equals ``encode(table_state(...))`` character for character, with and without a
``req``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import Rules
from heartsuit.hearts.driver import computer_action
from heartsuit.server.core.protocol import encode
from heartsuit.server.hearts.frames import (
    PATCHED_FIELDS,
    StateFrames,
    apply_patch,
    error_frame,
    table_state,
)
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.protocol import HeartsErrorReply

PRESETS: list[tuple[str, dict[str, Any]]] = [
    ("standard", {}),
    ("standard", {"moon": "shooter_chooses", "target": 30}),
    ("three", {}),
    ("five", {}),
    ("omnibus", {}),
    ("black-maria", {}),
    ("cancellation", {"players": 7}),
]


def new_table(preset: str, overrides: dict[str, Any]) -> LiveTable:
    rules = Rules.preset(preset, **overrides)
    record = TableRecord("table-frames", "online", preset, rules.to_dict(), 5, "ABCDEFGH", 0)
    seats = [SeatRecord(0, "human", "Ana <b>", None, "h" * 64)] + [
        SeatRecord(s, "computer", "", "easy") for s in range(1, rules.players)
    ]
    live = LiveTable.replay(record, seats, [])
    live.apply(live.entry("start", {}, 1))
    return live


def same(frames: StateFrames, live: LiveTable, **fields: Any) -> None:
    plain = encode(table_state(live, **fields))
    fast = frames.text(live, **fields)
    assert encode(fast) == plain
    assert encode(fast, 17) == encode(table_state(live, **fields), 17)


@pytest.mark.parametrize("preset, overrides", PRESETS, ids=[p for p, _ in PRESETS])
def test_frames_equal_the_plain_encoding(preset: str, overrides: dict[str, Any]) -> None:
    live = new_table(preset, overrides)
    frames = StateFrames(size=64)
    players = live.rules.players
    steps = 0
    while live.status == "playing" and steps < 150:
        assert live.match is not None
        version = live.version
        # no hand shown, and each seat's in turn
        for view_seat in (None, steps % players):
            same(
                frames,
                live,
                you={view_seat} if view_seat is not None else set(),
                view_seat=view_seat,
                host=view_seat == 0,
                connected={0, view_seat or 0},
                away=set() if steps % 3 else {1},
                since=(None, version - 1, 0)[steps % 3],
            )
        seat = live.awaiting()[0]
        action = computer_action(live.match, seat, "easy", f"frames/{steps}")
        live.apply(live.entry("action", action.to_dict(), 2 + steps))
        steps += 1
    assert steps > 20


def test_frames_stay_equal_across_hands_a_rematch_and_a_fresh_copy() -> None:
    """What StateFrames keeps longer than a version (the table part but its version, the score
    sheet of a hand, the finished tricks of a hand) is never shown stale: a whole short match,
    a rematch (a new match whose hand numbers start again) and, every so often, a fresh copy of
    the table replayed from its log (as after a write conflict), compared at every version."""
    rules = Rules.preset("standard", target=10)
    record = TableRecord("table-kept", "online", "standard", rules.to_dict(), 9, "ABCDEFGH", 0)
    seats = [SeatRecord(s, "human", f"P{s}", None, "h" * 64) for s in range(4)]
    log = [LogEntry(0, "start", {}, 1)]
    live = LiveTable.replay(record, seats, log)
    frames = StateFrames(size=8)
    matches, steps = 0, 0
    while matches < 2 and steps < 400:
        assert live.match is not None
        if live.status == "over":
            matches += 1
            entry = live.entry("rematch", {"seed": 100 + matches}, steps)
        else:
            seat = live.awaiting()[0]
            action = computer_action(live.match, seat, "easy", f"kept/{steps}")
            entry = live.entry("action", action.to_dict(), steps)
        live.apply(entry)
        log.append(entry)
        if steps % 17 == 16:
            live = LiveTable.replay(record, seats, log)  # another copy, same log
        for seat in range(4):
            # the seat's own frame, then a presence change within the version
            for connected in ({0, 1, 2, 3}, {seat}):
                same(
                    frames,
                    live,
                    you={seat},
                    view_seat=seat,
                    host=seat == 0,
                    connected=connected,
                    away=set(),
                    since=live.version - 1,
                )
        steps += 1
    assert matches == 2, "two whole matches were played"


PATCH_PRESETS = [*PRESETS, ("cancellation", {"players": 10}), ("standard", {"target": 10})]


@pytest.mark.parametrize("preset, overrides", PATCH_PRESETS, ids=[p for p, _ in PATCH_PRESETS])
def test_a_patch_makes_exactly_the_state_it_replaces(
    preset: str, overrides: dict[str, Any]
) -> None:
    """Whole matches: at every version, for every seat (and a socket shown no hand), the state
    a client makes from the ``hearts.patch`` and the state it held is the whole state the
    server would have sent instead, field for field; a patch comes only when one will do."""
    rules = Rules.preset(preset, **overrides)
    record = TableRecord("table-patch", "online", preset, rules.to_dict(), 3, "ABCDEFGH", 0)
    seats = [SeatRecord(s, "human", f"P{s}", None, "h" * 64) for s in range(rules.players)]
    live = LiveTable.replay(record, seats, [LogEntry(0, "start", {}, 1)])
    frames = StateFrames(size=8)
    shown: list[int | None] = [*range(rules.players), None]

    def whole(view_seat: int | None) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "you": set() if view_seat is None else {view_seat},
            "view_seat": view_seat,
            "host": view_seat == 0,
            "connected": set(range(rules.players)),
            "away": set(),
            "since": live.version - 1,
        }
        text = encode(frames.text(live, **fields))
        assert text == encode(table_state(live, **fields))
        state: dict[str, Any] = json.loads(text)
        return state

    held = {seat: whole(seat) for seat in shown}
    patched = whole_states = steps = own_patches = trick_ends = passes = 0
    while live.status == "playing" and steps < 2000:
        assert live.match is not None
        awaited_before = set(live.awaiting())
        seat = live.awaiting()[0]
        action = computer_action(live.match, seat, "easy", f"patch/{steps}")
        live.apply(live.entry("action", action.to_dict(), 2 + steps))
        steps += 1
        for view_seat in shown:
            patch = frames.patch(live, view_seat=view_seat)
            if patch is None:
                held[view_seat] = whole(view_seat)
                whole_states += 1
                continue
            message = json.loads(encode(patch))
            assert message["type"] == "hearts.patch"
            assert set(message["public"]) <= PATCHED_FIELDS
            made = apply_patch(held[view_seat], message)
            assert made == whole(view_seat)
            # the seat that played and the seat to play next get their own cards, legal cards
            # and reasons (from their own view); a seat that only waits gets none of them
            involved = view_seat in awaited_before or view_seat in message["awaiting"]
            if involved:
                assert set(message) >= {"view", "illegal"}
                assert set(message["view"]) == {"hand", "legal", "must_pass", "passed", "received"}
                own_patches += 1
            else:
                assert "view" not in message and "illegal" not in message
            held[view_seat] = made
            patched += 1
            trick_ends += "tricks_played" in message["public"]
            passes += "passed" in message["public"]
    assert live.status == "over"
    assert trick_ends > 0  # a trick's end (not the hand's) is a patch too
    assert passes > 0 or not rules.passing  # so is a pass (not the last of a hand's)
    # within a trick and at a trick's end every socket gets a patch (the one that played and
    # the one to play next too): with four seats 48 of the 52 cards of a hand, to all 5 of
    # these sockets
    assert patched > 0.75 * (patched + whole_states)
    assert own_patches > 0.1 * patched  # two of the sockets (of five; of eleven at ten seats)


def test_a_patch_over_a_missed_version_is_refused() -> None:
    live = new_table("standard", {})
    frames = StateFrames()
    fields: dict[str, Any] = {
        "you": {2},
        "view_seat": 2,
        "host": False,
        "connected": {0, 2},
        "away": set(),
    }
    old = json.loads(encode(frames.text(live, **fields)))
    made = None
    for step in range(40):  # past the first step, until a step a patch may carry
        assert live.match is not None
        action = computer_action(live.match, live.awaiting()[0], "easy", f"gap/{step}")
        live.apply(live.entry("action", action.to_dict(), 2 + step))
        patch = frames.patch(live, view_seat=2)
        if patch is not None and step > 0:
            message = json.loads(encode(patch))
            # the socket still holds a state several versions old: it must ask again
            assert old["table"]["version"] < message["version"] - 1
            assert apply_patch(old, message) is None
            made = apply_patch({**old, "table": {**old["table"], "id": "other"}}, message)
            break
        frames.text(live, **fields)
    else:
        raise AssertionError("no patch in 40 steps")
    assert made is None


def test_the_table_parts_kept_are_those_of_the_current_seating_and_status() -> None:
    """People sitting down one by one, then the start: each step's table part is made once,
    and those of an earlier seating or status are let go (a table keeps a few presence
    variants of its current one, not every lobby state it went through)."""
    rules = Rules.preset("standard")
    record = TableRecord("table-lobby", "online", "standard", rules.to_dict(), 3, "ABCDEFGH", 0)
    open_seats = [SeatRecord(s, "open", "", None) for s in range(4)]
    live = LiveTable.replay(record, open_seats, [])
    frames = StateFrames()
    for seat in range(4):
        live.apply(
            live.entry("seat", {"seat": seat, "kind": "human", "name": f"P{seat}"}, seat + 1)
        )
        for connected in (set(range(seat)), set(range(seat + 1))):  # before and after it came
            same(frames, live, you={0}, view_seat=None, host=True, connected=connected, away=set())
    kept = frames._kept(live)
    assert len(kept.tables) == 2  # the last seating's two presence variants
    live.apply(live.entry("start", {}, 9))
    same(frames, live, you={0}, view_seat=0, host=True, connected={0, 1, 2, 3}, away=set())
    assert [key[3] for key in frames._kept(live).tables] == ["playing"]


@pytest.mark.parametrize(
    "preset, overrides",
    [("standard", {}), ("omnibus", {}), ("black-maria", {"spade_penalties": True})],
    ids=["standard", "omnibus", "black-maria"],
)
def test_the_last_hand_names_the_cards_that_make_its_points(
    preset: str, overrides: dict[str, Any]
) -> None:
    """``last_hand`` lists, for each seat, the cards that count it took in the tricks of the
    hand finished last: without a moon (and with no kitty in these presets) their points are
    that hand's line of the score sheet, which comes from the engine; it is there from the
    first hand's end on, in both paths (the frames are compared too)."""
    live = new_table(preset, overrides)
    frames = StateFrames(size=8)
    seen = 0
    steps = 0
    while live.status == "playing" and seen < 2 and steps < 400:
        assert live.match is not None
        state = table_state(live, you={0}, view_seat=0, host=True, connected={0}, away=set())
        same(frames, live, you={0}, view_seat=0, host=True, connected={0}, away=set())
        hands = state.sheet.hands
        if state.last_hand is None:
            assert hands == []
        else:
            assert state.last_hand.hand_number == len(hands) - 1
            taken = state.last_hand.taken
            points = [sum(live.rules.card_points(Card.parse(c)) for c in cards) for cards in taken]
            if state.sheet.shooters[-1] is None:
                assert points == hands[-1]
            if state.last_hand.hand_number == seen:
                seen += 1
        seat = live.awaiting()[0]
        action = computer_action(live.match, seat, "easy", f"last/{steps}")
        live.apply(live.entry("action", action.to_dict(), 2 + steps))
        steps += 1
    assert seen == 2, "two hands ended"


def test_an_error_with_its_state_is_the_text_of_the_model_holding_that_state() -> None:
    live = new_table("standard", {})
    frames = StateFrames()
    shown: dict[str, Any] = {
        "you": [0], "view_seat": 0, "host": True, "connected": [0], "away": []
    }
    state = table_state(live, **shown)
    reply = HeartsErrorReply(code="stale", message="The table moved on", reason=None)
    with_state = error_frame(reply, frames.text(live, **shown))
    assert with_state.text == encode(reply.model_copy(update={"state": state}))
    assert json.loads(with_state.text)["state"] == json.loads(encode(state))
    assert error_frame(reply, None).text == encode(reply)
