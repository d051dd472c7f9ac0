"""Random legal play over every preset: cards conserved, points add up, every play legal,
replay identical, and no seat's view ever names a card that seat may not know."""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.cards import Card
from heartsuit.hearts import Hand, Match, Rules
from heartsuit.hearts.actions import Moon
from heartsuit.hearts.rules import PRESET_NAMES
from heartsuit.hearts.scoring import moon_shooter
from heartsuit.shuffle import Rng
from tests.hearts_helpers import play_match, random_passes

PRESETS = [Rules.preset(name) for name in PRESET_NAMES] + [
    Rules.preset("black-maria", spade_penalties=True),
    Rules.preset("omnibus", moon="self_minus_26"),
    Rules.preset("standard", moon="shooter_chooses", hearts_broken_by="heart_or_queen"),
    Rules.preset("cancellation", players=9),
    Rules.preset("cancellation", players=7),
]
rules_st = st.sampled_from(PRESETS)
seeds = st.integers(min_value=0, max_value=2**32)


def codes_in(value: Any) -> set[str]:
    """Every card code mentioned anywhere in a JSON-able value."""
    found: set[str] = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= codes_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= codes_in(item)
    elif isinstance(value, str):
        with contextlib.suppress(ValueError):
            found.add(Card.parse(value).code)
    return found


def known_to(hand: Hand, seat: int) -> set[str]:
    """Cards ``seat`` may know: its own, its pass, what it received, everything played."""
    known = set(hand.holdings[seat]) | set(hand.passes[seat] or ()) | set(hand.received(seat))
    for trick in hand.tricks:
        known |= {c for _, c in trick.plays}
    if hand.trick is not None:
        known |= {c for _, c in hand.trick.plays}
    if hand.phase == "done":
        known |= set(hand.kitty)
    return {c.code for c in known}


def check_views(hand: Hand) -> None:
    for seat in range(hand.rules.players):
        view = hand.view(seat).to_dict()
        view.pop("rules")  # the removed cards are public knowledge
        leaked = codes_in(view) - known_to(hand, seat)
        assert not leaked, f"seat {seat} sees {sorted(leaked)}"


def test_the_leak_check_can_fail() -> None:
    hand = Hand.deal(Rules(), seed=1)
    view = hand.view(0).to_dict()
    view.pop("rules")
    view["extra"] = [hand.holdings[1][0].code]
    assert codes_in(view) - known_to(hand, 0) == {hand.holdings[1][0].code}


def check_conserved(hand: Hand) -> None:
    cards: Counter[Card] = Counter()
    for holding in hand.holdings:
        cards.update(holding)
    for taken in hand.taken:
        cards.update(taken)
    cards.update(hand.held_over)
    if hand.trick is not None:
        cards.update(c for _, c in hand.trick.plays)
    if hand.kitty_taker is None:
        cards.update(hand.kitty)
    assert cards == Counter(hand.rules.deck())


def play_hand(hand: Hand, rng: Rng, views: bool) -> None:
    if views:
        check_views(hand)  # before anyone passes
    if hand.phase == "pass":
        pool = list(hand.holdings[0])
        hand.pass_cards(0, [pool.pop(rng.below(len(pool))) for _ in range(hand.rules.pass_count)])
        if views:
            check_views(hand)  # one seat has passed, nothing has moved yet
    random_passes(hand, rng)
    check_conserved(hand)
    if views:
        check_views(hand)
    while hand.to_play is not None:
        seat = hand.to_play
        legal = hand.legal_plays(seat)
        assert legal, "a seat to play always has a legal card"
        for card in set(hand.holdings[seat]):
            assert (hand.why_illegal(seat, card) is None) == (card in legal)
        for other in range(hand.rules.players):
            assert other == seat or hand.legal_plays(other) == []
        hand.play(seat, legal[rng.below(len(legal))])
        check_conserved(hand)
        if views:
            check_views(hand)


def expected_sums(rules: Rules, hand: Hand) -> set[int]:
    total = rules.total_points()
    bonus = -10 if rules.jack_of_diamonds else 0
    return {total + bonus, (rules.players - 1) * total + bonus, -total + bonus}


@settings(max_examples=40, deadline=None)
@given(rules=rules_st, seed=seeds, choices=seeds)
def test_random_hands_keep_cards_points_and_replay(rules: Rules, seed: int, choices: int) -> None:
    hand = Hand.deal(rules, seed, hand_number=choices % 4)
    play_hand(hand, Rng(choices), views=True)
    if hand.phase == "moon":
        # moon="shooter_chooses": the seat that took every penalty card chooses how it scores
        shooter = hand.awaiting()[0]
        hand.apply(Moon(shooter, hand.best_moon_choice()))
    assert hand.phase == "done" and hand.held_over == () and hand.kitty_taker is not None
    points = hand.points()
    plain = rules.total_points() + (-10 if rules.jack_of_diamonds else 0)
    assert sum(points) in expected_sums(rules, hand)
    # a moon is the only way the sum differs from the hand's total
    assert (sum(points) != plain) == (moon_shooter(rules, hand.taken) is not None)
    assert len(hand.tricks) >= rules.hand_size()
    copy = Hand.from_dict(hand.to_dict())
    assert copy.to_dict() == hand.to_dict() and copy.points() == points
    check_views(hand)


@settings(max_examples=12, deadline=None)
@given(rules=rules_st, seed=seeds, choices=seeds)
def test_random_matches_end_and_replay(rules: Rules, seed: int, choices: int) -> None:
    short = dataclasses.replace(rules, target=60)
    match = Match.new(short, seed)
    rng = Rng(choices)
    play_match(match, rng)
    assert match.is_over and match.winners
    assert max(match.scores) >= 60 and all(
        match.scores[w] == min(match.scores) for w in match.winners
    )
    copy = Match.from_dict(match.to_dict())
    assert copy.to_dict() == match.to_dict() and copy.scores == match.scores
