"""Helpers for the Hearts server tests: a seat over a real WebSocket, and the leak checker.

Not a test module itself. :class:`Seat` wraps one connection (:class:`tests.server_support.Peer`)
that plays Hearts: it keeps every frame it received, so a test can check afterwards that none of
them named a card that seat could not know (:func:`check_no_leaks`, which replays the table's
log from the database, independently of the server's own views).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heartsuit.hearts.actions import Pass
from heartsuit.server.hearts.frames import apply_patch
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from tests.server_support import Peer

#: a card as the protocol writes it ("QS", "10H")
CARD_TEXT = re.compile(r"^(?:[2-9]|10|[JQKA])[CDHS]$")


@dataclass
class Seat:
    """One person at a table, over one WebSocket."""

    peer: Peer
    table: str = ""
    token: str = ""
    seat: int = -1
    state: dict[str, Any] = field(default_factory=dict)
    #: every message this socket received, in order
    frames: list[dict[str, Any]] = field(default_factory=list)

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        peer = self.peer
        req = peer.next_req
        peer.next_req += 1
        peer.socket.send_text(json.dumps({"type": kind, "req": req, **fields}))
        while True:
            message = self.receive()
            if message.get("req") == req:
                return message

    def send_raw(self, text: str) -> dict[str, Any]:
        self.peer.socket.send_text(text)
        return self.receive()

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self.peer.socket.receive_json()
        self.frames.append(message)
        if message.get("type") == "hearts.state":
            self.state = message
        elif message.get("type") == "hearts.patch":
            # as the page does: the patch on the state held (one socket never misses a version)
            made = apply_patch(self.state, message)
            assert made is not None, f"a patch that does not follow {self.state['table']}"
            self.state = made
        elif message.get("type") == "error" and message.get("state"):
            self.state = message["state"]
        return message

    def create(self, **fields: Any) -> dict[str, Any]:
        reply = self.ask("hearts.create", **fields)
        assert reply["type"] == "hearts.created", reply
        self.table = reply["table"]
        self.token = reply["tokens"][0]["token"]
        self.seat = reply["tokens"][0]["seat"]
        self.until(lambda s: True)
        return reply

    def sit(self, table: str, seat: int, name: str) -> dict[str, Any]:
        reply = self.ask("hearts.sit", table=table, seat=seat, name=name)
        assert reply["type"] == "hearts.seated", reply
        self.table, self.seat, self.token = table, seat, reply["token"]
        self.until(lambda s: True)
        return reply

    def open(self, table: str, tokens: list[str], **fields: Any) -> dict[str, Any]:
        reply = self.ask("hearts.open", table=table, tokens=tokens, **fields)
        if reply["type"] == "hearts.state":
            self.table = table
            if reply["you"] and self.seat not in reply["you"]:
                self.seat = reply["you"][0]
                self.token = tokens[0]
        return reply

    def until(self, done: Callable[[dict[str, Any]], bool], limit: int = 5000) -> dict[str, Any]:
        """Read pushes until a state satisfies ``done`` (the current one may already)."""
        if self.state and done(self.state):
            return self.state
        for _ in range(limit):
            message = self.receive()
            if message.get("type") in ("hearts.state", "hearts.patch") and done(self.state):
                return self.state
        raise AssertionError(f"no such state; last: {self.state}")

    @property
    def version(self) -> int:
        return int(self.state["table"]["version"])

    def my_turn(self, state: dict[str, Any] | None = None) -> bool:
        state = state or self.state
        return state.get("over") is not None or (
            self.seat in state.get("awaiting", ()) and state.get("view") is not None
        )

    def act(self) -> dict[str, Any]:
        """Pass the first cards, play the first legal card, or score a moon the classic way
        (everyone else takes the points); the reply."""
        view = self.state["view"]
        if view["phase"] == "moon":
            return self.ask(
                "hearts.moon",
                table=self.table,
                token=self.token,
                choice="others_plus_26",
                version=self.version,
            )
        if view["must_pass"]:
            count = self.state["table"]["rules"]["pass_count"]
            return self.ask(
                "hearts.pass",
                table=self.table,
                token=self.token,
                cards=view["hand"][:count],
                version=self.version,
            )
        return self.ask(
            "hearts.play",
            table=self.table,
            token=self.token,
            card=view["legal"][0],
            version=self.version,
        )


def waited(state: dict[str, Any]) -> list[int]:
    """The people the computers wait for between hands (none when nobody is waited for)."""
    between = (state.get("public") or {}).get("next_hand")
    return list(between["waiting"]) if between else []


def play_until_over(seats: list[Seat], *, hands: int | None = None) -> None:
    """Every person plays their first legal card until the match (or ``hands`` hands) ends.

    The first seat's socket is the referee: it hears every change, so it tells who must act
    next; that person then waits for their own state saying so (their socket hears it too).
    """

    def finished(state: dict[str, Any]) -> bool:
        if state.get("over") is not None:
            return True
        return hands is not None and len(state["sheet"]["hands"]) >= hands

    referee = seats[0]
    reached = referee.version if referee.state else 0
    while True:

        def next_turn(s: dict[str, Any], reached: int = reached) -> bool:
            return s["table"]["version"] >= reached and (
                finished(s) or any(p.seat in s["awaiting"] or p.seat in waited(s) for p in seats)
            )

        state = referee.until(next_turn)
        if finished(state):
            break
        asked = [p for p in seats if p.seat in waited(state) and p.seat not in state["awaiting"]]
        if asked:
            # between hands, the computers wait for these people's "next hand"
            reply = asked[0].ask("hearts.next", table=asked[0].table, token=asked[0].token)
            assert reply["type"] in ("hearts.state", "hearts.patch"), reply
            reached = asked[0].version
            continue
        person = next(p for p in seats if p.seat in state["awaiting"])
        mine = person.until(lambda s: finished(s) or person.my_turn(s))  # noqa: B023
        if finished(mine):
            continue
        reply = person.act()
        # a whole state, or a patch when the card was played within a trick
        assert reply["type"] in ("hearts.state", "hearts.patch"), reply
        reached = person.version
    for person in seats[1:]:
        person.until(finished)


# --- the leak check ---------------------------------------------------------------------------


def table_log(db_path: Path, table_id: str) -> tuple[TableRecord, list[SeatRecord], list[LogEntry]]:
    """A table as the database holds it, read with the standard sqlite3 module."""
    with closing(sqlite3.connect(db_path)) as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM hearts_tables WHERE id = ?", (table_id,)).fetchone()
        seat_rows = db.execute(
            "SELECT * FROM hearts_seats WHERE table_id = ? ORDER BY seat", (table_id,)
        ).fetchall()
        entries = db.execute(
            "SELECT * FROM hearts_events WHERE table_id = ? ORDER BY seq", (table_id,)
        ).fetchall()
    record = TableRecord(
        row["id"],
        row["mode"],
        row["preset"],
        json.loads(row["rules"]),
        int(row["seed"]),
        row["invite"],
        row["created_at_ms"],
    )
    seats = [
        SeatRecord(r["seat"], r["kind"], r["name"], r["level"], r["token_hash"]) for r in seat_rows
    ]
    log = [LogEntry(r["seq"], r["kind"], json.loads(r["data"]), r["at_ms"]) for r in entries]
    return record, seats, log


def card_texts(value: Any) -> Iterator[str]:
    """Every string in a JSON value that reads as a card."""
    if isinstance(value, str):
        if CARD_TEXT.match(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from card_texts(item)


def known_cards(live: LiveTable, seat: int) -> set[str]:
    """What ``seat`` may know at the table's current version: its own hand and pass, every card
    played so far (this hand and earlier ones), finished hands' kitties, the cards removed from
    the deck. Built from the engine's full state, not from any view."""
    known = {c.code for c in live.rules.removed}
    match = live.match
    if match is None:
        return known
    for hand in match.hands:
        for trick in hand.tricks:
            known.update(c.code for _, c in trick.plays)
        if hand.phase.value in ("moon", "done"):
            # every card is played once a moon awaits its choice: the kitty is shown then
            known.update(c.code for c in hand.kitty)
    current = match.hand
    if current.trick is not None:
        known.update(c.code for _, c in current.trick.plays)
    known.update(c.code for c in current.holdings[seat])
    for action in match.actions:
        if isinstance(action, Pass) and action.seat == seat:
            known.update(c.code for c in action.cards)
    return known


