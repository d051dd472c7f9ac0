"""The shared-parts ``hearts.state`` frames are exactly the frames of the plain path.

:class:`StateFrames` encodes what every socket at a table shares once per version; this test
plays the first hands of every preset with computer players and checks, at every version, with
no hand shown and with each seat's in turn, several presence sets and "since" versions, that
its text equals ``encode(table_state(...))`` character for character, with and without a
``req``.
"""

from __future__ import annotations

from typing import Any

import pytest

from heartsuit.hearts import Rules
from heartsuit.hearts.table import computer_action
from heartsuit.server.hearts_tables import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts_view import StateFrames, table_state
from heartsuit.server.protocol import encode

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
