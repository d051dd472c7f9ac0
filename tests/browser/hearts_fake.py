"""A stand-in for the Hearts service on /ws, for the browser tests of the Hearts pages.

``hearts_state`` builds a ``hearts.state`` message as the contract in docs/web.md ("Hearts")
describes it, from a real :class:`heartsuit.hearts.Match`: the private ``view`` is the engine's
own ``SeatView.to_dict()`` and ``illegal`` comes from ``why_illegal``, so the pages are tested
against the shapes the server will send. ``FakeHearts`` answers frames on a Playwright
``WebSocketRoute``: ``hello`` and ``lang`` like the real server, every ``hearts.*`` message by a
handler the test sets, and it records every frame the page sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from heartsuit.cards import Card
from heartsuit.hearts import Match
from heartsuit.server.hearts.frames import last_hand, pass_receiver

NAMES = ("Ana", "Budi", "Citra", "Dedi", "Eka", "Fajar", "Gita", "Hadi", "Indah", "Joko")


def seats(
    players: int, kinds: Sequence[str] | None = None, *, level: str = "normal"
) -> list[dict[str, Any]]:
    """Public seat info: seat 0 a person, the others computers unless ``kinds`` says."""
    kinds = kinds or ["human"] + ["computer"] * (players - 1)
    out = []
    for seat, kind in enumerate(kinds):
        out.append(
            {
                "seat": seat,
                "name": None if kind == "open" else NAMES[seat],
                "kind": kind,
                "level": level if kind == "computer" else None,
                "connected": kind != "open",
                "away": False,
            }
        )
    return out


def hearts_state(
    match: Match,
    *,
    view_seat: int | None,
    you: Sequence[int] = (0,),
    mode: str = "computer",
    status: str = "playing",
    version: int = 1,
    seat_info: list[dict[str, Any]] | None = None,
    events: Sequence[dict[str, Any]] = (),
    host: bool = True,
    sheet: dict[str, Any] | None = None,
    over: dict[str, Any] | None = None,
    preset: str = "standard",
    invite: str | None = None,
    next_hand: dict[str, Any] | None = None,
    pace: str = "normal",
) -> dict[str, Any]:
    hand = match.hand
    rules = match.rules
    players = rules.players
    public_view = hand.view(0)
    trick = public_view.trick.to_dict() if public_view.trick else None
    last = public_view.tricks[-1].to_dict() if public_view.tricks else None
    phase = str(hand.phase)
    passed = [not hand.view(s).must_pass for s in range(players)]
    if phase == "pass":
        awaiting = [s for s in range(players) if hand.view(s).must_pass]
    elif phase in ("play", "moon"):
        awaiting = list(hand.awaiting())
    else:
        awaiting = []
    if status != "playing":
        awaiting = []
    view = hand.view(view_seat) if view_seat is not None else None
    finished = last_hand(match)
    illegal: dict[str, str] = {}
    if view is not None and view.legal:
        for card in view.hand:
            if card not in view.legal:
                reason = hand.why_illegal(view_seat, card)
                if reason is not None:
                    illegal[card.code] = str(reason)
    return {
        "type": "hearts.state",
        "table": {
            "id": "T1",
            "mode": mode,
            "status": status,
            "code": None,
            "replay_url": None,
            "preset": preset,
            "rules": rules.to_dict(),
            "invite": invite,
            "invite_url": f"/hearts/join/{invite}" if invite else None,
            "host": host,
            "seats": seat_info or seats(players),
            "pace": pace,
            "hints": mode != "online",
            "version": version,
        },
        "you": list(you),
        "awaiting": awaiting,
        "public": {
            "phase": phase,
            "hand_number": match.hand_number,
            "pass_direction": str(public_view.pass_direction),
            "to_play": hand.to_play,
            "trick": trick,
            "last_trick": last,
            "hearts_broken": public_view.hearts_broken,
            "points_taken": list(public_view.points_taken),
            "scores": list(public_view.scores),
            "cards_left": list(public_view.cards_left),
            "kitty_size": public_view.kitty_size,
            "passed": passed,
            "shooter": public_view.shooter,
            "moon_options": public_view.to_dict()["moon_options"],
            "moon_choice": public_view.moon_choice,
            "next_hand": next_hand,
        },
        "view": view.to_dict() if view is not None else None,
        "illegal": illegal,
        "pass_to": pass_receiver(view),
        "sheet": {
            "hands": [],
            "totals": [],
            "shooters": [],
            "moons": [],
            "moon_points": rules.total_points(),
            **(sheet or {}),
        },
        "over": over,
        "last_hand": finished.model_dump() if finished is not None else None,
        "events": list(events),
    }


def pass_all(match: Match, first: Sequence[str] | None = None) -> None:
    """Every seat passes its first cards (seat 0 the given ones)."""
    hand = match.hand
    for seat in range(match.rules.players):
        cards = (
            [Card.parse(c) for c in first]
            if seat == 0 and first is not None
            else list(hand.holdings[seat][: match.rules.pass_count])
        )
        match.pass_cards(seat, cards)


Handler = Callable[[dict[str, Any]], list[dict[str, Any]] | None]


class FakeHearts:
    """Answers the page's frames on /ws; ``on(type, fn)`` sets what a hearts.* message gets.

    A handler returns the messages to send: the first is the reply (it gets the request's
    ``req``), the rest are pushes. Frames are recorded in ``sent`` (what the page sent).
    """

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.handlers: dict[str, Handler] = {}
        self.sockets: list[Any] = []
        self.lock = threading.Lock()

    def on(self, kind: str, handler: Handler) -> None:
        self.handlers[kind] = handler

    def route(self, ws: Any) -> None:
        self.sockets.append(ws)
        ws.on_message(lambda message: self._receive(ws, message))

    def _receive(self, ws: Any, message: str | bytes) -> None:
        frame = json.loads(message)
        with self.lock:
            self.sent.append(frame)
        req = frame.get("req")
        kind = frame.get("type")
        if kind == "hello":
            replies: list[dict[str, Any]] | None = [
                {"type": "welcome", "player": "p-test", "settings": {}}
            ]
        elif kind == "lang":
            replies = [{"type": "lang", "lang": frame.get("lang")}]
        elif kind in self.handlers:
            replies = self.handlers[kind](frame)
        else:
            replies = [{"type": "error", "code": "bad_message", "message": f"no {kind}"}]
        for index, reply in enumerate(replies or []):
            if index == 0 and req is not None:
                reply = {**reply, "req": req}
            ws.send(json.dumps(reply))

    def push(self, message: dict[str, Any]) -> None:
        """Send a message no request asked for, on the newest socket."""
        self.sockets[-1].send(json.dumps(message))

    def frames(self, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            return [f for f in self.sent if f.get("type") == kind]

    def wait_for(self, page: Any, kind: str, count: int = 1) -> dict[str, Any]:
        """The ``count``-th frame of a type, once the page has sent it."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = self.frames(kind)
            if len(found) >= count:
                return found[count - 1]
            page.wait_for_timeout(50)  # lets Playwright deliver the frames meanwhile
        raise AssertionError(f"the page sent no {kind} frame; it sent {self.sent}")
