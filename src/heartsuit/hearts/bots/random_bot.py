"""The random player: passes and plays uniformly at random among what the rules allow.

It is the baseline of the arena and the opponent every other bot must beat clearly.
"""

from __future__ import annotations

from heartsuit.cards import Card
from heartsuit.hearts.view import SeatView
from heartsuit.shuffle import Rng


class RandomBot:
    """Uniformly random passes and plays, from the project's seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = Rng(seed)

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        cards = list(view.hand)
        count = view.rules.pass_count
        return tuple(cards.pop(self.rng.below(len(cards))) for _ in range(count))

    def choose_play(self, view: SeatView) -> Card:
        if not view.legal:
            raise ValueError(f"seat {view.seat} has no legal play: it is not its turn")
        return view.legal[self.rng.below(len(view.legal))]
