"""What a rule set fixes once and for all, computed once per :class:`Rules` and shared.

Inside a :class:`~heartsuit.hearts.game.Hand`, a card is held as its *position*: its index in
``facts.deck``, the rules' deck in display order (:func:`~heartsuit.hearts.deal.sort_key`:
clubs, diamonds, spades, hearts, low to high), and for two packs the first of the two identical
cards, so equal cards are equal positions. Sorting positions as numbers sorts their cards for
display, and each suit's positions are one run of numbers. Positions compare, sort and index
tables without calling a Python-level ``__eq__`` or ``__hash__``, which is where a hand spent
most of its time. :func:`facts` builds the tables once per rule set (cached) from the rules'
own functions
(:meth:`Rules.card_points`, :meth:`Rules.total_points`, :func:`~heartsuit.hearts.deal.sort_key`),
so the engine reads a table instead of re-deriving a rule, and cannot disagree with it. Cards
leave a hand as the deck's own :class:`~heartsuit.cards.Card` values.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from heartsuit.cards import Card, Suit
from heartsuit.hearts.actions import Play
from heartsuit.hearts.deal import sort_key
from heartsuit.hearts.events import Played
from heartsuit.hearts.rules import QUEEN_OF_SPADES, Rules

__all__ = ["CLUBS", "HEARTS", "RulesFacts", "facts", "first_trick_penalty"]

CLUBS, HEARTS = sort_key(Card(2, Suit.CLUBS))[0], sort_key(Card(2, Suit.HEARTS))[0]


def first_trick_penalty(card: Card) -> bool:
    """Hearts and Q♠: the cards the seed bars from the first trick."""
    return card.suit is Suit.HEARTS or card == QUEEN_OF_SPADES


@dataclass(frozen=True, slots=True, eq=False)
class RulesFacts:
    """Per-position tables of one rule set (a position indexes ``deck``)."""

    deck: tuple[Card, ...]  # rules.deck()'s cards in display order (sort_key)
    # each card of rules.deck() (by its index there) as a position, equal cards as the first:
    # the shuffle moves these, so a deal comes out as positions
    from_pack: tuple[int, ...]
    by_card: dict[Card, int]  # a card value's position
    # id() of each deck card -> its position: a card that came from this deck is found without
    # hashing it (the deck lives as long as these facts, so the ids stay its cards')
    by_id: dict[int, int]
    suit: tuple[int, ...]  # sort_key's suit order: CLUBS … HEARTS
    rank: tuple[int, ...]
    # where each suit's positions begin (facts.suit order), and the end: suit s is the
    # positions suit_start[s] .. suit_start[s + 1] - 1
    suit_start: tuple[int, int, int, int, int]
    points: tuple[int, ...]  # rules.card_points
    positive: tuple[int, ...]  # the same, 0 for the J♦ bonus: what counts toward the moon
    barred_first: tuple[bool, ...]  # first_trick_penalty
    breaks_hearts: tuple[bool, ...]  # a heart, or Q♠ when it breaks hearts too
    total: int  # rules.total_points()
    bonus: bool  # a card scores below 0 (the J♦), so positive points differ from points
    # the Play action and the Played event of each (seat, position): values, made once
    plays: tuple[tuple[Play, ...], ...]
    played: tuple[tuple[Played, ...], ...]
    # what a play of each (seat, position) adds, read at once: the Play, the Played event, the
    # (seat, card) pair of the trick, the card's suit and whether it breaks hearts
    moves: tuple[tuple[tuple[Play, Played, tuple[int, Card], int, bool], ...], ...]
    # by the led suit (facts.suit), each position's rank when of that suit, else 0: the highest
    # of a trick's positions by this is its winning card (every card differing)
    led_rank: tuple[tuple[int, ...], ...]
    deal_label: str  # rules.deal_label(), the label of this deck's deal seeds
    hand_size: int  # rules.hand_size()
    # one pack and no cancellation: every card is unique and the highest of the led suit wins,
    # which the engine's quick paths assume (the general ones cover every rule set)
    simple: bool


# the facts of the rules objects seen last, by id(): found without hashing the rules (a Rules
# hash is a Python-level hash of every field); each entry keeps its rules alive, so its id
# stays that object's
_RECENT: dict[int, tuple[Rules, RulesFacts]] = {}


def facts(rules: Rules) -> RulesFacts:
    """The tables of ``rules`` (equal rules share them)."""
    hit = _RECENT.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    table = _facts(rules)
    if len(_RECENT) >= 64:
        _RECENT.clear()
    _RECENT[id(rules)] = (rules, table)
    return table


@lru_cache(maxsize=64)
def _facts(rules: Rules) -> RulesFacts:
    pack = rules.deck()
    deck = tuple(sorted(pack, key=sort_key))  # stable: two packs' equal cards side by side
    by_card: dict[Card, int] = {}
    for position, card in enumerate(deck):
        by_card.setdefault(card, position)
    keys = [sort_key(card) for card in deck]
    points = tuple(rules.card_points(card) for card in deck)
    queen_breaks = rules.hearts_broken_by == "heart_or_queen"
    positions = range(len(deck))
    suits = tuple(suit for suit, _ in keys)
    breaks_hearts = tuple(
        card.suit is Suit.HEARTS or (queen_breaks and card == QUEEN_OF_SPADES) for card in deck
    )
    plays = tuple(tuple(Play(s, deck[p]) for p in positions) for s in range(rules.players))
    played = tuple(tuple(Played(s, deck[p]) for p in positions) for s in range(rules.players))
    return RulesFacts(
        deck=deck,
        from_pack=tuple(by_card[card] for card in pack),
        by_card=by_card,
        by_id={id(card): by_card[card] for card in deck},
        suit=suits,
        rank=tuple(card.rank for card in deck),
        suit_start=(
            0,
            bisect_left(suits, 1),
            bisect_left(suits, 2),
            bisect_left(suits, 3),
            len(deck),
        ),
        points=points,
        positive=tuple(max(p, 0) for p in points),
        barred_first=tuple(map(first_trick_penalty, deck)),
        breaks_hearts=breaks_hearts,
        total=rules.total_points(),
        bonus=any(p < 0 for p in points),
        plays=plays,
        played=played,
        moves=tuple(
            tuple(
                (plays[s][p], played[s][p], (s, deck[p]), suits[p], breaks_hearts[p])
                for p in positions
            )
            for s in range(rules.players)
        ),
        led_rank=tuple(
            tuple(card.rank if suits[p] == led else 0 for p, card in enumerate(deck))
            for led in range(4)
        ),
        deal_label=rules.deal_label(),
        hand_size=rules.hand_size(),
        simple=rules.packs == 1 and not rules.cancellation,
    )
