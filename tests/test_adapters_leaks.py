"""No observation of either adapter holds a card its seat may not know.

Two checks, at every step of random hands of every preset, for every seat:

- directly: every card column of the OpenSpiel observation and information-state tensors and of
  PettingZoo's observation is 0 for each card the seat has not seen (the other seats' unplayed
  cards that it neither passed nor received, the kitty), and their texts name no such card;
- by changing the hidden cards: the same position with the other seats' unseen cards dealt
  differently gives the seat exactly the same tensors and texts.

What the seat has seen is worked out here from the engine's whole state (its own deal, what it
received, the cards played), independently of the seat view the encodings use.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel
import pytest

import heartsuit.adapters.openspiel  # noqa: F401  (registers the game)
from heartsuit.adapters.openspiel import GAME_NAME, HeartsState
from heartsuit.adapters.pettingzoo import env
from heartsuit.adapters.shared import NUM_CARDS, Encoding, Table, card_id
from heartsuit.hearts.rules import PRESET_NAMES

ONE_PACK = [p for p in PRESET_NAMES if p != "cancellation"]
CODE = re.compile(r"(?<![0-9A-Z])(?:10|[2-9JQKA])[CDHS](?![A-Z])")


def card_columns(encoding: Encoding, size: int) -> Iterator[int]:
    """The start of every 52-wide card block of a vector of ``size`` (the layout documented in
    :class:`~heartsuit.adapters.shared.Encoding`)."""
    n = encoding.players
    base = n + 4 + 3
    yield from (base + k * NUM_CARDS for k in range(4))  # hand, passed, received, played
    trick = base + 4 * NUM_CARDS
    yield from (trick + s * NUM_CARDS for s in range(n))
    yield trick + n * NUM_CARDS + n  # held over
    if size == encoding.information_size:
        for k in range(encoding.tricks):
            start = encoding.observation_size + k * encoding.trick_size + n
            yield from (start + s * NUM_CARDS for s in range(n))


def unseen(table: Table, seat: int) -> set[int]:
    """Card numbers ``seat`` has not seen (one pack: each number is one card)."""
    everything = {card_id(c) for c in table.rules.deck()}
    hand = table.hand
    if hand is None:
        return everything - set(table.dealt_to(seat))
    seen = {card_id(c) for c in hand.dealt[seat]} | {card_id(c) for c in hand.received(seat)}
    for trick in (*hand.tricks, *((hand.trick,) if hand.trick is not None else ())):
        seen |= {card_id(c) for _, c in trick.plays}
    if hand.phase == "done":
        seen |= {card_id(c) for c in hand.kitty}
    return everything - seen


def check_vector(vector: Any, encoding: Encoding, hidden: set[int]) -> None:
    values = np.asarray(vector)
    assert values.shape == (values.size,)
    for start in card_columns(encoding, values.size):
        block = values[start : start + NUM_CARDS]
        marked = {int(a) for a in np.flatnonzero(block)}
        assert not marked & hidden, sorted(marked & hidden)


def check_text(text: str, hidden: set[int]) -> None:
    from heartsuit.adapters.shared import CARDS

    named = set(CODE.findall(text))
    assert not named & {CARDS[a].code for a in hidden}


def random_states(preset: str, seed: int) -> Iterator[HeartsState]:
    game = pyspiel.load_game(GAME_NAME, {"preset": preset})
    rng = random.Random(seed)
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            if rng.random() < 0.03:
                yield state  # now and then during the deal
            continue
        yield state
        state.apply_action(rng.choice(state.legal_actions()))
        step += 1
    yield state


@pytest.mark.parametrize("preset", ONE_PACK)
def test_openspiel_observations_hold_no_unseen_card(preset: str) -> None:
    checked = 0
    for state in random_states(preset, seed=len(preset)):
        table = state.table
        encoding = state.get_game().encoding
        for seat in range(table.players):
            hidden = unseen(table, seat)
            check_vector(state.observation_tensor(seat), encoding, hidden)
            check_vector(state.information_state_tensor(seat), encoding, hidden)
            check_text(state.observation_string(seat), hidden)
            check_text(state.information_state_string(seat), hidden)
            checked += 1
    assert checked > 150


@pytest.mark.parametrize("preset", ONE_PACK)
def test_pettingzoo_observations_hold_no_unseen_card(preset: str) -> None:
    e = env(preset)
    e.reset(seed=4)
    rng = random.Random(preset)
    checked = 0
    for agent in e.agent_iter():
        table = e.table
        assert table is not None
        for seat, name in enumerate(e.possible_agents):
            hidden = unseen(table, seat)
            observed = e.observe(name)
            check_vector(observed["observation"], e.encoding, hidden)
            assert not set(np.flatnonzero(observed["action_mask"])) & hidden
            check_text(e.observation_text(name), hidden)
            checked += 1
        _, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
        else:
            mask = e.observe(agent)["action_mask"]
            e.step(int(rng.choice(list(np.flatnonzero(mask)))))
    assert checked > 150


def swapped_deal(state: HeartsState, seat: int, rng: random.Random) -> HeartsState | None:
    """The same history with two unseen cards of two other seats exchanged in the deal (same
    suit, so every action stays legal unless a rank decided a rule), replayed in a new state;
    None when there is no such pair or the replay is refused."""
    table = state.table
    if table.hand is None:
        return None
    n = table.players
    history = list(state.history())
    start = 1 if table.drew_direction else 0
    limit = start + n * table.rules.hand_size()
    hidden = unseen(table, seat)
    others = [s for s in range(n) if s != seat]
    a, b = rng.sample(others, 2)
    spots = {
        who: [k for k in range(start, limit) if (k - start) % n == who and history[k] in hidden]
        for who in (a, b)
    }
    pairs = [(i, j) for i in spots[a] for j in spots[b]
             if history[i] % 4 == history[j] % 4 and history[i] != history[j]]
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    history[i], history[j] = history[j], history[i]
    other = state.get_game().new_initial_state()
    try:
        for action in history:
            other.apply_action(action)
    except (ValueError, pyspiel.SpielError):
        return None
    assert isinstance(other, HeartsState)
    return other


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_other_seats_hidden_cards_do_not_change_an_observation(preset: str) -> None:
    rng = random.Random(preset)
    compared = 0
    for state in random_states(preset, seed=7):
        seat = rng.randrange(state.table.players)  # one seat per position keeps this quick
        other = swapped_deal(state, seat, rng)
        if other is None:
            continue
        assert str(other) != str(state)  # the hidden cards did change
        assert other.observation_tensor(seat) == state.observation_tensor(seat)
        assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert other.observation_string(seat) == state.observation_string(seat)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        compared += 1
    assert compared > 20
