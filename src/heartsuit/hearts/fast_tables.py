"""The fast path's compiled rules and card masks: :class:`Table`, card indices, scoring.

Shared by the stepping state (:mod:`heartsuit.hearts.fast`) and the hot loop
(:mod:`heartsuit.hearts.fast_loop`). A card is an index ``suit * 13 + rank - 2`` with suits in
pack order C, D, H, S; a set of cards is an int with those bits set. :meth:`Table.of` turns a
one-pack :class:`~heartsuit.hearts.rules.Rules` into the lookups the loop reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from heartsuit.cards import Card, Suit, full_pack
from heartsuit.hearts.fast_draws import TOP_UP
from heartsuit.hearts.rules import QUEEN_OF_SPADES, Rules
from heartsuit.hearts.scoring import shooter_choice

SUITS: tuple[Suit, ...] = tuple(Suit)  # C, D, H, S: the pack order and the index order
#: the card of each bit index (the pack's own objects, in the same order)
_BY_INDEX: tuple[Card, ...] = tuple(full_pack())
HEARTS = 2
SUIT_BITS = 0x1FFF
JACK_MARK = 1000  # a taken J♦ adds this to a seat's tally: penalties = tally % JACK_MARK
# a bound on the product of one trick's choice sizes (at most ten choices among at most 52)
TRICK_SLACK = 52**10
# the draw pool is topped up to this span before each trick: ten choices among at most 52 cards
# still leave it above TOP_UP, so a choice is rejected (and redrawn) with odds under 2**-26
TRICK_POOL = TOP_UP * TRICK_SLACK

POP: list[int] = [m.bit_count() for m in range(1 << 13)]
BIT: list[int] = [1 << i for i in range(52)]


def _nth_table() -> list[int]:
    # NTH[mask * 13 + k] = rank offset (0 = the two) of the k-th lowest card of a suit mask
    table = [0] * ((1 << 13) * 13)
    for mask in range(1, 1 << 13):
        k = 0
        for r in range(13):
            if mask >> r & 1:
                table[mask * 13 + k] = r
                k += 1
    return table


NTH: list[int] = _nth_table()


class FastPathError(ValueError):
    """A position or play the fast path refuses (cards doubled or missing, an illegal card …)."""


def card_index(card: Card) -> int:
    """The card's bit index: ``suit * 13 + rank - 2`` (suits C, D, H, S)."""
    return SUITS.index(card.suit) * 13 + card.rank - 2


def index_card(index: int) -> Card:
    """The card of a bit index (inverse of :func:`card_index`)."""
    return _BY_INDEX[index]


def cards_mask(cards: Iterable[Card]) -> int:
    """A 52-bit mask of distinct cards; a repeated card is an error (one pack only)."""
    mask = 0
    for card in cards:
        bit = 1 << card_index(card)
        if mask & bit:
            raise FastPathError(f"{card} appears twice; the fast path plays one pack")
        mask |= bit
    return mask


def mask_cards(mask: int) -> list[Card]:
    """The cards of a 52-bit mask in index order (suit C, D, H, S, then rank)."""
    return [index_card(i) for i in range(52) if mask >> i & 1]


def split_suits(mask: int) -> list[int]:
    return [mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39]


