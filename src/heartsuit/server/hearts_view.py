"""What one connection is told about a Hearts table: built from seat views and nothing else.

Every ``hearts.state`` message comes from :func:`table_state`. The private part is the engine's
:meth:`~heartsuit.hearts.match.Match.view` of exactly one seat, the one this connection plays
(or, on a shared device, the seat whose turn it is, once its person asked to look). The public
part is a seat view with every private field taken out, so no code path can put another seat's
hand into a message (DESIGN.md, principle 3); the reasons a card cannot be played are asked of
the engine (``why_illegal``) for the cards of that one view.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from heartsuit.hearts import Match, SeatView
from heartsuit.server.hearts_protocol import HeartsState, Over, SeatInfo, Sheet, TableInfo
from heartsuit.server.hearts_tables import LiveTable

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
