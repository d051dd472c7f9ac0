"""The OpenSpiel adapter: OpenSpiel's own conformance check for every preset, move-for-move
agreement with OpenSpiel's Hearts, parameters, serialization and resampling for ISMCTS."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
import pytest

import heartsuit.adapters.openspiel  # noqa: F401  (registers the game)
from heartsuit.adapters.openspiel import GAME_NAME, HeartsState
from heartsuit.adapters.shared import CARDS, card_id
from heartsuit.hearts.rules import PRESET_NAMES
from tests.adapters_support import ismcts, mcts

PRESETS = list(PRESET_NAMES)


def load(**params: Any) -> Any:
    return pyspiel.load_game(GAME_NAME, params)


def play_randomly(state: Any, rng: random.Random, stop: int | None = None) -> Any:
    """Random chance outcomes and random legal actions, until the end or until a seat is to
    act after ``stop`` actions."""
    count = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        elif stop is not None and count >= stop:
            break
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            count += 1
    return state


@pytest.mark.parametrize("preset", PRESETS)
def test_openspiels_conformance_check_passes(preset: str) -> None:
    game = load(preset=preset)
    # a Cancellation hand is twice as long, with six seats to observe at every step
    sims = 1 if preset == "cancellation" else 2
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"preset": "cancellation", "players": 10},
        {"preset": "standard", "moon": "self_minus_26", "jack_of_diamonds": "on",
         "pass_direction": "across", "returns": "negated"},
        {"preset": "black-maria", "spade_penalties": "on", "moon": "shooter_chooses"},
    ],
    ids=["cancellation-10", "standard-options", "black-maria-options"],
)
def test_openspiels_conformance_check_passes_with_options(params: dict[str, Any]) -> None:
    pyspiel.random_sim_test(load(**params), num_sims=1, serialize=True, verbose=False)


def test_same_legal_actions_and_returns_as_openspiels_hearts() -> None:
    # OpenSpiel's Hearts without passing, with only hearts breaking hearts, is the standard
    # preset without passing; chance deals card k to seat k % 4 in both, so the same chance
    # outcomes deal the same hands
    theirs = pyspiel.load_game("hearts", {"pass_cards": False, "qs_breaks_hearts": False})
    ours = load(preset="standard", passing="off")
    rng = random.Random(2026)
    compared = 0
    for _ in range(150):
        a, b = theirs.new_initial_state(), ours.new_initial_state()
        a.apply_action(0)  # their pass-direction chance node: "no pass" is its only outcome
        while a.is_chance_node():
            assert b.is_chance_node()
            outcomes = a.chance_outcomes()
            mine = b.chance_outcomes()
            assert [o for o, _ in mine] == [o for o, _ in outcomes]
            assert [p for _, p in mine] == pytest.approx([p for _, p in outcomes])
            card = rng.choice([o for o, _ in outcomes])
            a.apply_action(card)
            b.apply_action(card)
        while not a.is_terminal():
            assert b.current_player() == a.current_player()
            assert b.legal_actions() == a.legal_actions()
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
            compared += 1
        assert b.is_terminal()
        assert b.returns() == a.returns()
    assert compared == 150 * 52


def test_card_numbers_are_openspiels() -> None:
    state = pyspiel.load_game("hearts", {"pass_cards": False}).new_initial_state()
    state.apply_action(0)
    for number, card in enumerate(CARDS):
        assert card_id(card) == number
        assert state.action_to_string(number).upper() in {card.code, card.code.replace("10", "T")}


def test_parameters_make_the_rules() -> None:
    game = load(preset="omnibus")
    assert game.num_players() == 4
    assert game.max_utility() == 36.0  # 26 − (−10): the J♦ bonus counts
    assert load(preset="omnibus", jack_of_diamonds="off").max_utility() == 26.0
    assert load(preset="cancellation", players=8).num_players() == 8
    assert load(preset="five").num_players() == 5
    negated = load(preset="standard", returns="negated", moon="self_minus_26")
    assert (negated.min_utility(), negated.max_utility()) == (-26.0, 26.0)
    # no passing: no direction to draw, the first chance node deals
    state = load(preset="standard", passing="off").new_initial_state()
    assert len(state.chance_outcomes()) == 52
    # the direction drawn from the preset's cycle: left, right, across, hold
    state = load(preset="standard").new_initial_state()
    assert [a for a, _ in state.chance_outcomes()] == [0, 1, 2, 3]
    state = load(preset="three").new_initial_state()
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a)
            for a, _ in state.chance_outcomes()] == ["pass hold", "pass left", "pass right"]
    fixed = load(preset="standard", pass_direction="right").new_initial_state()
    assert len(fixed.chance_outcomes()) == 52


@pytest.mark.parametrize(
    "params, message",
    [
        ({"preset": "whist"}, "unknown preset"),
        ({"preset": "standard", "players": 5}, "only cancellation"),
        ({"preset": "cancellation", "players": 11}, "3 to 10 players"),
        ({"preset": "standard", "passing": "yes"}, "'on', 'off'"),
        ({"preset": "standard", "moon": "sun"}, "moon"),
        ({"preset": "three", "pass_direction": "across"}, "across"),
        ({"preset": "cancellation", "pass_direction": "left"}, "no passing"),
        ({"preset": "standard", "returns": "points"}, "returns"),
    ],
)
def test_bad_parameters_are_refused_clearly(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load(**params)


def test_a_match_option_is_no_parameter() -> None:
    with pytest.raises(pyspiel.SpielError, match="target"):
        load(preset="standard", target=50)


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    state = play_randomly(load(preset="standard").new_initial_state(), random.Random(1), stop=0)
    before = str(state)
    illegal = next(a for a in range(52) if a not in state.legal_actions())
    with pytest.raises((ValueError, pyspiel.SpielError)):
        state.apply_action(illegal)
    assert str(state) == before


@pytest.mark.parametrize("preset", ["standard", "cancellation"])
def test_a_state_survives_serialization(preset: str) -> None:
    game = load(preset=preset)
    state = play_randomly(game.new_initial_state(), random.Random(5), stop=20)
    text = pyspiel.serialize_game_and_state(game, state)
    _, again = pyspiel.deserialize_game_and_state(text)
    assert str(again) == str(state)
    assert again.history() == state.history()
    for seat in range(game.num_players()):
        assert again.information_state_string(seat) == state.information_state_string(seat)


def hidden_cards(state: HeartsState, seat: int) -> list[object]:
    hand = state.table.hand
    assert hand is not None
    return [h for s, h in enumerate(hand.holdings) if s != seat]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_resampled_world_looks_the_same_to_the_seat(preset: str) -> None:
    # at every decision of a random hand: a world drawn for the seat to act is one it cannot
    # tell apart (same information state, observation and legal actions), with other cards
    # elsewhere; in Cancellation the other copy of the opening 2♣ must not land before the
    # seat that led it, and a card must be played by the same seat in the drawn world
    game = load(preset=preset)
    rng = random.Random(preset)
    state = play_randomly(game.new_initial_state(), rng, stop=0)
    decisions = moved = 0
    while not state.is_terminal():
        seat = state.current_player()
        other: HeartsState = state.resample_from_infostate(
            seat, pyspiel.UniformProbabilitySampler(0.0, 1.0)
        )
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert np.array_equal(
            other.information_state_tensor(seat), state.information_state_tensor(seat)
        )
        assert other.observation_string(seat) == state.observation_string(seat)
        assert other.legal_actions() == state.legal_actions()
        assert len(other.history()) == len(state.history())
        moved += hidden_cards(state, seat) != hidden_cards(other, seat)
        decisions += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert moved >= decisions * 3 // 4  # the hidden cards were really drawn again


def test_with_two_packs_a_resampled_world_keeps_the_opening_lead() -> None:
    # the first seat in seat order holding a 2♣ leads it: a world giving the other 2♣ to an
    # earlier seat would replay the same card numbers with another seat leading
    game = load(preset="cancellation")
    for k in range(15):
        rng = random.Random(k)
        state = play_randomly(game.new_initial_state(), rng, stop=1)
        seat = state.current_player()
        other = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.table.hand.tricks == () and other.table.hand.trick == state.table.hand.trick


def test_ismcts_plays_through_the_adapter() -> None:
    game = load(preset="black-maria")
    rs = np.random.RandomState(4)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=8, random_state=rs
    )
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rs.choice(actions, p=probs))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        else:
            state.apply_action(rs.choice(state.legal_actions()))
    assert decisions == 3 + 17  # its pass, one card at a time, then its 17 cards
    # each seat's return is 26 − its points; the hand's points are the 26 taken, or 52 when a
    # seat shot the moon (ISMCTS draws its worlds with OpenSpiel's own unseeded sampler, so a
    # game now and then ends that way)
    points = state.table.points()
    assert sum(points) in (26, 52), points
    assert state.returns() == [26.0 - p for p in points]
