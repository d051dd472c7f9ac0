"""One hand's state, private, behind read-only properties: the base of :class:`Hand`.

:class:`HandState` owns the fields of a hand in progress (cards held, passes, tricks, the kitty,
the phase, the actions) and answers questions about them with immutable copies; it never changes
them. The rules that change them live in :mod:`heartsuit.hearts.game`. Also here: the phases,
the refusal reasons and :class:`IllegalMove`, which both sides use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from types import FunctionType
from typing import Any, TypeGuard

from heartsuit.cards import Card
from heartsuit.hearts.actions import Action, MoonChoice
from heartsuit.hearts.deal import DealError, check_deal
from heartsuit.hearts.facts import RulesFacts, facts
from heartsuit.hearts.rules import HOLD, PassDirection, Rules
from heartsuit.hearts.view import TrickFields, TrickRecord

__all__ = [
    "Dealt",
    "HandState",
    "IllegalMove",
    "OpenTrick",
    "Phase",
    "Reason",
    "TrickFields",
    "cancelled_indices",
    "seat_of",
]


class Phase(StrEnum):
    PASS = "pass"
    PLAY = "play"
    #: every card is played and a seat shot the moon: it chooses how to score
    #: (``moon="shooter_chooses"`` only)
    MOON = "moon"
    DONE = "done"


class Reason(StrEnum):
    """Why an action was refused; a UI translates these codes."""

    WRONG_PHASE = "wrong_phase"
    NO_SUCH_SEAT = "no_such_seat"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    MUST_LEAD_OPENING_CARD = "must_lead_opening_card"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    HEARTS_NOT_BROKEN = "hearts_not_broken"
    NO_POINTS_FIRST_TRICK = "no_points_first_trick"
    WRONG_PASS_COUNT = "wrong_pass_count"
    DUPLICATE_CARD = "duplicate_card"
    ALREADY_PASSED = "already_passed"


class IllegalMove(ValueError):
    """An action the rules refuse; ``reason`` is a :class:`Reason`, the message reads well."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(slots=True)
class OpenTrick:
    """The trick being played (mutable, private to the hand; callers see a TrickRecord)."""

    leader: int
    plays: list[tuple[int, Card]]
    positions: list[int] = field(default_factory=list)  # the played cards' deck positions


#: a deal made by :meth:`Hand.deal <heartsuit.hearts.game.Hand.deal>` from the rules' own deck,
#: so it needs no check: each seat's positions (sorted), the kitty's, the pass direction, the
#: hand number and the match totals (what ``HandState._setup`` takes)
Dealt = tuple[list[list[int]], list[int], PassDirection, int, tuple[int, ...]]


#: the fields of a hand (its slots; a copy or a pickle holds them all but ``_facts``)
_FIELDS = (
    "_actions",
    "_dealt",
    "_dealt_positions",
    "_facts",
    "_hand_number",
    "_hearts_broken",
    "_held_over",
    "_held_plus",
    "_held_points",
    "_holdings",
    "_in_match",
    "_kitty",
    "_kitty_positions",
    "_kitty_taker",
    "_legal",
    "_legal_cards",
    "_moon_choice",
    "_opening",
    "_opening_position",
    "_pass_direction",
    "_passes",
    "_phase",
    "_players",
    "_plus",
    "_points_taken",
    "_raw",
    "_records",
    "_rules",
    "_scores",
    "_shooter",
    "_suit_cards",
    "_suits",
    "_taken",
    "_trick",
    "_tricks",
    "_turn",
)


