"""What one connection is told about a Hearts table: built from seat views and nothing else.

A ``hearts.state`` is written as text by :class:`StateFrames` from parts encoded once per table
version (a stale intent's ``error`` carries the same text: :func:`error_frame`);
:func:`table_state` builds the same state as the protocol's model, the contract the text is held
to by ``tests/test_server_hearts_frames.py``. The private part is the engine's
:meth:`~heartsuit.hearts.match.Match.view` of exactly one seat, the one this connection plays
(or, on a shared device, the seat whose turn it is, once its person asked to look). The public
part is a seat view with every private field taken out, so no code path can put another seat's
hand into a message (DESIGN.md, principle 3); the reasons a card cannot be played are asked of
the engine (``why_illegal``) for the cards of that one view.

Why one module of this length: the model and the text are two writings of one state, field by
field, and a field added to one must be added to the other beside it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from heartsuit.cards import Card
from heartsuit.hearts import Match, Phase, Rules, SeatView
from heartsuit.server.core.protocol import Encoded, encode, json_text
from heartsuit.server.hearts.live_table import LiveTable
from heartsuit.server.hearts.protocol import (
    HeartsErrorReply,
    HeartsState,
    LastHand,
    Over,
    SeatInfo,
    Sheet,
    TableInfo,
)

#: the fields of a seat view only its own seat may see
PRIVATE_FIELDS = ("seat", "hand", "legal", "must_pass", "passed", "received")


def invite_url(invite: str | None) -> str | None:
    return None if invite is None else f"/hearts/join/{invite}"


def replay_url(table_id: str, match: int) -> str:
    """The replay page of match ``match`` (from 1) of a table."""
    return f"/hearts/replay/{table_id}/{match}"


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
    # a running match's code deals every hand: it is shown, with the replay, once it is over
    over = live.status == "over"
    return TableInfo(
        id=record.id,
        mode=record.mode,
        status=live.status,
        code=live.code if over else None,
        replay_url=replay_url(record.id, live.match_no + 1) if over else None,
        preset=record.preset,
        rules=live.rules.to_dict(),
        invite=record.invite,
        invite_url=invite_url(record.invite),
        host=host,
        seats=seat_infos(live, connected, away),
        pace=live.pace,
        hints=live.hints,
        version=live.version,
    )


def public_part(view: SeatView, awaiting: Collection[int]) -> dict[str, Any]:
    """A seat view with the seat's own cards removed: what anyone at the table may know."""
    # the finished tricks are left out (only the last one is shown): not written at all
    data = replace(view, tricks=()).to_dict()
    for key in PRIVATE_FIELDS:
        data.pop(key, None)
    data.pop("tricks")
    data["last_trick"] = view.tricks[-1].to_dict() if view.tricks else None
    data["tricks_played"] = len(view.tricks)
    players = view.rules.players
    passing = view.phase == "pass"
    data["passed"] = [passing and seat not in awaiting for seat in range(players)]
    return data


def next_hand(live: LiveTable, timer_ms: int) -> dict[str, Any] | None:
    """Between hands: the hand waited for, the people still to say "next hand", and online
    when the computers go on without them (the server's clock, ms since the epoch) and how
    long that wait is; None when nobody is waited for."""
    waiting = live.waiting()
    if not waiting or live.between is None:
        return None
    online = live.record.mode == "online"
    return {
        "hand": live.between.hand,
        "waiting": list(waiting),
        "deadline_ms": live.between.since_ms + timer_ms if online else None,
        "timer_ms": timer_ms if online else None,
    }


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


def last_hand(match: Match) -> LastHand | None:
    """The cards that count each seat took in the tricks of the hand finished last.

    Only the tricks are read (every card in them was played face up); a trick whose cards were
    all cancelled is held over, and its cards go to the winner of the next trick that has one.
    """
    hands = match.hands
    number = len(hands) - 1 if hands[-1].phase is Phase.DONE else len(hands) - 2
    if number < 0:
        return None
    hand = hands[number]
    rules = match.rules
    taken: list[list[str]] = [[] for _ in range(rules.players)]
    held: list[str] = []
    for trick in hand.view(0).tricks:
        counted = [card.code for _, card in trick.plays if rules.card_points(card) != 0]
        if trick.winner is None:
            held.extend(counted)
        else:
            taken[trick.winner].extend(held + counted)
            held = []
    return LastHand(hand_number=number, taken=taken)


