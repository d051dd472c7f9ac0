"""The moon under ``shooter_chooses`` in a match: the match waits for the shooter's choice, a
computer takes the better option, and logs written before the shooter chose still replay."""

from __future__ import annotations

import json

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import IllegalMove, Match, Moon, Play, Reason, Rules
from heartsuit.hearts.actions import action_from_dict
from heartsuit.hearts.driver import SeatPlayer, advance
from heartsuit.hearts.game import Hand

#: with the play of :func:`play_to_moon`, seat 3 takes every penalty card of hand 0 of seed 130
SEED, SHOOTER = 130, 3


def high_for_seat_0(hand: Hand, seat: int, legal: list[Card]) -> Card:
    return max(legal) if seat == 0 else min(legal)


def play_to_moon(match: Match) -> None:
    """Play the current hand to its last card: each seat passes its first three cards, seat 0
    plays high and the others low."""
    hand = match.hand
    while hand.phase in ("pass", "play"):
        seat = match.awaiting()[0]
        if hand.phase == "pass":
            match.pass_cards(seat, hand.holdings[seat][:3])
        else:
            match.play(seat, high_for_seat_0(hand, seat, hand.legal_plays(seat)))


def moon_match(**options: object) -> Match:
    match = Match.new(Rules(moon="shooter_chooses", **options), SEED)  # type: ignore[arg-type]
    play_to_moon(match)
    return match


def test_the_match_waits_for_the_shooter_and_deals_on_after_the_choice() -> None:
    match = moon_match()
    assert match.hand.phase == "moon" and match.awaiting() == (SHOOTER,)
    assert match.hand_number == 0 and not match.is_over and match.score_sheet() == ()
    assert match.scores == (0, 0, 0, 0)
    version = match.version
    with pytest.raises(IllegalMove) as wrong:
        match.apply(Moon(0, "self_minus_26"))
    assert wrong.value.reason is Reason.NOT_YOUR_TURN
    assert match.why_illegal(Play(SHOOTER, match.hand.dealt[0][0])) is Reason.WRONG_PHASE
    events = [e.to_dict() for e in match.choose_moon(SHOOTER, "self_minus_26")]
    assert [e["type"] for e in events] == ["moon_chosen", "hand_done", "hand_dealt"]
    assert events[1]["points"] == [0, 0, 0, -26] and events[1]["shooter"] == SHOOTER
    assert match.version == version + 1 and match.hand_number == 1
    line = match.score_sheet()[0]
    assert (line.shooter, line.moon, line.totals) == (SHOOTER, "self_minus_26", (0, 0, 0, -26))
    assert line.to_dict()["moon"] == "self_minus_26"


def test_the_choice_is_kept_in_the_log_and_replays() -> None:
    match = moon_match()
    match.choose_moon(SHOOTER, "self_minus_26")  # not what a computer takes with nothing at stake
    stored = json.loads(json.dumps(match.to_dict()))
    assert stored["version"] == 3
    assert {"type": "moon", "seat": SHOOTER, "choice": "self_minus_26"} in stored["actions"]
    again = Match.from_dict(stored)
    assert again.scores == match.scores == (0, 0, 0, -26)
    assert again.version == match.version
    log = [a.to_dict() for a in match.actions]
    assert Match.from_actions(match.rules, SEED, log).score_sheet() == match.score_sheet()


def test_a_log_from_before_the_choice_still_replays_the_same() -> None:
    # the old engine scored the moon itself (the better option) and went on: no moon action
    match = moon_match()
    best = match.hand.best_moon_choice()
    match.choose_moon(SHOOTER, best)
    match.pass_cards(0, match.hand.holdings[0][:3])
    old_log = [a.to_dict() for a in match.actions if not isinstance(a, Moon)]
    replayed = Match.from_actions(match.rules, SEED, old_log)
    assert replayed.version == len(old_log)  # the settled moon is not counted as an action
    assert replayed.score_sheet() == match.score_sheet()
    assert replayed.hand.passes == match.hand.passes
    # a stored match of format 2 that ended on that moon: the old engine had scored it
    old = {"version": 2, "rules": match.rules.to_dict(), "seed": SEED, "actions": old_log[:-1]}
    ended = Match.from_dict(old)
    assert ended.hand_number == 1 and ended.score_sheet() == match.score_sheet()
    # while in format 3 the same actions mean the shooter has not chosen yet
    waiting = Match.from_dict({**old, "version": 3})
    assert waiting.awaiting() == (SHOOTER,) and waiting.hand.phase == "moon"


def test_the_computer_takes_the_better_option_for_its_standing() -> None:
    match = moon_match(target=20)  # +26 to the others would end the match with seat 3 winning
    players = [SeatPlayer.human()] * 3 + [SeatPlayer.computer("easy")]
    taken = advance(match, players, key="moon-test")
    assert [a for a, _ in taken] == [Moon(SHOOTER, "others_plus_26")]
    assert match.is_over and match.winners == (SHOOTER,)
    close = Match.new(Rules(moon="shooter_chooses", target=100), SEED)
    play_to_moon(close)
    assert close.hand.best_moon_choice() == "others_plus_26"  # nothing at stake: the classic
    assert action_from_dict(Moon(SHOOTER, "others_plus_26").to_dict()) == Moon(
        SHOOTER, "others_plus_26"
    )
