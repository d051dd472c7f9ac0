"""Matches: passing cycle per hand, totals, the exactly-100 reset, the target, ties, replay."""

from __future__ import annotations

import pytest

from heartsuit.hearts import DealError, IllegalMove, Match, PassDirection, Rules
from heartsuit.hearts.scoring import add_hand, match_over, winners
from heartsuit.shuffle import Rng
from tests.hearts_helpers import finish_match_hand, play_match


def test_exactly_100_goes_back_to_50_only_with_the_option() -> None:
    assert add_hand(Rules(exactly_100_reset=True), (90, 80, 0, 0), (10, 21, 0, 0)) == (
        50, 101, 0, 0)
    assert add_hand(Rules(), (90, 80, 0, 0), (10, 21, 0, 0)) == (100, 101, 0, 0)
    assert add_hand(Rules(exactly_100_reset=True, target=60), (50,) * 4, (10, 0, 0, 0))[0] == 30


def test_target_and_shared_ties() -> None:
    rules = Rules()
    assert not match_over(rules, (99, 40, 40, 70))
    assert match_over(rules, (100, 40, 40, 70))
    assert winners(rules, (100, 40, 40, 70)) == (1, 2)
    assert winners(rules, (99, 40, 40, 70)) == ()


def test_play_on_needs_a_single_leader() -> None:
    rules = Rules(ties="play_on")
    assert not match_over(rules, (100, 40, 40, 70))
    assert winners(rules, (100, 40, 39, 70)) == (2,)


def test_a_match_passes_in_the_cycle_and_carries_totals() -> None:
    rng = Rng(4)
    match = Match.new(Rules(target=10_000), seed=4)
    directions = []
    for number in range(5):
        assert match.hand.hand_number == number
        assert match.hand.scores == match.scores
        directions.append(match.hand.pass_direction)
        before = match.scores
        done = finish_match_hand(match, rng)
        assert match.scores == add_hand(match.rules, before, done.points())
        assert match.hand.hand_number == number + 1  # dealt by the match itself
    L, R, A, H = (PassDirection(d) for d in ("left", "right", "across", "hold"))
    assert directions == [L, R, A, H, L]
    assert len(match.hand_points()) == 5


def test_three_player_match_cycle_has_no_across() -> None:
    rng = Rng(1)
    match = Match.new(Rules.preset("three", target=10_000), seed=1)
    seen = []
    for _ in range(4):
        seen.append(str(match.hand.pass_direction))
        finish_match_hand(match, rng)
    assert seen == ["left", "right", "hold", "left"]


def test_the_match_ends_at_the_target_with_the_lowest_total_winning() -> None:
    match = Match.new(Rules(target=30), seed=8)
    play_match(match, Rng(8))
    assert max(match.scores) >= 30
    assert match.winners and all(match.scores[w] == min(match.scores) for w in match.winners)
    with pytest.raises(IllegalMove, match="over"):
        match.play(0, match.hand.dealt[0][0])


def test_play_on_keeps_dealing_until_one_leader() -> None:
    for seed in range(12):
        match = Match.new(Rules(target=1, ties="play_on"), seed=seed)
        play_match(match, Rng(seed))
        assert len(match.winners) == 1
        for number, _ in enumerate(match.hands[:-1]):
            totals = add_hand(match.rules, match.hands[number].scores, match.hand_points()[number])
            # every earlier hand ended with the target reached but a tie for the lead, or short
            assert not match_over(match.rules, totals)


def test_the_match_seed_fixes_every_deal() -> None:
    a, b = Match.new(Rules(target=10_000), seed=21), Match.new(Rules(target=10_000), seed=21)
    for _ in range(3):
        assert a.hand.dealt == b.hand.dealt
        finish_match_hand(a, Rng(1))
        finish_match_hand(b, Rng(2))
    assert Match.new(Rules(), seed=22).hand.dealt != Match.new(Rules(), seed=21).hand.dealt


def test_to_dict_replays_the_whole_match() -> None:
    match = Match.new(Rules.preset("omnibus", target=60, exactly_100_reset=True), seed=3)
    play_match(match, Rng(3))
    copy = Match.from_dict(match.to_dict())
    assert copy.to_dict() == match.to_dict()
    assert copy.scores == match.scores and copy.winners == match.winners


def test_bad_stored_matches_are_refused() -> None:
    with pytest.raises(DealError, match="needs"):
        Match.from_dict({"rules": {}})
    with pytest.raises(DealError, match="version"):
        Match.from_dict({"version": 9, "rules": {}, "seed": 1, "hands": []})
    with pytest.raises(DealError, match="seed"):
        Match.new(Rules(), seed=-1)