def illegal_reasons(match: Match, view: SeatView) -> dict[str, str]:
    """Why each card of the seat's hand that is not legal now cannot be played."""
    if view.to_play != view.seat:
        return {}
    # a view's legal cards are the very objects of its hand (one deck): a card that is one
    # of them is legal; any other is asked of the engine (which answers None for a legal card
    # that is only equal to one, so the answer never depends on this shortcut)
    legal = {id(card) for card in view.legal}
    why = match.hand.why_illegal
    seat = view.seat
    out: dict[str, str] = {}
    for card in view.hand:
        if id(card) not in legal:
            code = card.code
            if code not in out:
                reason = why(seat, card)
                if reason is not None:
                    out[code] = reason.value
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
    next_hand_ms: int = 18_000,
) -> HeartsState:
    """The ``hearts.state`` for a connection holding ``you`` and shown ``view_seat``'s hand
    (``next_hand_ms``: online, how long the computers wait between hands)."""
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
    public = public_part(base, awaiting)
    public["next_hand"] = next_hand(live, next_hand_ms)
    return HeartsState(
        table=info,
        you=sorted(you),
        awaiting=awaiting,
        public=public,
        view=private.to_dict() if private is not None else None,
        illegal=illegal_reasons(match, private) if private is not None else {},
        pass_to=pass_receiver(private),
        sheet=sheet(match),
        over=Over(winners=list(match.winners)) if match.is_over else None,
        last_hand=last_hand(match),
        events=events or [],
        resync=events is None,
    )


# --- the same state, written once per version for every seat ----------------------------------

#: the fields of a ``hearts.state`` that depend on the connection (the rest are the same for
#: every socket at the table at one version)
_OWN_FIELDS = frozenset({"you", "view", "illegal", "pass_to"})


_json = json_text


def error_frame(reply: HeartsErrorReply, state: Encoded | None) -> Encoded:
    """``reply`` (whose ``state`` is None) with ``state``, a frame written by
    :meth:`StateFrames.text`, in its place: the text the model holding that state would be
    written as, without building the state's model (``state`` is the model's last field)."""
    written = encode(reply)
    if state is None:
        return Encoded(written)
    assert written.endswith(',"state":null}'), "state must stay HeartsErrorReply's last field"
    return Encoded(f'{written[:-len("null}")]}{state.text}}}')


@dataclass(slots=True)
class _Kept:
    """What :class:`StateFrames` keeps of one table: the parts of its newest version, and the
    parts that change more slowly than the version (kept while the same copy of the table is
    shown, each checked against what it was made from)."""

    live: LiveTable
    version: int
    #: online, how long the computers wait between hands
    next_hand_ms: int = 18_000
    #: the parts of this version: "shared", ("table", ...) presence variants, ("events", since)
    parts: dict[Any, dict[str, str]] = field(default_factory=dict)
    #: the view's fields split around the private ones (see _view_segments)
    segments: list[tuple[str, bool]] = field(default_factory=list)
    #: the table part without its version, by (host, connected, away, status, seats, seed)
    tables: dict[Any, str] = field(default_factory=dict)
    #: the score sheet: the match, (hand number, phase) when written, its text and the text of
    #: the last hand's summary (both change only when a hand ends)
    sheet: tuple[Match, tuple[int, str], str, str] | None = None
    #: the finished tricks of the hand: the match, the hand number, one text per trick
    tricks: tuple[Match, int, list[str]] | None = None
    #: the table's rules and their text
    rules: tuple[Rules, str] | None = None
    #: the public part (without its rules), each field as JSON text, and who is awaited, at
    #: this version (once made). Text, not the values: a dict of strings is not tracked by the
    #: garbage collector, and every table's newest public part is young when a collection
    #: comes (docs/bench-hearts.md, "The garbage collector")
    public: tuple[dict[str, str], tuple[int, ...]] | None = None
    #: the same at the version before, when this copy of the table was kept at it
    before: tuple[dict[str, str], tuple[int, ...]] | None = None
    # (no seat views: each is made when a text of its seat is written, and is gone with the
    # call. Kept for the version, four views a change with their cards' tuples outlived the
    # young collection and were walked again and again: see bench/RESULTS.md, 2026-12-02, "no
    # seat view kept")
    #: per seat, what a frame or a patch to this version writes of the seat's own (its view,
    #: its illegal cards' reasons, whom it passes to), once written
    own: dict[tuple[str, int], Any] = field(default_factory=dict)
    #: the patch to this version of a socket whose seat has none of its own fields in it
    #: (most of a table's sockets), once made: the same frame for each of them
    patch_public: Encoded | None = None


