"""Helpers for the Hearts engine tests: compact deals and simple players."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from heartsuit.cards import Card, Suit
from heartsuit.hearts import Hand, Match, Moon, Rules
from heartsuit.shuffle import Rng


def cards(text: str) -> list[Card]:
    """``"2C 3C QS"`` → cards."""
    return [Card.parse(t) for t in text.split()]


def run(suit: str, low: int, high: int) -> list[Card]:
    """Every card of ``suit`` from rank ``low`` to ``high``."""
    return [Card(r, Suit(suit)) for r in range(low, high + 1)]


def filled_deal(
    rules: Rules, fixed: Sequence[Sequence[Card]], kitty: Sequence[Card] = ()
) -> tuple[list[list[Card]], list[Card]]:
    """Each seat gets its ``fixed`` cards, then the rest of the deck in deck order."""
    rest = Counter(rules.deck()) - Counter(c for h in [*fixed, kitty] for c in h)
    pool: list[Card] = []
    for card in rules.deck():
        if rest[card] > 0:
            rest[card] -= 1
            pool.append(card)
    hands: list[list[Card]] = []
    for seat in range(rules.players):
        mine = list(fixed[seat]) if seat < len(fixed) else []
        need = rules.hand_size() - len(mine)
        hands.append(mine + pool[:need])
        pool = pool[need:]
    return hands, list(kitty) + pool


Chooser = Callable[[Hand, int, list[Card]], Card]


def lowest(hand: Hand, seat: int, legal: list[Card]) -> Card:
    return min(legal)


def play_out(hand: Hand, choose: Chooser = lowest) -> None:
    """Play the rest of the hand (the play phase) with ``choose``."""
    while hand.to_play is not None:
        seat = hand.to_play
        hand.play(seat, choose(hand, seat, hand.legal_plays(seat)))


def random_passes(hand: Hand, rng: Rng) -> None:
    """Every seat still to pass passes random cards."""
    for seat in range(hand.rules.players):
        if hand.phase == "pass" and hand.passes[seat] is None:
            pool = list(hand.holdings[seat])
            hand.pass_cards(seat, [pool.pop(rng.below(len(pool))) for _ in range(
                hand.rules.pass_count)])


def random_chooser(rng: Rng) -> Chooser:
    def choose(hand: Hand, seat: int, legal: list[Card]) -> Card:
        return legal[rng.below(len(legal))]

    return choose


def random_pass(hand: Hand, seat: int, rng: Rng) -> list[Card]:
    pool = list(hand.holdings[seat])
    return [pool.pop(rng.below(len(pool))) for _ in range(hand.rules.pass_count)]


def finish_match_hand(match: Match, rng: Rng, choose: Chooser | None = None) -> Hand:
    """Play the current hand of ``match`` to its end through the match (random passes, then
    ``choose`` or random plays); the finished hand. The match deals the next one itself."""
    hand, number = match.hand, match.hand_number
    choose = choose or random_chooser(rng)
    while match.hand_number == number and not match.is_over:
        seat = match.awaiting()[0]
        if hand.phase == "pass":
            match.pass_cards(seat, random_pass(hand, seat, rng))
        elif hand.phase == "moon":
            # moon="shooter_chooses": the seat that took every penalty card chooses
            match.apply(Moon(seat, hand.best_moon_choice()))
        else:
            match.play(seat, choose(hand, seat, hand.legal_plays(seat)))
    return hand


def play_match(match: Match, rng: Rng, max_hands: int = 200) -> None:
    """Random play until the match is over."""
    for _ in range(max_hands):
        finish_match_hand(match, rng)
        if match.is_over:
            return
    raise AssertionError("the match did not end")
