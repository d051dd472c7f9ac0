"""What one connection is told about a Hearts table: built from seat views and nothing else.

Every ``hearts.state`` message comes from :func:`table_state`. The private part is the engine's
:meth:`~heartsuit.hearts.match.Match.view` of exactly one seat, the one this connection plays
(or, on a shared device, the seat whose turn it is, once its person asked to look). The public
part is a seat view with every private field taken out, so no code path can put another seat's
hand into a message (DESIGN.md, principle 3); the reasons a card cannot be played are asked of
the engine (``why_illegal``) for the cards of that one view.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Any

from heartsuit.hearts import Match, SeatView
from heartsuit.server.hearts_protocol import HeartsState, Over, SeatInfo, Sheet, TableInfo
from heartsuit.server.hearts_tables import LiveTable
from heartsuit.server.protocol import Encoded

#: the fields of a seat view only its own seat may see
PRIVATE_FIELDS = ("seat", "hand", "legal", "must_pass", "passed", "received")


def invite_url(invite: str | None) -> str | None:
    return None if invite is None else f"/hearts/join/{invite}"


def seat_infos(
    live: LiveTable, connected: Collection[int], away: Collection[int]
) -> list[SeatInfo]:
    return [
        SeatInfo(
            seat=s.seat,
            name=s.name,
            kind=s.kind,
            level=s.level,
            connected=s.kind == "computer" or s.seat in connected,
            away=s.kind == "human" and s.seat in away,
        )
        for s in live.seats
    ]


def table_info(
    live: LiveTable, *, host: bool, connected: Collection[int], away: Collection[int]
) -> TableInfo:
    record = live.record
    return TableInfo(
        id=record.id,
        mode=record.mode,
        status=live.status,
        code=live.code,
        preset=record.preset,
        rules=live.rules.to_dict(),
        invite=record.invite,
        invite_url=invite_url(record.invite),
        host=host,
        seats=seat_infos(live, connected, away),
        version=live.version,
    )


def public_part(view: SeatView, awaiting: Collection[int]) -> dict[str, Any]:
    """A seat view with the seat's own cards removed: what anyone at the table may know."""
    data = view.to_dict()
    for key in PRIVATE_FIELDS:
        data.pop(key, None)
    data.pop("tricks")
    data["last_trick"] = view.tricks[-1].to_dict() if view.tricks else None
    data["tricks_played"] = len(view.tricks)
    players = view.rules.players
    passing = view.phase == "pass"
    data["passed"] = [passing and seat not in awaiting for seat in range(players)]
    return data


def sheet(match: Match) -> Sheet:
    """Points of each finished hand, the running totals after it, and who shot the moon."""
    lines = match.score_sheet()
    return Sheet(
        hands=[list(line.points) for line in lines],
        totals=[list(line.totals) for line in lines],
        shooters=[line.shooter for line in lines],
        moons=[line.moon for line in lines],
        moon_points=match.rules.total_points(),
    )


def illegal_reasons(match: Match, view: SeatView) -> dict[str, str]:
    """Why each card of the seat's hand that is not legal now cannot be played."""
    if view.to_play != view.seat:
        return {}
    legal = set(view.legal)
    out: dict[str, str] = {}
    for card in dict.fromkeys(view.hand):
        if card not in legal:
            reason = match.hand.why_illegal(view.seat, card)
            if reason is not None:
                out[card.code] = reason.value
    return out


def pass_receiver(view: SeatView | None) -> int | None:
    """Who receives this seat's pass in this hand (the engine's rule, not the page's)."""
    if view is None or view.phase != "pass":
        return None
    target = view.rules.pass_target(view.seat, view.pass_direction)
    return None if target == view.seat else target


def table_state(
    live: LiveTable,
    *,
    you: Collection[int],
    view_seat: int | None,
    host: bool,
    connected: Collection[int],
    away: Collection[int],
    since: int | None = None,
) -> HeartsState:
    """The ``hearts.state`` for a connection holding ``you`` and shown ``view_seat``'s hand."""
    match = live.match
    awaiting = list(live.awaiting())
    info = table_info(live, host=host, connected=connected, away=away)
    events = live.events_since(since)
    if match is None:
        return HeartsState(
            table=info,
            you=sorted(you),
            awaiting=[],
            public={},
            view=None,
            illegal={},
            sheet=Sheet(hands=[], totals=[], shooters=[], moon_points=live.rules.total_points()),
            over=None,
            events=events or [],
            resync=events is None,
        )
    # the public part comes from a seat view too: the seat shown, or else seat 0's, stripped
    private = match.view(view_seat) if view_seat is not None else None
    base = private if private is not None else match.view(0)
    return HeartsState(
        table=info,
        you=sorted(you),
        awaiting=awaiting,
        public=public_part(base, awaiting),
        view=private.to_dict() if private is not None else None,
        illegal=illegal_reasons(match, private) if private is not None else {},
        pass_to=pass_receiver(private),
        sheet=sheet(match),
        over=Over(winners=list(match.winners)) if match.is_over else None,
        events=events or [],
        resync=events is None,
    )


# --- the same state, written once per version for every seat ----------------------------------

#: the fields of a ``hearts.state`` that depend on the connection (the rest are the same for
#: every socket at the table at one version)
_OWN_FIELDS = frozenset({"you", "view", "illegal", "pass_to"})


#: one encoder, the way protocol.encode writes (json.dumps with options makes one per call)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_json = _ENCODER.encode