class StateFrames:
    """``hearts.state`` frames with the shared parts encoded once.

    Four people at a table hear each action: the table, who is awaited, the public view, the
    score sheet, the end and the events since the last version are the same for all of them,
    so they are built and encoded to JSON once per (table, version, presence) and kept in a
    small LRU; each socket adds only its own seat's view, its illegal cards and whom it passes
    to. What changes more slowly than the version is kept longer: the table part (all but its
    version) until a seat, the presence or the status changes, the score sheet for the hand, and
    each finished trick for its hand. The text is exactly what
    :func:`~heartsuit.server.core.protocol.encode` writes for :func:`table_state` (a test holds the
    two together), and every part still comes from seat views only: the shared parts from a view
    with its private fields removed.
    """

    def __init__(self, size: int = 2000, *, next_hand_ms: int = 18_000) -> None:
        #: how many tables' parts are kept (only each table's newest version)
        self._size = size
        #: online, how long the computers wait between hands (for the public ``next_hand``)
        self.next_hand_ms = next_hand_ms
        self._tables: OrderedDict[str, _Kept] = OrderedDict()

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
        kept = self._kept(live)
        parts_of = kept.parts
        table_key = ("table", host, frozenset(connected), frozenset(away))
        table = parts_of.get(table_key)
        if table is None:
            # people coming and going within one version add presence variants: a few at most
            if len(parts_of) > 32:
                parts_of.clear()
            table = parts_of[table_key] = {
                "table": _table_json(kept, live, host, table_key[2], table_key[3])
            }
        shared = self._shared(kept, live)
        events_key = ("events", since)
        events = parts_of.get(events_key)
        if events is None:
            events = parts_of[events_key] = _events(live, since)
        match = live.match
        if match is not None and view_seat is not None:
            written = kept.own.get(("state", view_seat))
            if written is None:
                private = match.view(view_seat)
                written = kept.own[("state", view_seat)] = (
                    _view_json(private, kept.segments),
                    _json(illegal_reasons(match, private)),
                    _json(pass_receiver(private)),
                )
            view, illegal, pass_to = written
        else:
            view, illegal, pass_to = "null", "{}", "null"
        own = {"you": _json(sorted(you)), "view": view, "illegal": illegal, "pass_to": pass_to}
        parts = {**table, **shared, **events, **own}
        body = ",".join(f'"{name}":{parts[name]}' for name in _FIELD_ORDER)
        return Encoded("{" + body + "}")

    def patch(self, live: LiveTable, *, view_seat: int | None) -> Encoded | None:
        """The ``hearts.patch`` that takes a socket shown ``view_seat``'s hand from the version
        before ``live``'s to it, or None when that socket needs the whole state.

        A patch is made only when the step changed nothing but the public fields of
        :data:`PATCHED_FIELDS` (a card played within a trick or one that ends a trick but not
        the hand, a pass that is not the last; on a table that is not a shared device). When
        the seat shown is awaited before or after the step (it acted, acts next, or has still
        to pass), the patch also carries that seat's own fields (``hand``, ``legal``,
        ``must_pass``, ``passed``, ``received``, in ``view``) and its ``illegal`` reasons, from
        its own view only; ``pass_to`` does not change in such a step (same phase and pass
        direction), and a seat awaited neither before nor after it has none of its own fields
        changed.
        The socket must also be shown the same table part as before (its caller checks), and
        have seen exactly the version before. Everything else in it comes from the public
        part, as in a whole state.
        """
        match = live.match
        if match is None or live.record.mode == "hotseat":
            return None
        kept = self._kept(live)
        before = kept.before
        if before is None:
            return None
        now = _public(kept, live)
        common = kept.parts.get("patch")
        if common is None:
            text = _patch_text(kept, live, before, now)
            common = kept.parts["patch"] = {"text": text or ""}
        if not common["text"]:
            return None
        if view_seat is None or (view_seat not in now[1] and view_seat not in before[1]):
            public = kept.patch_public
            if public is None:
                public = kept.patch_public = Encoded(common["text"] + "}")
            return public
        text = kept.own.get(("patch", view_seat))
        if text is None:
            own = match.view(view_seat)
            text = kept.own[("patch", view_seat)] = (
                f'{common["text"]},"view":{{"hand":{_codes_json(own.hand)},'
                f'"legal":{_codes_json(own.legal)},'
                f'"must_pass":{"true" if own.must_pass else "false"},'
                f'"passed":{_codes_json(own.passed)},"received":{_codes_json(own.received)}}},'
                f'"illegal":{_json(illegal_reasons(match, own))}}}'
            )
        return Encoded(text)

    def _shared(self, kept: _Kept, live: LiveTable) -> dict[str, str]:
        shared = kept.parts.get("shared")
        if shared is None:
            shared = kept.parts["shared"] = _shared(kept, live)
        return shared

    def _kept(self, live: LiveTable) -> _Kept:
        """What is kept for this table, made current for its version (another copy of the
        table, whose event history may differ, starts afresh)."""
        table_id = live.record.id
        kept = self._tables.get(table_id)
        if kept is None or kept.live is not live:
            kept = self._tables[table_id] = _Kept(live, live.version, self.next_hand_ms)
        elif kept.version != live.version:
            kept.before = kept.public if kept.version == live.version - 1 else None
            kept.public = None
            kept.version = live.version
            kept.parts = {}
            kept.segments = []
            kept.own = {}
            kept.patch_public = None
        self._tables.move_to_end(table_id)
        while len(self._tables) > self._size:
            self._tables.popitem(last=False)
        return kept


