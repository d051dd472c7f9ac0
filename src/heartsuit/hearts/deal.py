"""Dealing Hearts: the seeded shuffle, the deal's layout, and checks on explicit deals.

The shuffle is the project's own (:mod:`heartsuit.shuffle`), so a match seed deals the same
hands on every machine forever; ``tests/test_hearts_golden.py`` pins some of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from heartsuit.cards import Card, Suit
from heartsuit.hearts.rules import HOLD, PassDirection, Rules
from heartsuit.shuffle import Rng, derive_seed, shuffled


class DealError(ValueError):
    """An explicit deal or a stored hand that does not fit the rules; the message says why."""


def sort_key(card: Card) -> tuple[int, int]:
    """Order for showing a hand: clubs, diamonds, spades, hearts; low to high."""
    return _SUIT_ORDER[card.suit], card.rank


_SUIT_ORDER = {Suit.CLUBS: 0, Suit.DIAMONDS: 1, Suit.SPADES: 2, Suit.HEARTS: 3}


def deal_seed(rules: Rules, seed: int, hand_number: int) -> int:
    """The shuffle seed of hand ``hand_number`` of the match with ``seed``.

    ``derive_seed(f"{rules.deal_label()}/{seed}", hand_number)``: the same match seed gives the
    same deals for every table that deals alike, and a lone ``Hand.deal(seed=s)`` is hand 0 of
    the match ``s``.
    """
    return derive_seed(f"{rules.deal_label()}/{seed}", hand_number)


def deal_cards(rules: Rules, seed: int, hand_number: int) -> tuple[list[list[Card]], list[Card]]:
    """The hands and kitty of hand ``hand_number`` of the match ``seed``.

    The deck (``rules.deck()``) is shuffled with :func:`deal_seed`; seat ``i`` gets shuffled
    cards ``i*size .. (i+1)*size - 1`` and the kitty is the rest.
    """
    deck = rules.deck()
    cards = [deck[i] for i in deal_positions(rules, seed, hand_number)]
    size = rules.hand_size()
    hands = [cards[i * size : (i + 1) * size] for i in range(rules.players)]
    return hands, cards[size * rules.players :]


def deal_positions(rules: Rules, seed: int, hand_number: int) -> list[int]:
    """The deal of :func:`deal_cards` as positions in ``rules.deck()``: the shuffle moves
    positions exactly as it moves cards, and positions sort and compare faster."""
    return shuffled_positions(rules.deal_label(), range(len(rules.deck())), seed, hand_number)


def shuffled_positions(label: str, items: Sequence[int], seed: int, hand_number: int) -> list[int]:
    """:func:`deal_positions` from the rules' :meth:`~Rules.deal_label`, with ``items[i]`` in
    place of position ``i`` of ``rules.deck()``: the shuffle moves items as it moves positions,
    so :meth:`Hand.deal <heartsuit.hearts.game.Hand.deal>` shuffles the engine's own numbers
    for the pack's cards (``facts.from_pack``)."""
    return shuffled(items, Rng(derive_seed(f"{label}/{seed}", hand_number)))


def check_deal(
    rules: Rules,
    hands: Sequence[Sequence[Card]],
    kitty: Sequence[Card],
    pass_direction: PassDirection | str | None,
    hand_number: int,
) -> PassDirection:
    """Refuse a deal that is not the rules' deck in the rules' shape; its pass direction."""
    if len(hands) != rules.players:
        raise DealError(f"a deal has one hand per player ({rules.players}), not {len(hands)}")
    for seat, h in enumerate(hands):
        if len(h) != rules.hand_size():
            raise DealError(f"seat {seat} has {len(h)} cards; each player gets {rules.hand_size()}")
    if len(kitty) != rules.kitty_size():
        raise DealError(f"the kitty has {rules.kitty_size()} cards, not {len(kitty)}")
    dealt = Counter(c for h in [*hands, kitty] for c in h)
    if dealt != Counter(rules.deck()):
        extra = sorted((dealt - Counter(rules.deck())).elements())
        missing = sorted((Counter(rules.deck()) - dealt).elements())
        raise DealError(
            "the deal is not the rules' deck: "
            f"extra {', '.join(map(str, extra)) or 'none'}; "
            f"missing {', '.join(map(str, missing)) or 'none'}"
        )
    return check_direction(rules, pass_direction, hand_number)


def check_direction(
    rules: Rules, pass_direction: PassDirection | str | None, hand_number: int
) -> PassDirection:
    """The pass direction of a deal: the rules' cycle for ``None``, else one they allow."""
    if pass_direction is None:
        return rules.pass_direction(hand_number)
    try:
        direction = PassDirection(pass_direction)
    except ValueError as exc:
        raise DealError(f"a pass direction is left, right, across or hold: {exc}") from exc
    if direction is not HOLD and not rules.passing:
        raise DealError(f"these rules have no passing, so the pass cannot be {direction}")
    if direction is PassDirection.ACROSS and rules.players % 2:
        raise DealError(f"nobody sits across with {rules.players} players")
    return direction
