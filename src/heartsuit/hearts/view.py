"""What one seat may know: :class:`SeatView` and :class:`TrickRecord`.

A seat view is the only thing a bot, a client or a log ever receives about a hand in progress
(DESIGN.md, principle 3). It holds the seat's own cards, every card already played and by whom,
the seat's own pass, scores and counts — never another seat's unplayed cards, and never the
kitty before the hand is over. The views are built by :meth:`heartsuit.hearts.game.Hand.view`;
this module defines their shape and their JSON form, and :func:`seat_view_on_read`, the view a
hand in play builds: its cards and tricks are made when first read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from heartsuit.cards import Card
from heartsuit.hearts.actions import MoonChoice
from heartsuit.hearts.rules import PassDirection, Rules

PhaseName = Literal["pass", "play", "moon", "done"]


def _codes(cards: tuple[Card, ...]) -> list[str]:
    return [c.code for c in cards]


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """One trick: who led, the plays in order, who took it and the points they took with it."""

    leader: int
    plays: tuple[tuple[int, Card], ...]  # (seat, card) in playing order
    # None while the trick is open, or when all of it was cancelled and it is held over
    winner: int | None
    # points the winner takes with this trick (J♦ -10 included when on), with the cards held
    # over from an earlier cancelled trick; for a held-over trick, the points it carries
    # forward; never the kitty's
    points: int
    # indices into ``plays`` of the cards cancelled by an identical card (Cancellation only)
    cancelled: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "leader": self.leader,
            "plays": [[seat, card.code] for seat, card in self.plays],
            "winner": self.winner,
            "points": self.points,
            "cancelled": list(self.cancelled),
        }


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything ``seat`` may know about the current hand, and nothing more."""

    seat: int
    rules: Rules
    phase: PhaseName
    hand_number: int  # 0-based within the match (0 for a lone Hand)
    hand: tuple[Card, ...]  # this seat's own cards, sorted by suit then rank
    legal: tuple[Card, ...]  # legal plays now; empty unless it is this seat's turn to play
    to_play: int | None
    pass_direction: PassDirection
    must_pass: bool  # True while this seat still has to choose its pass
    passed: tuple[Card, ...]  # what this seat passed (empty if none yet / no pass)
    received: tuple[Card, ...]  # what it received (empty until every seat has passed)
    trick: TrickRecord | None  # the trick in progress (None between tricks)
    tricks: tuple[TrickRecord, ...]  # completed tricks, in order
    points_taken: tuple[int, ...]  # points taken so far this hand, per seat (no kitty, no moon)
    hearts_broken: bool
    scores: tuple[int, ...]  # match totals before this hand
    cards_left: tuple[int, ...]  # unplayed cards per seat (counts only)
    # --- additions beyond the shared contract (all defaulted) ---
    kitty_size: int = 0  # cards in the kitty (Cancellation), known to all
    kitty: tuple[Card, ...] = ()  # the kitty's cards, shown only once the hand is done
    held_over: tuple[Card, ...] = ()  # cancelled cards waiting for the next trick's winner
    hand_points: tuple[int, ...] = ()  # final points per seat (moon, bonuses), once done
    shooter: int | None = None  # the seat that shot the moon, once every card is played
    # each way to score that moon and the points per seat it gives (phase "moon" and after)
    moon_options: tuple[tuple[MoonChoice, tuple[int, ...]], ...] = ()
    moon_choice: MoonChoice | None = None  # how the moon was scored, once the hand is done

    def to_dict(self) -> dict[str, object]:
        """A JSON-able dict; cards as ASCII codes ("QS", "10H")."""
        return {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "phase": self.phase,
            "hand_number": self.hand_number,
            "hand": _codes(self.hand),
            "legal": _codes(self.legal),
            "to_play": self.to_play,
            "pass_direction": str(self.pass_direction),
            "must_pass": self.must_pass,
            "passed": _codes(self.passed),
            "received": _codes(self.received),
            "trick": None if self.trick is None else self.trick.to_dict(),
            "tricks": [t.to_dict() for t in self.tricks],
            "points_taken": list(self.points_taken),
            "hearts_broken": self.hearts_broken,
            "scores": list(self.scores),
            "cards_left": list(self.cards_left),
            "kitty_size": self.kitty_size,
            "kitty": _codes(self.kitty),
            "held_over": _codes(self.held_over),
            "hand_points": list(self.hand_points),
            "shooter": self.shooter,
            "moon_options": {choice: list(points) for choice, points in self.moon_options},
            "moon_choice": self.moon_choice,
        }


# --- views made when read --------------------------------------------------------------------

_FIELDS = tuple(f.name for f in fields(SeatView))
_SLOT = {name: SeatView.__dict__[name] for name in _FIELDS}  # the slots of SeatView's fields
_new = object.__new__

#: a completed trick's TrickRecord fields: leader, plays, winner, points, cancelled
TrickFields = tuple[int, tuple[tuple[int, Card], ...], int | None, int, tuple[int, ...]]