#: the public fields a ``hearts.patch`` may carry: what a card played within a trick changes
#: (the seat views share them, so a client sets each in its public part and in its own view),
#: and at a trick's end (not the hand's) also the last trick and the count of tricks played,
#: which a client also adds to its view's finished ``tricks``; during the pass (but its last),
#: who has passed (``passed``: public, not the view's own field of that name); between hands,
#: who is still waited for (``next_hand``: a person's first pass says they are ready)
PATCHED_FIELDS = frozenset(
    {
        "passed",
        "trick",
        "to_play",
        "cards_left",
        "hearts_broken",
        "points_taken",
        "held_over",
        "kitty_size",
        "last_trick",
        "tricks_played",
        "next_hand",
    }
)


def apply_patch(state: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any] | None:
    """What a client does with a ``hearts.patch`` (the page's ``hearts.js`` does the same):
    the whole state it makes from the ``state`` it holds, or None when that state is not the
    patch's base (a version missed: ask for the whole state again)."""
    if state["table"]["id"] != patch["table"] or state["table"]["version"] != patch["version"] - 1:
        return None
    table = {**state["table"], "version": patch["version"]}
    public = {**state["public"], **patch["public"]}
    view = state["view"]
    if view is not None:
        # (the public "passed", who has passed, is not the view's own "passed", its cards)
        shared = {k: v for k, v in patch["public"].items() if k in view and k not in PRIVATE_FIELDS}
        view = {**view, **shared}
        if "tricks_played" in patch["public"]:
            # a trick ended: the view's finished tricks end with it
            view["tricks"] = [*view["tricks"], patch["public"]["last_trick"]]
        # the seat's own cards, when it played or plays next
        view.update(patch.get("view", {}))
    made = {
        **state,
        "table": table,
        "awaiting": patch["awaiting"],
        "public": public,
        "view": view,
        "events": patch["events"],
        "resync": False,
    }
    if "illegal" in patch:
        made["illegal"] = patch["illegal"]
    return made


#: the order in which pydantic writes a hearts.state's fields (so the texts are the same)
_FIELD_ORDER = tuple(HeartsState.model_fields)


def _table_json(
    kept: _Kept, live: LiveTable, host: bool, connected: frozenset[int], away: frozenset[int]
) -> str:
    """``table_info(...)`` as JSON; all of it but the version is kept until something in it
    changes (the version is the model's last field)."""
    key = (host, connected, away, live.status, tuple(live.seats), live.seed, live.pace)
    head = kept.tables.get(key)
    if head is None:
        # the variants of an earlier status, seating or deal are never shown again: drop them
        # (people coming and going leave a few presence variants of the current one)
        tables = kept.tables
        for old in [k for k in tables if k[3:] != key[3:]]:
            del tables[old]
        if len(tables) > 32:
            tables.clear()
        info = table_info(live, host=host, connected=connected, away=away)
        text = _json(info.model_dump(mode="json"))
        tail = f',"version":{info.version}}}'
        assert text.endswith(tail), "TableInfo's last field is its version"
        head = kept.tables[key] = text[: -len(tail)]
    return f'{head},"version":{live.version}}}'


