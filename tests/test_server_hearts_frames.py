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
from heartsuit.server.hearts_tables import LiveTable, SeatRecord, TableRecord
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
