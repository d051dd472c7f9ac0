"""Fast random playouts of a one-pack Hearts hand: bit masks, precomputed tables, no objects.

This module owns the hot path that search bots (ISMCTS, PIMC) stand on: from a position — every
seat's cards, the trick so far, hearts broken or not, whether the first trick is still to come,
and the cards each seat has taken — play the hand out with uniformly random legal plays and
return each seat's points for the hand (moon and J♦ included). :class:`FastState` also steps
one play at a time (legal moves as a mask, ``play``), for tree search.

Representation (a Python int is the cheapest set there is; popcounts and table lookups replace
loops over cards):

* a card is an index ``suit * 13 + rank - 2`` with suits in pack order C, D, H, S; a seat's hand
  in a :class:`Position` is one int with bit ``index`` set for each card it holds;
* inside the playout (:mod:`heartsuit.hearts.fast_loop`) each seat's hand is four 13-bit suit
  masks (``hands[seat * 4 + suit]``), so following suit is one lookup, and a table turns "the
  k-th card of this suit" into a rank; the compiled rules are in
  :mod:`heartsuit.hearts.fast_tables`;
* randomness comes from :class:`~heartsuit.hearts.fast_draws.Draws` (the project's SplitMix64 spent
  on many small, exactly uniform choices), inlined in the loop.

The rules are the engine's (:mod:`heartsuit.hearts.game`); tests play random hands of every
preset through both and require the same legal moves at every step and the same points.
Cancellation (two packs) has its own, slower path in :mod:`heartsuit.hearts.fast_cancel`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from heartsuit.cards import Card
from heartsuit.hearts.fast_draws import Draws
from heartsuit.hearts.fast_loop import deal, play_out, random_hand
from heartsuit.hearts.fast_tables import (
    BIT,
    HEARTS,
    JACK_MARK,
    SUIT_BITS,
    SUITS,
    TRICK_POOL,
    TRICK_SLACK,
    FastPathError,
    Table,
    card_index,
    cards_mask,
    hand_points,
    index_card,
    mask_cards,
    split_suits,
)
from heartsuit.hearts.view import SeatView

__all__ = [
    "HEARTS",
    "JACK_MARK",
    "SUITS",
    "TRICK_POOL",
    "TRICK_SLACK",
    "FastPathError",
    "FastState",
    "Position",
    "Table",
    "card_index",
    "cards_mask",
    "deal",
    "hand_points",
    "index_card",
    "mask_cards",
    "playout",
    "position_from_view",
    "random_hand",
]


@dataclass(frozen=True, slots=True)
class Position:
    """A one-pack hand in progress, as card masks (the fast path's input)."""

    hands: tuple[int, ...]  # per seat: 52-bit mask of unplayed cards
    leader: int  # the seat that led the current trick (or leads the next one)
    trick: tuple[int, ...]  # card indices played to the current trick, in order
    hearts_broken: bool
    first_trick: bool  # the current (or next) trick is the hand's first
    taken: tuple[int, ...]  # per seat: 52-bit mask of cards taken in tricks so far
    scores: tuple[int, ...] = ()  # match totals before the hand (only the moon choice reads it)

    @classmethod
    def from_cards(
        cls,
        hands: Sequence[Iterable[Card]],
        *,
        leader: int,
        trick: Sequence[Card] = (),
        hearts_broken: bool = False,
        first_trick: bool = True,
        taken: Sequence[Iterable[Card]] = (),
        scores: Sequence[int] = (),
    ) -> Position:
        masks = tuple(cards_mask(h) for h in hands)
        return cls(
            hands=masks,
            leader=leader,
            trick=tuple(card_index(c) for c in trick),
            hearts_broken=hearts_broken,
            first_trick=first_trick,
            taken=tuple(cards_mask(t) for t in taken) if taken else (0,) * len(masks),
            scores=tuple(scores),
        )

    def check(self, table: Table) -> None:
        """Raise :class:`FastPathError` unless this is a consistent position of ``table``."""
        n = table.players
        if len(self.hands) != n or len(self.taken) != n:
            raise FastPathError(f"a position of this table has {n} hands and {n} taken piles")
        if self.scores and len(self.scores) != n:
            raise FastPathError(f"scores need one total per seat ({n})")
        if not 0 <= self.leader < n:
            raise FastPathError(f"the leader must be a seat 0..{n - 1}, not {self.leader}")
        if len(self.trick) >= n:
            raise FastPathError("a trick in progress has fewer cards than there are players")
        seen = 0
        for mask in (*self.hands, *self.taken, *(1 << i for i in self.trick)):
            if seen & mask:
                raise FastPathError("a card is in two places at once")
            seen |= mask
        if seen != sum(1 << i for i in table.deck):
            raise FastPathError("the position's cards are not exactly the cards in play")
        # once the open trick is finished every seat holds the same number of cards
        played = table.seats_after[self.leader][: len(self.trick) - 1] if self.trick else ()
        in_trick = {self.leader, *played} if self.trick else set()
        left = {h.bit_count() - (seat not in in_trick) for seat, h in enumerate(self.hands)}
        if len(left) != 1:
            raise FastPathError("the seats hold unequal numbers of cards for this trick")
        if self.first_trick:
            lead = table.lead_index
            opened = self.trick[0] == lead if self.trick else self.hands[self.leader] >> lead & 1
            if not opened:
                raise FastPathError(f"the first trick is led with {index_card(lead)}")


class FastState:
    """A hand in progress that steps one play at a time; :meth:`playout` finishes a copy."""

    __slots__ = ("broken", "first", "hands", "leader", "scores", "table", "tallies", "trick")

    def __init__(self, table: Table, pos: Position) -> None:
        pos.check(table)
        self.table = table
        self.hands = [m for mask in pos.hands for m in split_suits(mask)]
        self.tallies = [sum(table.tally[i] for i in range(52) if t >> i & 1) for t in pos.taken]
        self.leader = pos.leader
        self.trick = list(pos.trick)
        self.broken = pos.hearts_broken
        self.first = pos.first_trick
        self.scores = pos.scores

    def copy(self) -> FastState:
        other = FastState.__new__(FastState)
        other.table = self.table
        other.hands = self.hands[:]
        other.tallies = self.tallies[:]
        other.leader = self.leader
        other.trick = self.trick[:]
        other.broken = self.broken
        other.first = self.first
        other.scores = self.scores
        return other

    @property
    def done(self) -> bool:
        return not any(self.hands)

    @property
    def to_play(self) -> int:
        """The seat to play next (meaningless once :attr:`done`)."""
        return (self.leader + len(self.trick)) % self.table.players

    def hand(self, seat: int) -> int:
        """``seat``'s unplayed cards as a 52-bit mask."""
        c, d, h, s = self.hands[seat * 4 : seat * 4 + 4]
        return c | d << 13 | h << 26 | s << 39

    def legal(self) -> int:
        """The legal plays of the seat to play, as a 52-bit mask (the rules in plain form)."""
        table = self.table
        held = self.hand(self.to_play)
        banned = table.first_banned
        barred = banned[0] | banned[1] << 13 | banned[2] << 26 | banned[3] << 39
        if not self.trick:
            if self.first:
                return BIT[table.lead_index] & held
            hearts = SUIT_BITS << 26
            return held if self.broken or not held & ~hearts else held & ~hearts
        led = self.trick[0] // 13
        suited = held & SUIT_BITS << (13 * led)
        allowed = suited or held
        if self.first and allowed & ~barred:
            allowed &= ~barred
        return allowed

    def play(self, index: int) -> None:
        """Play card ``index`` for :attr:`to_play`; an illegal card raises FastPathError."""
        if self.done or not self.legal() >> index & 1:
            raise FastPathError(f"{index_card(index)} is not a legal play now")
        seat = self.to_play
        self.hands[seat * 4 + index // 13] ^= 1 << (index % 13)
        self.trick.append(index)
        if self.table.breaks[index]:
            self.broken = True
        if len(self.trick) == self.table.players:
            led = self.trick[0] // 13
            best = max((i, k) for k, i in enumerate(self.trick) if i // 13 == led)[1]
            winner = (self.leader + best) % self.table.players
            self.tallies[winner] += sum(self.table.tally[i] for i in self.trick)
            self.leader = winner
            self.trick = []
            self.first = False

    def points(self) -> list[int]:
        """Each seat's points for the finished hand."""
        if not self.done:
            raise FastPathError("the hand is not finished yet")
        return hand_points(self.table, self.tallies, self.scores)

    def playout(self, draws: Draws) -> list[int]:
        """Finish a copy of this hand with uniformly random legal plays; the points per seat."""
        hands = self.hands[:]
        tallies = self.tallies[:]
        play_out(
            self.table, hands, tallies, self.leader, tuple(self.trick), self.broken, self.first,
            draws,
        )
        return hand_points(self.table, tallies, self.scores)


def playout(table: Table, pos: Position, draws: Draws) -> list[int]:
    """Play ``pos`` to the end with uniformly random legal plays; each seat's hand points."""
    return FastState(table, pos).playout(draws)


def position_from_view(view: SeatView, hidden: Sequence[Iterable[Card]]) -> Position:
    """A full position from what ``view``'s seat knows plus a guess at the hidden cards.

    ``hidden[seat]`` is a guess at another seat's unplayed cards (a sampled world, as PIMC and
    ISMCTS draw them); the viewer's own entry is ignored and its real hand used instead. The
    played cards, who took them, the trick and the flags all come from the view.
    """
    n = view.rules.players
    if len(hidden) != n:
        raise FastPathError(f"a guess lists every seat's cards ({n} seats), not {len(hidden)}")
    hands = [view.hand if seat == view.seat else tuple(hidden[seat]) for seat in range(n)]
    taken: list[list[Card]] = [[] for _ in range(n)]
    for record in view.tricks:
        if record.winner is None:
            raise FastPathError("a held-over trick: use fast_cancel for Cancellation")
        taken[record.winner].extend(card for _, card in record.plays)
    plays = view.trick.plays if view.trick is not None else ()
    if view.trick is not None:
        leader = view.trick.leader
    elif view.tricks:
        leader = view.tricks[-1].winner or 0
    else:
        opening = index_card(Table.of(view.rules).lead_index)
        leader = next((s for s, h in enumerate(hands) if opening in h), 0)
    return Position.from_cards(
        hands,
        leader=leader,
        trick=[card for _, card in plays],
        hearts_broken=view.hearts_broken,
        first_trick=not view.tricks,
        taken=taken,
        scores=view.scores,
    )