class SeatViewOnRead(SeatView):
    """A :class:`SeatView` whose ``hand``, ``legal``, ``received`` and ``trick`` are made the
    first time they are read, from immutable copies taken when the view was built (cards as
    positions in the deck), so that a view costs little until it is read, and reads the same as
    a view built whole at that moment.

    It is a SeatView in every way (its fields, ``to_dict``, equality with any SeatView of the
    same fields, hashing, ``dataclasses.replace``); a copy or a pickle of it is a plain SeatView.
    It holds the seat's own cards and public facts only, never the hand it came from.
    """

    __slots__ = ("_deck", "_hand_at", "_legal_at", "_received_at", "_trick_at")

    _deck: tuple[Card, ...]
    _hand_at: tuple[int, ...]
    _legal_at: tuple[int, ...]
    # who passed to this seat, and the passes then (or None: nothing received)
    _received_at: tuple[int, tuple[tuple[Card, ...] | None, ...]] | None
    # the open trick: leader, plays, the played positions and the rules' points per position
    _trick_at: tuple[int, tuple[tuple[int, Card], ...], tuple[int, ...], tuple[int, ...]] | None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeatView):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    __hash__ = SeatView.__hash__

    def __repr__(self) -> str:
        return SeatView.__repr__(self).replace(type(self).__qualname__, "SeatView", 1)

    def __reduce__(self) -> tuple[Any, ...]:
        return (SeatView, tuple(getattr(self, name) for name in _FIELDS))


def _on_read(name: str, make: Callable[[SeatViewOnRead], object]) -> property:
    # the field ``name`` read through its SeatView slot, made by ``make`` when still empty;
    # setting it (SeatView's __init__, as dataclasses.replace calls it) fills the slot
    slot = _SLOT[name]
    get, put = slot.__get__, slot.__set__

    def read(view: SeatViewOnRead) -> object:
        try:
            return get(view, SeatViewOnRead)
        except AttributeError:
            value = make(view)
            put(view, value)
            return value

    return property(read, put)


def _hand(view: SeatViewOnRead) -> tuple[Card, ...]:
    deck = view._deck
    return tuple([deck[p] for p in view._hand_at])


def _legal(view: SeatViewOnRead) -> tuple[Card, ...]:
    deck = view._deck
    return tuple([deck[p] for p in view._legal_at])


def _received(view: SeatViewOnRead) -> tuple[Card, ...]:
    if view._received_at is None:
        return ()
    giver, passes = view._received_at
    return passes[giver] or ()


def _trick(view: SeatViewOnRead) -> TrickRecord | None:
    if view._trick_at is None:
        return None
    leader, plays, positions, points = view._trick_at
    # no cancellation here (a hand with it builds its views whole): nothing is cancelled
    return TrickRecord(leader, plays, None, sum([points[p] for p in positions]), ())


SeatViewOnRead.hand = _on_read("hand", _hand)  # type: ignore[assignment]
SeatViewOnRead.legal = _on_read("legal", _legal)  # type: ignore[assignment]
SeatViewOnRead.received = _on_read("received", _received)  # type: ignore[assignment]
SeatViewOnRead.trick = _on_read("trick", _trick)  # type: ignore[assignment]

# the fields a view in play sets as it is built, in this order (the rest are made on read)
_BUILT = (
    "seat",
    "rules",
    "phase",
    "hand_number",
    "to_play",
    "pass_direction",
    "must_pass",
    "passed",
    "points_taken",
    "hearts_broken",
    "scores",
    "cards_left",
    "tricks",
    "kitty_size",
    "kitty",
    "held_over",
    "hand_points",
    "shooter",
    "moon_options",
    "moon_choice",
)
_PUT = tuple(_SLOT[name].__set__ for name in _BUILT)


def seat_view_on_read(
    built: Sequence[object],
    deck: tuple[Card, ...],
    hand_at: tuple[int, ...],
    legal_at: tuple[int, ...],
    received_at: tuple[int, tuple[tuple[Card, ...] | None, ...]] | None,
    trick_at: tuple[int, tuple[tuple[int, Card], ...], tuple[int, ...], tuple[int, ...]] | None,
) -> SeatView:
    """A :class:`SeatViewOnRead`: ``built`` holds the values of the fields in ``_BUILT``'s
    order; the others are made on read from the rest (see the class's slots)."""
    view = _new(SeatViewOnRead)
    # one call per slot, written out (a loop over them cost as much as the calls)
    (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19) = (
        _PUT
    )
    (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19) = (
        built
    )
    p0(view, v0)
    p1(view, v1)
    p2(view, v2)
    p3(view, v3)
    p4(view, v4)
    p5(view, v5)
    p6(view, v6)
    p7(view, v7)
    p8(view, v8)
    p9(view, v9)
    p10(view, v10)
    p11(view, v11)
    p12(view, v12)
    p13(view, v13)
    p14(view, v14)
    p15(view, v15)
    p16(view, v16)
    p17(view, v17)
    p18(view, v18)
    p19(view, v19)
    own_deck, own_hand, own_legal, own_received, own_trick = _PUT_OWN
    own_deck(view, deck)
    own_hand(view, hand_at)
    own_legal(view, legal_at)
    own_received(view, received_at)
    own_trick(view, trick_at)
    return view


# SeatViewOnRead's own slots, set the same way (the frozen class refuses attribute assignment)
_PUT_OWN = tuple(SeatViewOnRead.__dict__[name].__set__ for name in SeatViewOnRead.__slots__)