class HandState:
    """The state of one hand; read it through the properties (every one returns a copy)."""

    # slots: a hand's fields are read at every play, and a slot is read faster than an
    # instance dict holding this many keys
    __slots__ = _FIELDS

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Sequence[Card]],
        *,
        kitty: Sequence[Card] = (),
        pass_direction: PassDirection | str | None = None,
        hand_number: int = 0,
        scores: Sequence[int] | None = None,
        _dealt: Dealt | None = None,
    ) -> None:
        if _dealt is not None:
            # Hand.deal's own deal of the rules' deck, already checked (no card check needed)
            self._setup(rules, *_dealt)
            return
        direction = check_deal(rules, hands, kitty, pass_direction, hand_number)
        totals = tuple(scores) if scores is not None else (0,) * rules.players
        if len(totals) != rules.players:
            raise DealError(f"scores need one total per seat ({rules.players}), not {totals}")
        table = facts(rules)
        self._setup(
            rules,
            [sorted([table.by_card[c] for c in h]) for h in hands],
            [table.by_card[c] for c in kitty],
            direction,
            hand_number,
            totals,
        )

    def _setup(
        self,
        rules: Rules,
        holdings: list[list[int]],
        kitty: list[int],
        direction: PassDirection,
        hand_number: int,
        scores: tuple[int, ...],
    ) -> None:
        # the fields of a checked deal, its cards as deck positions (facts.py), each hand
        # sorted (for display: facts.py); Hand.deal comes here directly, its deal being the
        # rules' deck
        self._rules = rules
        self._facts: RulesFacts = facts(rules)
        deck = self._facts.deck
        self._hand_number = hand_number
        self._scores = scores
        self._pass_direction = direction
        # the deal as positions; its cards are made when first read (``dealt``)
        self._dealt_positions = [tuple(h) for h in holdings]
        self._dealt: tuple[tuple[Card, ...], ...] | None = None
        self._kitty = tuple([deck[p] for p in kitty]) if kitty else ()
        self._kitty_positions = kitty
        self._holdings = holdings
        self._players = rules.players
        # with simple rules (facts.simple), once the play starts: each seat's cards split by
        # suit (facts.suit order), kept with the holdings, for listing the legal cards
        self._suits: list[list[list[int]]] | None = None
        # the same as cards (the deck's own values), side by side: legal_plays copies these
        self._suit_cards: list[list[list[Card]]] = []
        self._passes: list[tuple[Card, ...] | None] = [None] * rules.players
        # the cards each seat has taken, as positions (equal cards of two packs as the first)
        self._taken: list[list[int]] = [[] for _ in range(rules.players)]
        # points of the cards each seat took: all of them, and the positive ones (the moon)
        self._raw: list[int] = [0] * rules.players
        self._plus: list[int] = [0] * rules.players
        # the completed tricks as (leader, plays, winner, points, cancelled), the fields of
        # their TrickRecord values, which are made when first read (_records)
        self._tricks: list[TrickFields] = []
        self._records: list[TrickRecord] = []
        self._points_taken = [0] * rules.players  # what points_taken() adds up, kept per trick
        self._trick: OpenTrick | None = None
        self._turn: int | None = None  # the seat to play, kept with the trick
        self._legal: list[int] | None = None  # the seat to play's legal cards, once listed
        self._legal_cards: list[Card] = []  # the same as cards, while _legal is set
        self._held_over: list[Card] = []
        self._held_points = 0
        self._held_plus = 0
        self._kitty_taker: int | None = None
        self._hearts_broken = False
        self._opening: Card | None = None
        self._opening_position: int | None = None
        self._actions: list[Action] = []
        self._phase = Phase.PASS
        # the moon, once a seat shot it: the seat, and the choice it made (shooter_chooses)
        self._shooter: int | None = None
        self._moon_choice: MoonChoice | None = None
        # set by Match: its hands are played through the match, which counts and deals on
        self._in_match = False

    # --- copies and pickles ----------------------------------------------------------------

    def __reduce__(self) -> tuple[Any, ...]:
        # every field but the rules' shared tables, the open trick as a tuple; the same for the
        # Python class and the compiled one (which has no default way to be made without
        # __init__ nor to be pickled)
        state = {name: getattr(self, name) for name in _FIELDS if name != "_facts"}
        trick = self._trick
        state["_trick"] = None if trick is None else (trick.leader, trick.plays, trick.positions)
        return _restore, (self.__class__, state)

    # --- read-only state -------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def hand_number(self) -> int:
        """0-based within the match (0 for a lone hand)."""
        return self._hand_number

    @property
    def scores(self) -> tuple[int, ...]:
        """The match totals before this hand."""
        return self._scores

    @property
    def pass_direction(self) -> PassDirection:
        return self._pass_direction

    @property
    def dealt(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's cards as dealt, before the pass (sorted for display)."""
        dealt = self._dealt
        if dealt is None:
            deck = self._facts.deck
            dealt = self._dealt = tuple(tuple([deck[p] for p in h]) for h in self._dealt_positions)
        return dealt

    @property
    def kitty(self) -> tuple[Card, ...]:
        """The undealt cards (Cancellation); hidden from every seat until the hand is done."""
        return self._kitty

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def holdings(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's unplayed cards now (after the pass once every seat has passed)."""
        deck = self._facts.deck
        return tuple(tuple([deck[p] for p in h]) for h in self._holdings)

    def _held(self, seat: int) -> list[Card]:
        deck = self._facts.deck
        return [deck[p] for p in self._holdings[seat]]

    @property
    def passes(self) -> tuple[tuple[Card, ...] | None, ...]:
        """Each seat's chosen pass, or None while it has not chosen."""
        return tuple(self._passes)

    @property
    def taken(self) -> tuple[tuple[Card, ...], ...]:
        """The cards each seat has taken (tricks won, held-over cards, the kitty)."""
        deck = self._facts.deck
        return tuple(tuple([deck[p] for p in t]) for t in self._taken)

    @property
    def tricks(self) -> tuple[TrickRecord, ...]:
        """The completed tricks in order, held-over ones included."""
        return self._trick_records()

    def _trick_records(self) -> tuple[TrickRecord, ...]:
        records, fields = self._records, self._tricks
        if len(records) < len(fields):
            records.extend([TrickRecord(*f) for f in fields[len(records) :]])
        return tuple(records)

    @property
    def trick(self) -> TrickRecord | None:
        """The trick in progress (possibly with no card yet), or None outside the play."""
        if self._trick is None:
            return None
        cards = [c for _, c in self._trick.plays]
        return TrickRecord(
            self._trick.leader,
            tuple(self._trick.plays),
            None,
            sum(map(self._rules.card_points, cards)),
            cancelled_indices(self._rules, cards),
        )

    @property
    def held_over(self) -> tuple[Card, ...]:
        """Cancelled cards waiting for the next trick's winner."""
        return tuple(self._held_over)

    @property
    def held_points(self) -> int:
        return self._held_points

    @property
    def kitty_taker(self) -> int | None:
        """The seat that took the kitty (the first trick's winner), None before."""
        return self._kitty_taker

    @property
    def hearts_broken(self) -> bool:
        return self._hearts_broken

    @property
    def opening(self) -> Card | None:
        """The card that must lead the first trick (the lowest club held), once play starts."""
        return self._opening

    @property
    def actions(self) -> tuple[Action, ...]:
        """The accepted actions, in order."""
        return tuple(self._actions)

    @property
    def version(self) -> int:
        """How many actions this hand has accepted."""
        return len(self._actions)

    def awaiting(self) -> tuple[int, ...]:
        """The seats that must act now: every seat yet to pass, the seat to play, the seat
        that shot the moon while it chooses, or none."""
        if self._phase is Phase.PASS:
            return tuple(s for s, p in enumerate(self._passes) if p is None)
        if self._phase is Phase.MOON:
            assert self._shooter is not None
            return (self._shooter,)
        turn = self._turn
        return () if turn is None else (turn,)

    @property
    def to_play(self) -> int | None:
        """The seat whose turn it is to play, or None outside the play phase."""
        return self._turn

    @property
    def is_first_trick(self) -> bool:
        return self._phase is Phase.PLAY and not self._tricks

    def received(self, seat: int) -> tuple[Card, ...]:
        """What ``seat`` received (empty until every seat has passed, or with no pass)."""
        if self._phase is Phase.PASS or self._pass_direction is HOLD:
            return ()
        n = self._rules.players
        giver = next(
            g for g in range(n) if self._rules.pass_target(g, self._pass_direction) == seat
        )
        return self._passes[giver] or ()

    def points_taken(self) -> tuple[int, ...]:
        """Penalty points taken so far per seat, from won tricks (the kitty not included)."""
        return tuple(self._points_taken)

    def _seat_ok(self, seat: object) -> TypeGuard[int]:
        return (
            isinstance(seat, int)
            and not isinstance(seat, bool)
            and (0 <= seat < self._rules.players)
        )


def _restore(cls: type[HandState], state: dict[str, Any]) -> HandState:
    """A hand from the fields :meth:`HandState.__reduce__` gave, its cards the deck's own."""
    rules: Rules = state["_rules"]
    hand = cls(rules, (), _dealt=([[] for _ in range(rules.players)], [], HOLD, 0, ()))
    trick = state.pop("_trick")
    for name, value in state.items():
        setattr(hand, name, value)
    hand._trick = None if trick is None else OpenTrick(*trick)
    # the cards as the deck's own values, which the quick paths find by identity
    table = hand._facts
    deck = table.deck
    if hand._suits is not None:
        hand._suit_cards = [[[deck[p] for p in suit] for suit in seat] for seat in hand._suits]
    if hand._legal is not None:
        hand._legal_cards = [deck[p] for p in hand._legal]
    return hand


def _pure_python() -> None:
    """Nothing: a plain Python function, or a compiled one when this module is compiled."""


if isinstance(_pure_python, FunctionType):
    # run as Python: ``to_play`` is read at every card by every player loop, and a property
    # whose getter is C code (operator.attrgetter) is read without a Python call (compiled,
    # the property above is already a C getter)
    setattr(  # noqa: B010  (mypy sees the property above)
        HandState,
        "to_play",
        property(attrgetter("_turn"), doc=HandState.to_play.__doc__),
    )


def seat_of(action: Action) -> object:
    """The seat ``action`` names, as it was given: compiled code reading ``action.seat`` as the
    int it is declared to be would turn ``True`` into seat 1, which the checks refuse."""
    given: Any = action
    seat: object = given.seat
    return seat


def cancelled_indices(rules: Rules, cards: Sequence[Card]) -> tuple[int, ...]:
    """Indices of cards cancelled by an identical card in the same trick (Cancellation)."""
    if not rules.cancellation:
        return ()
    counts = Counter(cards)
    return tuple(i for i, c in enumerate(cards) if counts[c] > 1)