@dataclass(frozen=True, slots=True)
class Table:
    """A one-pack :class:`Rules` compiled into the lookups the playout loop reads."""

    rules: Rules
    players: int
    hand_size: int
    deck: tuple[int, ...]  # card indices in play
    deck_bits: tuple[int, ...]  # the same cards as bits (1 << index), what the deal shuffles
    deck_mask: int  # every card in play
    seat_slices: tuple[tuple[int, int], ...]  # seats 1..n-1: their slices of the shuffled deck
    lead_index: int  # the card that opens the hand: the lowest club in play (engine rule)
    tally: tuple[int, ...]  # per card index: penalty points, or JACK_MARK for a bonus J♦
    breaks: tuple[bool, ...]  # per card index: playing it breaks hearts
    first_banned: tuple[int, ...]  # per suit: cards barred from the first trick (hearts, Q♠)
    moon_total: int  # penalty points that make a moon when one seat takes them all
    seats_after: tuple[tuple[int, ...], ...]  # seats_after[leader]: the other seats in order
    bases_after: tuple[tuple[int, ...], ...]  # the same seats times 4 (their slots in hands)
    # follow_plans[leader]: (position after the leader from 0, seat, seat * 4) of each follower
    follow_plans: tuple[tuple[tuple[int, int, int], ...], ...]
    suit_tally: tuple[tuple[int, ...], ...]  # suit_tally[suit][rank offset] = tally
    suit_breaks: tuple[tuple[bool, ...], ...]  # suit_breaks[suit][rank offset] = breaks hearts
    # Fisher–Yates steps of the deal grouped so each group's ranges multiply to under 2**64
    deal_steps: tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]

    @classmethod
    def of(cls, rules: Rules) -> Table:
        if rules.packs != 1:
            raise FastPathError("two packs (Cancellation) are played by fast_cancel")
        deck = tuple(card_index(c) for c in rules.deck())
        clubs = [i for i in deck if i < 13]
        tally = [0] * 52
        breaks = [False] * 52
        banned = [0, 0, 0, 0]
        queen = card_index(QUEEN_OF_SPADES)
        for i in deck:
            points = rules.card_points(index_card(i))
            tally[i] = points if points > 0 else (JACK_MARK if points < 0 else 0)
            # the engine bars exactly hearts and Q♠ from the first trick (seed "Dua batasan")
            if not rules.first_trick_points and (i // 13 == HEARTS or i == queen):
                banned[i // 13] |= 1 << (i % 13)
            breaks[i] = i // 13 == HEARTS or (
                rules.hearts_broken_by == "heart_or_queen" and i == queen
            )
        n = rules.players
        size = rules.hand_size()
        lead = min(clubs) if clubs else min(deck)
        return cls(
            rules=rules,
            players=n,
            hand_size=size,
            deck=deck,
            deck_bits=tuple(1 << i for i in deck),
            deck_mask=sum(1 << i for i in deck),
            seat_slices=tuple((s * size, s * size + size) for s in range(1, n)),
            lead_index=lead,
            tally=tuple(tally),
            breaks=tuple(breaks),
            first_banned=tuple(banned),
            moon_total=rules.total_points(),
            seats_after=tuple(tuple((s + i) % n for i in range(1, n)) for s in range(n)),
            bases_after=tuple(tuple((s + i) % n * 4 for i in range(1, n)) for s in range(n)),
            follow_plans=tuple(
                tuple((i - 1, (s + i) % n, (s + i) % n * 4) for i in range(1, n)) for s in range(n)
            ),
            suit_tally=tuple(tuple(tally[s * 13 : s * 13 + 13]) for s in range(4)),
            suit_breaks=tuple(tuple(breaks[s * 13 : s * 13 + 13]) for s in range(4)),
            deal_steps=_deal_steps(len(deck), size),
        )


def _deal_steps(
    size: int, hand_size: int
) -> tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]:
    # the steps stop at the first hand: once every later slot holds a uniform pick of the
    # rest, seat 0's cards are the (uniform) remainder and their order does not matter
    groups: list[tuple[int, int, tuple[tuple[int, int], ...]]] = []
    steps: list[tuple[int, int]] = []
    product = 1
    for i in range(size - 1, max(hand_size, 1) - 1, -1):
        if product * (i + 1) >= 1 << 64:
            groups.append((product, (1 << 64) // product * product, tuple(steps)))
            steps, product = [], 1
        steps.append((i, i + 1))
        product *= i + 1
    if steps:
        groups.append((product, (1 << 64) // product * product, tuple(steps)))
    return tuple(groups)


def hand_points(table: Table, tallies: Sequence[int], scores: Sequence[int] = ()) -> list[int]:
    """Final points of a hand from each seat's tally (penalty points + JACK_MARK per J♦).

    Same scoring as :func:`heartsuit.hearts.scoring.hand_points`: the moon replaces penalty
    points only, a J♦ bonus stays with its taker.
    """
    total = table.moon_total
    if max(tallies) < JACK_MARK:
        if total not in tallies or total <= 0:
            return list(tallies)  # no moon, no J♦: the common case, kept cheap
        penalties = list(tallies)
    else:
        penalties = [t % JACK_MARK for t in tallies]
        if total not in penalties or total <= 0:
            # each J♦ taken: drop its mark, count -10
            return [t - t // JACK_MARK * (JACK_MARK + 10) for t in tallies]
    bonus = [-10 * (t // JACK_MARK) for t in tallies]
    shooter = penalties.index(total)
    others = tuple(b + (0 if s == shooter else total) for s, b in enumerate(bonus))
    minus = tuple(b - (total if s == shooter else 0) for s, b in enumerate(bonus))
    moon = table.rules.moon
    if moon == "others_plus_26":
        return list(others)
    if moon == "self_minus_26":
        return list(minus)
    before = tuple(scores) if scores else (0,) * table.players
    return list(shooter_choice(table.rules, shooter, before, others, minus))