def _shared(kept: _Kept, live: LiveTable) -> dict[str, str]:
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
            "last_hand": "null",
        }
    seat0 = match.view(0)
    public, awaited = _public(kept, live, seat0)
    awaiting = list(awaited)
    over = Over(winners=list(match.winners)) if match.is_over else None
    base = _view_dict(seat0)
    rules = _rules_json(kept, seat0)
    # every seat's own view shares these fields (the rules, the tricks, the scores...): each
    # is encoded once here, and a seat's view adds only its private fields to them; the
    # finished tricks of the hand are kept as they were written (they never change), the rules
    # for the table's life
    kept.segments = _view_segments(
        base, {"rules": rules, "tricks": _tricks_json(kept, match, seat0)}
    )
    moment = (match.hand_number, match.hand.phase)
    if kept.sheet is None or kept.sheet[0] is not match or kept.sheet[1] != moment:
        summary = last_hand(match)
        kept.sheet = (
            match,
            moment,
            _json(sheet(match).model_dump(mode="json")),
            "null" if summary is None else _json(summary.model_dump(mode="json")),
        )
    return {
        "type": _json("hearts.state"),
        "awaiting": _json(awaiting),
        # any seat's view with its private fields removed: seat 0's, as table_state does
        # when it shows no hand; the rules are its first field (the seat before them is
        # private), written from their kept text
        "public": '{"rules":' + rules + "," + _object_json(public)[1:],
        "sheet": kept.sheet[2],
        "over": _json(over.model_dump(mode="json")) if over is not None else "null",
        "last_hand": kept.sheet[3],
    }


def _rules_json(kept: _Kept, view: SeatView) -> str:
    """The table's rules as JSON, written once (a table's rules never change)."""
    if kept.rules is None or kept.rules[0] is not view.rules:
        kept.rules = (view.rules, _json(view.rules.to_dict()))
    return kept.rules[1]


#: in a view's dict: a field written apart (the rules and the finished tricks from kept
#: texts, see _shared; a seat's own fields by each socket, see _view_json)
_PENDING = object()


def _view_dict(view: SeatView) -> dict[str, Any]:
    """``view.to_dict()`` with the same keys in the same order, but the rules and the finished
    tricks left as placeholders (they are written from kept texts), and the seat's own fields
    (:data:`PRIVATE_FIELDS`) too: each socket writes its own seat's (see _view_segments), and
    the public part leaves them out, so the view they would come from is never read for them."""
    trick = view.trick
    return {
        "seat": _PENDING,
        "rules": _PENDING,
        "phase": view.phase,
        "hand_number": view.hand_number,
        "hand": _PENDING,
        "legal": _PENDING,
        "to_play": view.to_play,
        "pass_direction": str(view.pass_direction),
        "must_pass": _PENDING,
        "passed": _PENDING,
        "received": _PENDING,
        "trick": None if trick is None else trick.to_dict(),
        "tricks": _PENDING,
        "points_taken": list(view.points_taken),
        "hearts_broken": view.hearts_broken,
        "scores": list(view.scores),
        "cards_left": list(view.cards_left),
        "kitty_size": view.kitty_size,
        "kitty": [c.code for c in view.kitty],
        "held_over": [c.code for c in view.held_over],
        "hand_points": list(view.hand_points),
        "shooter": view.shooter,
        "moon_options": {choice: list(points) for choice, points in view.moon_options},
        "moon_choice": view.moon_choice,
    }


def _public(
    kept: _Kept, live: LiveTable, seat0: SeatView | None = None
) -> tuple[dict[str, str], tuple[int, ...]]:
    """``public_part(view, awaiting)`` without its rules (seat 0's view, as
    :func:`table_state` uses when it shows no hand; ``seat0`` when the caller made it already)
    and who is awaited, made once per version and kept (as text) for the next version's
    patches."""
    if kept.public is None:
        match = live.match
        assert match is not None
        awaiting = tuple(live.awaiting())
        if seat0 is None:
            seat0 = match.view(0)
        public = _public_dict(_view_dict(seat0), seat0, awaiting)
        public["next_hand"] = next_hand(live, kept.next_hand_ms)
        kept.public = ({key: _json(value) for key, value in public.items()}, awaiting)
    return kept.public


def _object_json(fields: dict[str, str]) -> str:
    """The JSON object of ``fields`` (each value JSON text already), as ``_json`` writes it."""
    return "{" + ",".join([f"{_json(key)}:{text}" for key, text in fields.items()]) + "}"


