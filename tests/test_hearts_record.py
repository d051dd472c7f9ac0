"""A finished match face up (``heartsuit.hearts.record``): every hand's record says what the
engine did — the deal, the passes, every trick — and nothing of a hand still being played."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.hearts import Match, Rules
from heartsuit.hearts.actions import Pass
from heartsuit.hearts.record import hand_records, match_record
from heartsuit.hearts.rules import PRESET_NAMES
from heartsuit.shuffle import Rng
from tests.hearts_helpers import play_match

PRESETS = [Rules.preset(name, target=40) for name in PRESET_NAMES] + [
    Rules.preset("black-maria", spade_penalties=True, target=40),
    Rules.preset("cancellation", players=10, target=40),
]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(PRESETS), st.integers(0, 2**32))
def test_a_finished_match_record_holds_every_card_once_and_adds_up(rules: Rules, seed: int) -> None:
    match = Match.new(rules, seed)
    play_match(match, Rng(seed))
    assert match.is_over
    record = match_record(match)
    deck = Counter(c.code for c in rules.deck())
    assert record["over"] and record["winners"] == list(match.winners)
    assert len(record["hands"]) == len(match.score_sheet())
    for hand, line in zip(record["hands"], match.score_sheet(), strict=True):
        # the deal and the kitty are the deck, each card as often as the deck has it
        dealt = Counter(c for cards in hand["deal"] for c in cards) + Counter(hand["kitty"])
        assert dealt == deck
        # every card held after the pass is played exactly once in the tricks
        played = Counter(c for trick in hand["tricks"] for _, c in trick["plays"])
        assert played == deck - Counter(hand["kitty"])
        # each pass goes to its receiver, by the rules' direction
        for seat, cards in enumerate(hand["passes"]):
            target = rules.pass_target(seat, rules.pass_direction(hand["number"]))
            assert hand["pass_to"][seat] == target
            if cards is not None:
                assert set(cards) <= set(hand["deal"][seat])
        # the counting cards each seat took are the engine's, and the score sheet's line
        taken = match.hands[hand["number"]].taken
        assert hand["penalties"] == [
            [c.code for c in cards if rules.card_points(c)] for cards in taken
        ]
        assert hand["points"] == list(line.points) and hand["totals"] == list(line.totals)
        assert hand["shooter"] == line.shooter


def test_a_hand_still_being_played_is_not_written() -> None:
    match = Match.new(Rules.preset("standard"), 12)
    assert hand_records(match) == []
    # a pass chosen in the running hand is nowhere in the record
    hand = match.hand
    first = hand.holdings[0][:3]
    match.apply(Pass(0, tuple(first)))
    record = match_record(match)
    assert record["hands"] == [] and not record["over"] and record["winners"] == []
