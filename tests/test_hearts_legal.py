"""The one-pass list of legal cards and the card-by-card check that explains refusals agree.

``Hand.legal_plays`` (and what ``play`` accepts) comes from :mod:`heartsuit.hearts.legal`; the
reason for a refusal from ``Hand._check_play``. They are two pieces of code for one rule, so
this plays random hands of every preset and variant and asks both about every card of the deck
for every seat, at every play.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.cards import Card, Suit
from heartsuit.hearts import Hand, IllegalMove, Rules
from heartsuit.hearts.actions import Play
from heartsuit.shuffle import Rng
from tests.hearts_helpers import random_passes
from tests.test_hearts_properties import PRESETS

VARIANTS = [
    *PRESETS,
    Rules.preset("standard", first_trick_points=True),
    Rules.preset("three", first_trick_points=True, hearts_broken_by="heart_or_queen"),
    Rules.preset("cancellation", players=6, first_trick_points=True),
]


def agree_everywhere(hand: Hand) -> None:
    deck = set(hand.rules.deck())
    for seat in range(hand.rules.players):
        legal = hand.legal_plays(seat)
        for card in deck:
            explained = hand._check_play(seat, card)[0]
            assert (explained is None) == (card in legal), (seat, card, explained)
            assert hand.why_illegal(seat, card) == explained


@settings(max_examples=30, deadline=None)
@given(rules=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_the_list_and_the_explanation_agree_on_every_card(
    rules: Rules, seed: int, choices: int
) -> None:
    rng = Rng(choices)
    hand = Hand.deal(rules, seed, hand_number=choices % 4)
    random_passes(hand, rng)
    while hand.to_play is not None:
        agree_everywhere(hand)
        legal = hand.legal_plays(hand.to_play)
        hand.play(hand.to_play, legal[rng.below(len(legal))])


def test_an_equal_card_from_elsewhere_is_played_like_the_hands_own() -> None:
    hand = Hand.deal(Rules(passing=False), 3)
    seat = hand.to_play
    assert seat is not None
    opening = Card.parse("2C")  # a new object, equal to the one in the hand
    events = hand.play(seat, opening)
    assert hand.tricks == () and hand.trick is not None
    assert hand.trick.plays == ((seat, Card(2, Suit.CLUBS)),)
    assert events[0].to_dict() == {"type": "played", "seat": seat, "card": "2C"}


@pytest.mark.parametrize("seat", [True, 1.0, "1"])
def test_a_seat_that_only_looks_like_the_seat_to_play_is_refused(seat: object) -> None:
    hand = Hand.from_cards(
        Rules(passing=False),
        [
            [Card(r, s) for r in range(2, 15)]
            for s in (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES, Suit.HEARTS)
        ],
    )
    hand.play(0, Card(2, Suit.CLUBS))
    assert hand.to_play == 1
    with pytest.raises(IllegalMove) as refused:
        hand.play(seat, Card(2, Suit.DIAMONDS))
    assert refused.value.reason == "no_such_seat"
    assert hand.legal_plays(seat) == []
    assert hand.version == 1


def snapshot(hand: Hand) -> tuple[object, ...]:
    return (
        hand.holdings,
        hand.tricks,
        hand.trick,
        hand.taken,
        hand.points_taken(),
        hand.hearts_broken,
        hand.actions,
        hand.to_play,
        hand.phase,
    )


@settings(max_examples=30, deadline=None)
@given(rules=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32), choices=st.integers(0, 2**32))
def test_play_agrees_with_apply_move_for_move_and_refusal_for_refusal(
    rules: Rules, seed: int, choices: int
) -> None:
    # ``play`` takes a quick path for a listed card (written out for a card that does not end
    # a trick); ``apply(Play(...))`` always takes the checked one. Two copies of one hand,
    # driven the same way, give the same events and the same state, and refuse the same
    # wrong cards (another seat's, an unlisted one, a seat out of turn) with the same reason
    rng = Rng(choices)
    quick = Hand.deal(rules, seed, hand_number=choices % 4)
    checked = Hand.deal(rules, seed, hand_number=choices % 4)
    random_passes(quick, rng)
    for giver, cards in enumerate(quick.passes):
        if cards is not None:
            checked.pass_cards(giver, cards)
    deck = rules.deck()
    while (seat := quick.to_play) is not None:
        legal = quick.legal_plays(seat)
        assert checked.legal_plays(seat) == legal
        wrong = deck[rng.below(len(deck))]
        other = (seat + 1) % rules.players
        for attempt_seat, card in ((seat, wrong), (other, legal[0]), (True, legal[0])):
            if attempt_seat is seat and card in legal:
                continue
            before = snapshot(quick)
            with pytest.raises(IllegalMove) as refused:
                quick.play(attempt_seat, card)
            with pytest.raises(IllegalMove) as refused_too:
                checked.apply(Play(attempt_seat, card))
            assert refused.value.reason == refused_too.value.reason
            assert str(refused.value) == str(refused_too.value)
            assert snapshot(quick) == before
        card = legal[rng.below(len(legal))]
        assert quick.play(seat, card) == checked.apply(Play(seat, card))
        assert snapshot(quick) == snapshot(checked)
    assert quick.phase == checked.phase
    if quick.phase == "done":
        assert quick.points() == checked.points()