def _patch_text(
    kept: _Kept,
    live: LiveTable,
    before: tuple[dict[str, str], tuple[int, ...]],
    now: tuple[dict[str, str], tuple[int, ...]],
) -> str | None:
    """The text every socket's ``hearts.patch`` to this version starts with (without its
    closing brace), or None when the step changed more than :data:`PATCHED_FIELDS`."""
    old, new = before[0], now[0]
    if old.keys() != new.keys():
        return None
    changed = {key: value for key, value in new.items() if old[key] != value}
    if not changed.keys() <= PATCHED_FIELDS:
        return None
    if ("last_trick" in changed or "tricks_played" in changed) and (
        int(new["tricks_played"]) != int(old["tricks_played"]) + 1 or new["last_trick"] == "null"
    ):
        return None  # one trick more (a client adds the last one to its view's tricks)
    events = live.events_json_since(live.version - 1)
    if events is None:
        return None
    return (
        f'{{"type":"hearts.patch","table":{_json(live.record.id)},'
        f'"version":{live.version},"awaiting":{_json(list(now[1]))},'
        f'"public":{_object_json(changed)},"events":{events}'
    )


def _public_dict(base: dict[str, Any], view: SeatView, awaiting: Collection[int]) -> dict[str, Any]:
    data = {k: v for k, v in base.items() if k not in _NOT_PUBLIC}
    data["last_trick"] = view.tricks[-1].to_dict() if view.tricks else None
    data["tricks_played"] = len(view.tricks)
    passing = view.phase == "pass"
    data["passed"] = [passing and seat not in awaiting for seat in range(view.rules.players)]
    return data


#: what public_part leaves out of a view's dict (the rules are written apart)
_NOT_PUBLIC = frozenset({*PRIVATE_FIELDS, "tricks", "rules"})


def _tricks_json(kept: _Kept, match: Match, view: SeatView) -> str:
    """``json(view.to_dict()["tricks"])``, writing only the tricks finished since last time."""
    kept_tricks = kept.tricks
    if (
        kept_tricks is None
        or kept_tricks[0] is not match
        or kept_tricks[1] != match.hand_number
        or len(kept_tricks[2]) > len(view.tricks)
    ):
        kept_tricks = kept.tricks = (match, match.hand_number, [])
    written = kept_tricks[2]
    for trick in view.tricks[len(written) :]:
        written.append(_json(trick.to_dict()))
    return "[" + ",".join(written) + "]"


def _view_segments(base: dict[str, Any], written: dict[str, str]) -> list[tuple[str, bool]]:
    """A seat view's JSON as pieces: text shared by every seat, and the names of the private
    fields each seat writes between them (``(text, False)`` / ``(name, True)``). ``written``:
    fields of ``base`` given as JSON text already."""
    segments: list[tuple[str, bool]] = []
    pieces: list[str] = []  # the shared text since the last private field
    run: dict[str, Any] = {}  # shared fields in a row, encoded in one go

    def flush() -> None:
        if run:
            pieces.append(_json(run)[1:-1])  # {"a":1,"b":2} -> "a":1,"b":2
            run.clear()

    for key, value in base.items():
        if key in PRIVATE_FIELDS:
            flush()
            pieces.append(f'"{key}":')
            opening = "," if segments else "{"  # the text before this field
            segments.append((opening + ",".join(pieces), False))
            segments.append((key, True))
            pieces = []
        elif key in written:
            flush()
            pieces.append(f'"{key}":{written[key]}')
        else:
            run[key] = value
    flush()
    if not segments:
        return [("{" + ",".join(pieces) + "}", False)]
    segments.append(("".join("," + p for p in pieces) + "}", False))
    return segments


def _codes_json(cards: Sequence[Card]) -> str:
    """``json([c.code for c in cards])`` (a card's code is plain ASCII)."""
    return '["' + '","'.join([c.code for c in cards]) + '"]' if cards else "[]"


def _view_json(view: SeatView, segments: list[tuple[str, bool]]) -> str:
    """``json(view.to_dict())``, from the table's shared pieces and this seat's own fields."""
    own = {
        "seat": str(view.seat),
        "hand": _codes_json(view.hand),
        "legal": _codes_json(view.legal),
        "must_pass": "true" if view.must_pass else "false",
        "passed": _codes_json(view.passed),
        "received": _codes_json(view.received),
    }
    return "".join([own[text] if private else text for text, private in segments])


def _events(live: LiveTable, since: int | None) -> dict[str, str]:
    events = live.events_json_since(since)
    return {"events": events or "[]", "resync": _json(events is None)}
