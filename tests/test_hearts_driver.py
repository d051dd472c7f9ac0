"""The table driver: computer turns for every preset, stopping for people, and choices that are
a pure function of (key, version, seat, view)."""

from __future__ import annotations

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import Hand, Match, Pass, Play, Rules, SeatView
from heartsuit.hearts.bots import LEVELS, Bot, HeuristicBot, RandomBot, UnknownBot, make_level
from heartsuit.hearts.bots.easy import EasyBot
from heartsuit.hearts.bots.search import SearchBot
from heartsuit.hearts.driver import (
    BotError,
    SeatPlayer,
    advance,
    bot_action,
    computer_action,
    computer_turns,
    make_computer,
)
from heartsuit.hearts.events import MatchOver
from heartsuit.hearts.rules import PRESET_NAMES

COMPUTERS = [SeatPlayer.computer("normal"), SeatPlayer.computer("easy")]


def all_computers(players: int) -> list[SeatPlayer]:
    return [COMPUTERS[seat % 2] for seat in range(players)]


TABLES = {name: Rules.preset(name, target=40) for name in PRESET_NAMES if name != "cancellation"}
TABLES |= {f"cancellation-{n}": Rules.preset("cancellation", players=n, target=60) for n in
           range(6, 11)}


@pytest.mark.parametrize("rules", TABLES.values(), ids=TABLES.keys())
def test_computers_play_whole_matches_of_every_preset(rules: Rules) -> None:
    match = Match.new(rules, seed=rules.players)
    steps = advance(match, all_computers(rules.players), "test/whole")
    assert match.is_over and match.awaiting() == ()
    assert len(steps) == match.version == len(match.actions)
    assert [action for action, _ in steps] == list(match.actions)
    assert steps[-1][1][-1] == MatchOver(match.winners, match.scores)
    assert advance(match, all_computers(rules.players), "test/whole") == []


def test_the_driver_stops_when_a_person_must_act() -> None:
    match = Match.new(Rules(), seed=3)
    players = [SeatPlayer.human()] + [SeatPlayer.computer()] * 3
    steps = advance(match, players, "t")
    # the computers pass; the person still has to
    assert [type(a) for a, _ in steps] == [Pass, Pass, Pass] and match.awaiting() == (0,)
    assert computer_turns(match, lambda s: players[s].kind == "computer") == ()
    match.pass_cards(0, match.hand.holdings[0][:3])
    steps = advance(match, players, "t")
    assert all(isinstance(a, Play) and a.seat != 0 for a, _ in steps)
    assert match.awaiting() == (0,)


def test_max_actions_bounds_one_call() -> None:
    match = Match.new(Rules(), seed=3)
    steps = advance(match, all_computers(4), "t", max_actions=2)
    assert len(steps) == 2 and match.version == 2 and match.awaiting() == (2, 3)


def test_computer_turns_are_the_awaited_computer_seats() -> None:
    match = Match.new(Rules(), seed=3)
    assert computer_turns(match, lambda s: s % 2 == 1) == (1, 3)
    assert computer_turns(match, lambda s: False) == ()


def test_a_computer_choice_is_a_pure_function_of_key_version_seat_and_view() -> None:
    rules = Rules.preset("five", target=30)
    first = Match.new(rules, seed=8)
    steps = advance(first, all_computers(5), "table-17")
    # the same table in another process: replayed from its log, it makes the same choices
    again = Match.new(rules, seed=8)
    assert [a for a, _ in advance(again, all_computers(5), "table-17")] == [a for a, _ in steps]
    for version in (0, 3, 40, len(steps) // 2, len(steps) - 1):
        replay = Match.from_actions(rules, 8, [a.to_dict() for a, _ in steps[:version]])
        assert replay.version == version
        action = steps[version][0]
        level = all_computers(5)[action.seat].level
        assert level is not None
        assert computer_action(replay, action.seat, level, "table-17") == action
    # another table key seeds other choices (the random "easy" seats differ)
    other = Match.new(rules, seed=8)
    assert [a for a, _ in advance(other, all_computers(5), "table-18")] != [a for a, _ in steps]


def test_bots_get_only_the_view_of_their_seat_and_a_fresh_seed_each_time() -> None:
    seen: list[tuple[int, int]] = []

    class Spy(RandomBot):
        def choose_play(self, view: SeatView) -> Card:
            assert isinstance(view, SeatView) and view.to_play == view.seat
            seen.append((view.seat, self.seed))
            return super().choose_play(view)

        def __init__(self, seed: int) -> None:
            super().__init__(seed)
            self.seed = seed

    def spies(level: str, seed: int) -> Bot:
        return Spy(seed)

    hand = Hand.deal(Rules(passing=False), seed=2)
    advance(hand, all_computers(4), "spy", bots=spies)
    assert len(seen) == 52 and len({seed for _, seed in seen}) == 52


def test_a_bot_choosing_an_illegal_card_is_a_bot_error() -> None:
    class Cheat(HeuristicBot):
        name = "cheat"

        def choose_play(self, view: SeatView) -> Card:
            return next(c for c in Rules().deck() if c not in view.legal)

        def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
            return view.hand[:1]

    match = Match.new(Rules(), seed=1)
    with pytest.raises(BotError, match="'cheat' passed"):
        bot_action(Cheat(), match.view(0))
    hold = Match.new(Rules(passing=False), seed=1)
    seat = hold.awaiting()[0]
    with pytest.raises(BotError, match="the legal cards are 2♣"):
        bot_action(Cheat(), hold.view(seat))
    assert hold.version == 0


def test_a_computer_is_asked_only_when_its_seat_must_act() -> None:
    match = Match.new(Rules(passing=False), seed=1)
    idle = (match.awaiting()[0] + 1) % 4
    with pytest.raises(ValueError, match="nothing to do"):
        computer_action(match, idle, "normal", "t")


def test_levels_and_bot_names_make_computers() -> None:
    assert LEVELS == {"easy": "easy", "normal": "normal", "hard": "hard"}
    assert isinstance(make_level("normal", 1), SearchBot)
    assert isinstance(make_computer("Easy", 1), EasyBot)
    assert isinstance(make_computer("heuristic", 1), HeuristicBot)
    assert isinstance(make_computer("random", 1), RandomBot)
    with pytest.raises(UnknownBot, match="choose one of easy, normal, hard"):
        make_level("hardest")
    with pytest.raises(UnknownBot, match="no level or bot called 'nobody'"):
        make_computer("nobody", 0)


def test_seats_are_people_or_computers_with_a_level() -> None:
    assert SeatPlayer.computer() == SeatPlayer("computer", "normal")
    assert SeatPlayer.human().level is None
    with pytest.raises(ValueError, match="has a level"):
        SeatPlayer("computer")
    with pytest.raises(ValueError, match="has a level"):
        SeatPlayer("human", "easy")
    with pytest.raises(ValueError, match="'robot'"):
        SeatPlayer("robot", "easy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="each of the 4 seats"):
        advance(Match.new(Rules(), seed=1), [SeatPlayer.computer()] * 3, "t")
