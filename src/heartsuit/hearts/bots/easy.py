"""The easy player: the heuristic player with a person's slips, never an illegal or absurd card.

Most of the time it plays as :class:`~heartsuit.hearts.bots.heuristic.HeuristicBot`. With
probability ``slip`` it plays the heuristic's second choice instead (the heuristic's pick with
the first choice taken away): ducking a little too high, leading the wrong suit, keeping the
wrong card. It never slips into the blunders a beginner would not forgive themselves: it does
not win a trick with Q♠ (or lead it) when the heuristic would not, and it does not throw away a
Q♠ or a heart that the heuristic would keep out of a trick it is winning. Its pass swaps, now
and then, one card of the heuristic's pass for another card of the hand, never Q♠.
"""

from __future__ import annotations

from dataclasses import replace

from heartsuit.cards import Card, Suit
from heartsuit.hearts.bots.heuristic import HeuristicBot
from heartsuit.hearts.rules import QUEEN_OF_SPADES
from heartsuit.hearts.view import SeatView
from heartsuit.shuffle import Rng

SLIP = 0.3  # share of choices (with an alternative) that go to the second-best card


class EasyBot:
    """Heuristic play with occasional second-best choices; seeded."""

    name = "easy"

    def __init__(self, seed: int = 0, slip: float = SLIP) -> None:
        self.rng = Rng(seed)
        self.slip = slip
        self.heuristic = HeuristicBot(seed)

    def _slips(self) -> bool:
        return self.rng.below(1_000_000) < self.slip * 1_000_000

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        chosen = list(self.heuristic.choose_pass(view))
        if not self._slips():
            return tuple(chosen)
        keep = list(view.hand)
        for card in chosen:
            keep.remove(card)
        # give a different card than planned, but never keep the queen back by mistake
        out = [k for k, c in enumerate(chosen) if c != QUEEN_OF_SPADES]
        swap_in = [c for c in keep if c != QUEEN_OF_SPADES]
        if not out or not swap_in:
            return tuple(chosen)
        k = out[self.rng.below(len(out))]
        chosen[k] = swap_in[self.rng.below(len(swap_in))]
        return tuple(chosen)

    def choose_play(self, view: SeatView) -> Card:
        best = self.heuristic.choose_play(view)
        legal = list(dict.fromkeys(view.legal))
        if len(legal) < 2 or not self._slips():
            return best
        rest = tuple(c for c in legal if c != best)
        second = self.heuristic.choose_play(replace(view, legal=rest))
        return second if not _absurd(view, best, second) else best


def _absurd(view: SeatView, best: Card, second: Card) -> bool:
    """A slip no reasonable player makes: taking the queen itself, or feeding oneself points."""
    rules = view.rules
    plays = view.trick.plays if view.trick is not None else ()
    if second == QUEEN_OF_SPADES:
        if not plays:
            return True  # leading the queen
        led = plays[0][1].suit
        top = max((c.rank for _, c in plays if c.suit is led), default=0)
        return led is Suit.SPADES and QUEEN_OF_SPADES.rank > top  # it would win the trick
    if rules.card_points(second) > 0 and rules.card_points(best) <= 0 and plays:
        led = plays[0][1].suit
        top = max(c.rank for _, c in plays if c.suit is led)
        return second.suit is led and second.rank > top  # a point card that wins its own trick
    return False
