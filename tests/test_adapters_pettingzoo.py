"""The PettingZoo adapter: PettingZoo's API and seed tests for every preset, seeded resets that
deal heartsuit's game codes, rewards, refusals and rendering."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from heartsuit.adapters.pettingzoo import HeartsEnv, env
from heartsuit.adapters.shared import card_id
from heartsuit.hearts import Hand, Match, Rules
from heartsuit.hearts.rules import PRESET_NAMES

PRESETS = list(PRESET_NAMES)


def play_out(e: HeartsEnv, rng: random.Random) -> tuple[int, list[float]]:
    """Random legal actions until the hand is over: the number of actions taken, and each
    seat's reward as ``last()`` tells it when the seat is done."""
    count = 0
    final: dict[str, float] = {}
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            final[agent] = reward
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert agent == e.agent_selection
        e.step(int(rng.choice(list(legal))))
        count += 1
    return count, [final[a] for a in e.possible_agents]


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoos_api_test_passes(preset: str) -> None:
    api_test(env(preset), num_cycles=1000)


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoos_seed_test_passes(preset: str) -> None:
    seed_test(lambda: env(preset), num_cycles=300)


def test_a_seed_deals_the_game_codes_hand() -> None:
    e = env("standard")
    e.reset(seed=12)
    match = Match.from_code("HE1-S-AAAAAAM")
    assert e.infos["player_0"]["code"] == "HE1-S-AAAAAAM"
    for seat, agent in enumerate(e.possible_agents):
        held = np.flatnonzero(e.observe(agent)["observation"][4 + 4 + 3 : 4 + 4 + 3 + 52])
        assert sorted(held) == sorted(card_id(c) for c in match.view(seat).hand)


def test_a_code_and_a_hand_number_deal_that_hand() -> None:
    e = env("black-maria", render_mode="ansi")
    e.reset(options={"code": "he1-b-aaaaabc", "hand": 2})
    assert e.code == "HE1-B-AAAAABC"
    expected = Hand.deal(Rules.preset("black-maria"), 28, hand_number=2)
    table = e.table
    assert table is not None and table.hand is not None
    assert table.hand.dealt == expected.dealt
    assert table.hand.pass_direction == expected.pass_direction == "hold"  # L, R, hold: hand 2
    assert "HE1-B-AAAAABC hand 2" in str(e.render())


@pytest.mark.parametrize(
    "seed, options, message",
    [
        (-1, None, "0..8031810175"),
        (26**7, None, "0..8031810175"),
        (None, {"code": "HE1-S-AAAAAAM"}, "plays black-maria"),
        (None, {"code": "HE2-B-AAAAAAM"}, "HE1"),
        (3, {"code": "HE1-B-AAAAAAM"}, "not both"),
        (3, {"hand": -1}, "hand number"),
    ],
)
def test_bad_resets_are_refused(seed: int | None, options: dict[str, object] | None,
                                message: str) -> None:
    e = env("black-maria")
    with pytest.raises(ValueError, match=message):
        e.reset(seed=seed, options=options)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"preset": "whist"}, "unknown preset"),
        ({"preset": "standard", "target": 50}, "whole match"),
        ({"preset": "standard", "colour": "red"}, "unknown option"),
        ({"preset": "standard", "render_mode": "rgb_array"}, "render_mode"),
        ({"preset": "standard", "rewards": "points"}, "rewards"),
        ({"preset": "three", "players": 4}, "only cancellation"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        env(**options)  # type: ignore[arg-type]


def test_an_illegal_card_is_refused_and_changes_nothing() -> None:
    e = env("standard")
    e.reset(seed=1)
    agent = e.agent_selection
    before = e.observe(agent)
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="may not pass"):
        e.step(illegal)
    after = e.observe(agent)
    assert e.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


@pytest.mark.parametrize("preset", PRESETS)
def test_a_hand_ends_with_every_seats_reward(preset: str) -> None:
    e = env(preset, rewards="openspiel")
    e.reset(seed=99)
    rules = e.rules
    taken, rewards = play_out(e, random.Random(preset))
    passes = rules.players * rules.pass_count if rules.passing else 0
    assert taken == passes + rules.players * rules.hand_size()
    assert e.table is not None
    points = e.table.points()
    total = rules.total_points()
    assert e.agents == []  # every seat stepped out
    assert rewards == [total - p for p in points]


def test_rewards_are_negated_points_by_default() -> None:
    e = env("omnibus")
    e.reset(seed=7)
    _, rewards = play_out(e, random.Random(7))
    assert e.table is not None
    assert rewards == [-p for p in e.table.points()]


def test_render_modes() -> None:
    e = env("cancellation", players=7, render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text is not None and text.startswith("HE1-C7-AAAAAAD hand 0")
    assert "kitty:" in text  # 104 cards for 7 seats: 14 each and a kitty of 6
    assert env("standard").render() is None