class StateFrames:
    """``hearts.state`` frames with the shared parts encoded once.

    Four people at a table hear each action: the table, who is awaited, the public view, the
    score sheet, the end and the events since the last version are the same for all of them,
    so they are built and encoded to JSON once per (table, version, presence) and kept in a
    small LRU; each socket adds only its own seat's view, its illegal cards and whom it passes
    to. The text is exactly what :func:`~heartsuit.server.protocol.encode` writes for
    :func:`table_state` (a test holds the two together), and every part still comes from seat
    views only: the shared parts from a view with its private fields removed.
    """

    def __init__(self, size: int = 2000) -> None:
        #: how many tables' parts are kept (only each table's newest version)
        self._size = size
        self._tables: OrderedDict[str, tuple[tuple[int, int], dict[Any, dict[str, str]]]] = (
            OrderedDict()
        )

    def text(
        self,
        live: LiveTable,
        *,
        you: Collection[int],
        view_seat: int | None,
        host: bool,
        connected: Collection[int],
        away: Collection[int],
        since: int | None = None,
    ) -> Encoded:
        """The frame :func:`table_state` would give, as encoded text."""
        parts_of = self._parts_of(live)
        table = self._cached(
            parts_of,
            ("table", host, frozenset(connected), frozenset(away)),
            lambda: {
                "table": _json(
                    table_info(live, host=host, connected=connected, away=away).model_dump(
                        mode="json"
                    )
                )
            },
        )
        shared = self._cached(parts_of, "shared", lambda: _shared(live))
        events = self._cached(parts_of, ("events", since), lambda: _events(live, since))
        match = live.match
        private = match.view(view_seat) if match is not None and view_seat is not None else None
        own = {
            "you": _json(sorted(you)),
            "view": _view_json(private, shared) if private is not None else "null",
            "illegal": _json(illegal_reasons(match, private))
            if match is not None and private is not None
            else "{}",
            "pass_to": _json(pass_receiver(private)),
        }
        parts = {**table, **shared, **events, **own}
        body = ",".join(f'"{name}":{parts[name]}' for name in _FIELD_ORDER)
        return Encoded("{" + body + "}")

    def _parts_of(self, live: LiveTable) -> dict[Any, dict[str, str]]:
        """The parts kept for this table at its version (a new version starts afresh; so does
        another copy of the table, whose event history may differ)."""
        table_id = live.record.id
        stamp = (live.version, id(live))
        kept = self._tables.get(table_id)
        # people coming and going within one version add presence variants: a few at most
        if kept is None or kept[0] != stamp or len(kept[1]) > 32:
            kept = self._tables[table_id] = (stamp, {})
        self._tables.move_to_end(table_id)
        while len(self._tables) > self._size:
            self._tables.popitem(last=False)
        return kept[1]

    @staticmethod
    def _cached(
        parts: dict[Any, dict[str, str]], key: Any, build: Callable[[], dict[str, str]]
    ) -> dict[str, str]:
        found = parts.get(key)
        if found is None:
            found = parts[key] = build()
        return found


#: the order in which pydantic writes a hearts.state's fields (so the texts are the same)
_FIELD_ORDER = tuple(HeartsState.model_fields)


def _shared(live: LiveTable) -> dict[str, str]:
    """The parts every socket at the table gets at this version (no seat's own cards)."""
    match = live.match
    if match is None:
        empty = Sheet(hands=[], totals=[], shooters=[], moon_points=live.rules.total_points())
        return {
            "type": _json("hearts.state"),
            "awaiting": "[]",
            "public": "{}",
            "sheet": _json(empty.model_dump(mode="json")),
            "over": "null",
        }
    awaiting = list(live.awaiting())
    over = Over(winners=list(match.winners)) if match.is_over else None
    base = match.view(0).to_dict()
    # every seat's own view shares these fields (the rules, the tricks, the scores...): each
    # is encoded once here, and a seat's view adds only its private fields to them
    view_parts = {
        f"view.{key}": _json(value) for key, value in base.items() if key not in PRIVATE_FIELDS
    }
    return {
        **view_parts,
        "view.order": ",".join(base),  # the field order of SeatView.to_dict()
        "type": _json("hearts.state"),
        "awaiting": _json(awaiting),
        # any seat's view with its private fields removed: seat 0's, as table_state does
        # when it shows no hand
        "public": _json(public_part(match.view(0), awaiting)),
        "sheet": _json(sheet(match).model_dump(mode="json")),
        "over": _json(over.model_dump(mode="json")) if over is not None else "null",
    }


def _private_fields(view: SeatView) -> dict[str, Any]:
    """The fields of ``view.to_dict()`` that only its own seat may see, as it writes them."""
    return {
        "seat": view.seat,
        "hand": [c.code for c in view.hand],
        "legal": [c.code for c in view.legal],
        "must_pass": view.must_pass,
        "passed": [c.code for c in view.passed],
        "received": [c.code for c in view.received],
    }


def _view_json(view: SeatView, shared: dict[str, str]) -> str:
    """``json(view.to_dict())``, from the table's shared fields and this seat's own."""
    own = _private_fields(view)
    parts = []
    for key in shared["view.order"].split(","):
        text = _json(own[key]) if key in own else shared[f"view.{key}"]
        parts.append(f'"{key}":{text}')
    return "{" + ",".join(parts) + "}"


def _events(live: LiveTable, since: int | None) -> dict[str, str]:
    events = live.events_since(since)
    return {"events": _json(events or []), "resync": _json(events is None)}