#: every preset, as the whole-match frame tests play them
PRESETS: list[tuple[str, dict[str, Any]]] = [
    ("standard", {}),
    ("three", {}),
    ("five", {}),
    ("omnibus", {}),
    ("black-maria", {"options": {"spade_penalties": True}}),
    ("cancellation", {"players": 6}),
    ("cancellation", {"players": 10}),
]


def frames_with_their_table(
    db_path: Path, table_id: str, frames: list[dict[str, Any]]
) -> Iterator[tuple[LiveTable, dict[str, Any]]]:
    """Each frame with the table replayed from the database to the version it carries (or the
    last version the socket saw, for frames that carry none). The table is the same object
    each time, replayed further: use it before asking for the next frame."""
    # the frames first, then the log: a socket is sent a version only once it is logged, so
    # every frame taken now is in the log read after (more frames may still be arriving)
    frames = list(frames)
    record, seats, log = table_log(db_path, table_id)
    live = LiveTable.replay(record, seats, [])
    for frame in frames:
        state = frame.get("state") if frame.get("type") == "error" else frame
        version = None
        if isinstance(state, dict) and isinstance(state.get("table"), dict):
            version = state["table"].get("version")
        elif frame.get("type") == "hearts.patch":
            version = frame.get("version")
        if isinstance(version, int):
            while live.version < version:
                live.apply(log[live.version], replaying=True)
        yield live, frame


def check_no_leaks(
    db_path: Path, table_id: str, frames_by_seat: dict[int, list[dict[str, Any]]]
) -> int:
    """Raise AssertionError if a frame to a seat names a card it may not know; frames checked.

    Each frame is checked against the table replayed to the version it carries (or the last
    version that seat saw, for frames that carry none).
    """
    checked = 0
    for seat, frames in frames_by_seat.items():
        for live, frame in frames_with_their_table(db_path, table_id, frames):
            allowed = known_cards(live, seat)
            named = set(card_texts(frame))
            leaked = named - allowed
            assert not leaked, f"a frame to seat {seat} names {sorted(leaked)}: {frame}"
            checked += 1
    return checked
