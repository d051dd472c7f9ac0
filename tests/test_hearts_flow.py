"""A match as a table sees it: who must act, the version, the events of each action, refusals
that change nothing, the next hand dealt by the match, the score sheet and exact replays."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.cards import Card, Suit
from heartsuit.hearts import (
    Action,
    ActionError,
    Hand,
    IllegalMove,
    Match,
    Moon,
    Pass,
    PassDirection,
    Play,
    Reason,
    Rules,
)
from heartsuit.hearts.events import (
    HandDealt,
    HandDone,
    MatchOver,
    Passed,
    PassesExchanged,
    Played,
    TrickDone,
    trick_done,
)
from heartsuit.hearts.rules import PRESET_NAMES
from heartsuit.hearts.scoring import add_hand, moon_shooter
from heartsuit.shuffle import Rng
from tests.hearts_helpers import finish_match_hand, play_match, random_pass, run

C = Card.parse


def state(match: Match) -> tuple[Any, ...]:
    """Everything a refusal must leave alone, and a replay must rebuild."""
    views = [match.view(seat).to_dict() for seat in range(match.rules.players)]
    return match.to_dict(), match.version, match.awaiting(), views, match.score_sheet()


def test_every_seat_is_awaited_while_passing_then_the_seat_to_play() -> None:
    match = Match.new(Rules(), seed=5)
    assert match.awaiting() == (0, 1, 2, 3) and match.version == 0
    hand = match.hand
    assert match.pass_cards(2, hand.holdings[2][:3]) == [Passed(2)]
    assert match.awaiting() == (0, 1, 3) and match.version == 1
    for seat in (3, 0):
        match.pass_cards(seat, hand.holdings[seat][:3])
    events = match.pass_cards(1, hand.holdings[1][:3])
    assert events == [Passed(1), PassesExchanged(PassDirection.LEFT)]
    assert match.awaiting() == (hand.to_play,) and match.version == 4
    opener = next(s for s, h in enumerate(hand.holdings) if C("2C") in h)
    assert hand.to_play == opener


def test_a_hold_hand_awaits_the_opening_seat_at_once() -> None:
    match = Match.new(Rules(passing=False), seed=5)
    assert match.hand.pass_direction is PassDirection.HOLD
    assert match.awaiting() == (match.hand.to_play,) and match.version == 0


def test_after_the_last_card_the_next_hand_is_dealt_and_awaited() -> None:
    match = Match.new(Rules(target=10_000), seed=3)
    rng = Rng(3)
    for number in range(4):
        finished = finish_match_hand(match, rng)
        assert finished.phase == "done" and finished is match.hands[number]
        assert match.hand_number == number + 1
        if match.hand.pass_direction is PassDirection.HOLD:
            assert match.awaiting() == (match.hand.to_play,)
        else:
            assert match.awaiting() == (0, 1, 2, 3)
    assert match.hands[3].pass_direction is PassDirection.HOLD


def test_the_version_counts_every_accepted_action_of_the_match() -> None:
    match = Match.new(Rules(target=40), seed=2)
    rng = Rng(2)
    while not match.is_over:
        before = match.version
        finish_match_hand(match, rng)
        assert match.version == before + len(match.hands[-1 if match.is_over else -2].actions)
    assert match.version == len(match.actions) == sum(len(h.actions) for h in match.hands)
    assert match.awaiting() == ()


def test_refusals_change_nothing() -> None:
    match = Match.new(Rules(), seed=7)
    hand = match.hand
    before = state(match)
    refused: list[tuple[Any, Reason]] = [
        (Pass(0, hand.holdings[0][:2]), Reason.WRONG_PASS_COUNT),
        (Pass(0, hand.holdings[1][:3]), Reason.NOT_IN_HAND),
        (Pass(9, hand.holdings[0][:3]), Reason.NO_SUCH_SEAT),
        (Play(0, hand.holdings[0][0]), Reason.WRONG_PHASE),
    ]
    for action, reason in refused:
        assert match.why_illegal(action) is reason
        with pytest.raises(IllegalMove) as error:
            match.apply(action)
        assert error.value.reason is reason
        assert state(match) == before
    match.pass_cards(0, hand.holdings[0][:3])
    before = state(match)
    with pytest.raises(IllegalMove, match="already passed"):
        match.pass_cards(0, hand.holdings[0][3:6])
    not_an_action: Any = {"type": "play", "seat": 0, "card": "QS"}
    with pytest.raises(ActionError):
        match.apply(not_an_action)
    with pytest.raises(ActionError):
        match.why_illegal(not_an_action)
    assert state(match) == before


def test_a_finished_match_refuses_everything() -> None:
    match = Match.new(Rules(target=20), seed=1)
    play_match(match, Rng(1))
    before = state(match)
    action = Play(0, match.hand.dealt[0][0])
    assert match.why_illegal(action) is Reason.WRONG_PHASE
    with pytest.raises(IllegalMove, match="the match is over"):
        match.apply(action)
    assert state(match) == before


def test_a_hand_of_a_match_is_played_through_the_match_only() -> None:
    match = Match.new(Rules(), seed=1)
    hand = match.hand
    with pytest.raises(RuntimeError, match=r"Match\.apply"):
        hand.pass_cards(0, hand.holdings[0][:3])
    assert match.version == 0 and hand.actions == ()


def suited_match_hand() -> Hand:
    """Seat 0 all clubs, 1 all diamonds, 2 all spades, 3 all hearts: seat 0 takes every
    trick, so it shoots the moon."""
    hands = [run("C", 2, 14), run("D", 2, 14), run("S", 2, 14), run("H", 2, 14)]
    return Hand.from_cards(Rules(), hands, pass_direction="hold")


def test_each_play_reports_the_card_then_the_trick_then_the_hand_with_its_shooter() -> None:
    hand = suited_match_hand()
    assert hand.awaiting() == (0,)
    assert hand.play(0, C("2C")) == [Played(0, C("2C"))]
    hand.play(1, C("2D"))
    hand.play(2, C("2S"))
    events = hand.play(3, C("2H"))
    plays = ((0, C("2C")), (1, C("2D")), (2, C("2S")), (3, C("2H")))
    assert events == [Played(3, C("2H")), TrickDone(0, 1, (), plays)]
    for rank in range(3, 15):
        for seat, suit in enumerate("CDSH"):
            events = hand.play(seat, Card(rank, Suit(suit)))
    assert events[-1] == HandDone(0, (0, 26, 26, 26), 0)
    assert hand.awaiting() == () and hand.moon_shooter() == 0 and hand.version == 52
    assert events[-1].to_dict() == {
        "type": "hand_done", "hand_number": 0, "points": [0, 26, 26, 26], "shooter": 0
    }


def test_the_hand_that_ends_a_match_hand_reports_the_deal_or_the_end() -> None:
    match = Match.new(Rules(target=30), seed=4)
    rng = Rng(4)
    seen: list[Any] = []
    while not match.is_over:
        hand = match.hand
        seat = match.awaiting()[0]
        if hand.phase == "pass":
            seen.append(match.pass_cards(seat, random_pass(hand, seat, rng)))
        else:
            legal = hand.legal_plays(seat)
            seen.append(match.play(seat, legal[rng.below(len(legal))]))
    ends = [events for events in seen if any(isinstance(e, HandDone) for e in events)]
    assert len(ends) == len(match.hands)
    for number, events in enumerate(ends[:-1]):
        assert [type(e) for e in events[-4:]] == [Played, TrickDone, HandDone, HandDealt]
        assert events[-1] == HandDealt(number + 1, match.rules.pass_direction(number + 1))
    assert [type(e) for e in ends[-1][-3:]] == [TrickDone, HandDone, MatchOver]
    assert ends[-1][-1] == MatchOver(match.winners, match.scores)
    assert ends[-1][-1].to_dict()["type"] == "match_over"


def test_events_never_name_a_passed_card() -> None:
    match = Match.new(Rules(), seed=9)
    hand = match.hand
    for seat in range(4):
        for event in match.pass_cards(seat, hand.holdings[seat][:3]):
            text = json.dumps(event.to_dict())
            assert not any(c.code in text.split('"') for c in hand.dealt[seat])


@settings(max_examples=10, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    seed=st.integers(0, 2**32),
    choices=st.integers(0, 2**32),
)
def test_the_score_sheet_adds_up_and_names_the_shooters(
    preset: str, seed: int, choices: int
) -> None:
    match = Match.new(Rules.preset(preset, target=50), seed)
    play_match(match, Rng(choices))
    sheet = match.score_sheet()
    assert len(sheet) == len(match.hands) == len(match.hand_points())
    totals = (0,) * match.rules.players
    for line, hand in zip(sheet, match.hands, strict=True):
        totals = add_hand(match.rules, totals, line.points)
        assert line.totals == totals and line.points == hand.points()
        assert line.shooter == moon_shooter(match.rules, hand.taken)
        assert line.pass_direction is hand.pass_direction
    assert sheet[-1].totals == match.scores
    assert json.loads(json.dumps([line.to_dict() for line in sheet]))[0]["hand_number"] == 0


@settings(max_examples=10, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32), stop=st.integers(0, 400))
def test_replays_rebuild_the_same_version_and_state(preset: str, seed: int, stop: int) -> None:
    match = Match.new(Rules.preset(preset, target=40), seed)
    rng = Rng(seed)
    while match.version < stop and not match.is_over:
        hand, seat = match.hand, match.awaiting()[0]
        if hand.phase == "pass":
            match.pass_cards(seat, random_pass(hand, seat, rng))
        else:
            legal = hand.legal_plays(seat)
            match.play(seat, legal[rng.below(len(legal))])
    stored = json.loads(json.dumps(match.to_dict()))
    assert state(Match.from_dict(stored)) == state(match)
    log = [a.to_dict() for a in match.actions]  # a server's flat event log
    assert state(Match.from_actions(match.rules, match.seed, log)) == state(match)


def test_matches_stored_in_format_1_still_replay() -> None:
    match = Match.new(Rules(target=30), seed=6)
    play_match(match, Rng(6))

    def legacy(action: Action) -> dict[str, Any]:
        assert not isinstance(action, Moon)  # the default moon rule asks nothing
        if isinstance(action, Pass):
            return {"seat": action.seat, "pass": [c.code for c in action.cards]}
        return {"seat": action.seat, "play": action.card.code}

    old = {
        "version": 1,
        "rules": match.rules.to_dict(),
        "seed": match.seed,
        "hands": [[legacy(a) for a in hand.actions] for hand in match.hands],
    }
    assert state(Match.from_dict(old)) == state(match)


def test_a_bad_action_in_a_log_says_which_it_was() -> None:
    log = [{"type": "play", "seat": 0, "card": "2C"}]
    with pytest.raises(IllegalMove) as error:
        Match.from_actions(Rules(), 1, log)
    assert "action 0 of the replay" in "".join(error.value.__notes__)
    with pytest.raises(ActionError):
        Match.from_actions(Rules(), 1, [{"type": "deal"}])


def test_the_engines_trick_done_is_the_frozen_value() -> None:
    # the engine makes its TrickDone events without the dataclass __init__: the same value
    plays = ((1, C("QS")), (2, C("KD")))
    made = trick_done(1, 13, (0,), plays)
    assert made == TrickDone(1, 13, (0,), plays) and type(made) is TrickDone
    assert hash(made) == hash(TrickDone(1, 13, (0,), plays))
    assert made.to_dict()["points"] == 13 and repr(made) == repr(TrickDone(1, 13, (0,), plays))
    with pytest.raises(AttributeError):
        made.points = 0  # type: ignore[misc]
