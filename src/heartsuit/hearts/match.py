"""A match of Hearts: hands in sequence until someone reaches the target.

A match is its rules, its seed and the actions of each hand. Hand ``k`` is dealt from the seed
with :func:`heartsuit.hearts.game.deal_seed` and passes in the direction
``rules.pass_direction(k)``; so ``(rules, seed)`` is a game code that replays the same deals,
and :meth:`Match.to_dict` / :meth:`Match.from_dict` store and replay a whole match.

Totals come from finished hands only. After a hand finishes, :meth:`Match.next_hand` deals the
next one (the finished hand stays readable as ``match.hand`` until then).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heartsuit.cards import Card
from heartsuit.hearts.codes import parse_code
from heartsuit.hearts.game import DealError, Hand, IllegalMove, Phase, Reason
from heartsuit.hearts.rules import Rules
from heartsuit.hearts.scoring import add_hand, match_over, winners
from heartsuit.hearts.view import SeatView

FORMAT_VERSION = 1


class Match:
    """Hands in sequence with running totals; create with :meth:`new` or :meth:`from_dict`."""

    def __init__(self, rules: Rules, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise DealError(f"a match seed is a non-negative whole number, not {seed!r}")
        self.rules = rules
        self.seed = seed
        self.hands: list[Hand] = []
        self._totals_before: list[tuple[int, ...]] = []
        self._deal(0, (0,) * rules.players)

    @classmethod
    def new(cls, rules: Rules, seed: int) -> Match:
        return cls(rules, seed)

    @classmethod
    def from_code(cls, code: str, **overrides: Any) -> Match:
        """The match of a game code such as ``HE1-S-AAAAAAM`` (:mod:`heartsuit.hearts.codes`).

        ``overrides`` change options that do not change the deal (``moon=...``, ``target=...``).
        """
        parsed = parse_code(code)
        return cls(parsed.rules(**overrides), parsed.seed)

    def _deal(self, number: int, scores: tuple[int, ...]) -> None:
        self.hands.append(Hand.deal(self.rules, self.seed, hand_number=number, scores=scores))
        self._totals_before.append(scores)

    # --- state -----------------------------------------------------------------------------

    @property
    def hand(self) -> Hand:
        """The current hand (the last one dealt; it may be finished)."""
        return self.hands[-1]

    @property
    def hand_number(self) -> int:
        return len(self.hands) - 1

    @property
    def scores(self) -> tuple[int, ...]:
        """Match totals after every finished hand (exactly-100 resets applied)."""
        totals = self._totals_before[-1]
        if self.hand.phase is Phase.DONE:
            totals = add_hand(self.rules, totals, self.hand.points())
        return totals

    def hand_points(self) -> list[tuple[int, ...]]:
        """Points of each finished hand, in order."""
        return [h.points() for h in self.hands if h.phase is Phase.DONE]

    @property
    def is_over(self) -> bool:
        return self.hand.phase is Phase.DONE and match_over(self.rules, self.scores)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats sharing the lowest total once the match is over; empty before."""
        return winners(self.rules, self.scores) if self.is_over else ()

    # --- actions ---------------------------------------------------------------------------

    def pass_cards(self, seat: int, cards: Sequence[Card]) -> None:
        self.hand.pass_cards(seat, cards)

    def play(self, seat: int, card: Card) -> None:
        self.hand.play(seat, card)

    def view(self, seat: int) -> SeatView:
        return self.hand.view(seat)

    def next_hand(self) -> Hand:
        """Deal the next hand once the current one is finished and the match goes on."""
        if self.hand.phase is not Phase.DONE:
            raise IllegalMove(Reason.WRONG_PHASE, "finish the current hand first")
        if self.is_over:
            raise IllegalMove(Reason.WRONG_PHASE, "the match is over")
        self._deal(len(self.hands), self.scores)
        return self.hand

    # --- storage ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Rules, seed and each hand's actions: everything needed to replay the match."""
        return {
            "version": FORMAT_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "hands": [[dict(a) for a in h.actions] for h in self.hands],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Replay a stored match; bad data raises DealError (or IllegalMove for a bad action)."""
        try:
            if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
                raise DealError(f"unknown match format version {data['version']!r}")
            match = cls(Rules.from_dict(data["rules"]), data["seed"])
            hands = list(data["hands"])
        except (KeyError, TypeError, AttributeError) as exc:
            raise DealError(f"a stored match needs version, rules, seed and hands ({exc})") from exc
        for number, actions in enumerate(hands):
            if number:
                match.next_hand()
            match.hand.replay(actions)
        return match
