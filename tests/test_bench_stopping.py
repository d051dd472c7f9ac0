"""bench/hearts_stopping.py: its rules are read strictly, a replay checks and stops where the
pruned search does, and a card is scored on worlds the rule never saw."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from heartsuit.hearts import Rules
from heartsuit.hearts.bots.levels import HARD

from .test_hearts_search import random_position

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPT = "hearts_stopping.py"


@pytest.fixture
def stopping() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH))  # it reads choice_views from hearts_search.py beside it
    try:
        spec = importlib.util.spec_from_file_location("hearts_stopping", BENCH / SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["hearts_stopping"] = module  # its dataclass looks itself up there
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCH))
        sys.modules.pop("hearts_stopping", None)


def test_rules_are_read_strictly(stopping: ModuleType) -> None:
    rule = stopping.Rule.parse("2.5/24/0.35")
    assert (rule.z, rule.after, rule.close) == (2.5, 24, 0.35)
    assert stopping.Rule.parse("1.5/12").close == 0.0
    assert stopping.Rule.parse("none").z == 0.0
    for bad in ("2.5", "2.5/24/0.3/1", "0/24", "2/1", "2/24/-1", "x/24"):
        with pytest.raises(ValueError):
            stopping.Rule.parse(bad)


def recorded_values() -> list[list[float]]:
    """Three cards, 100 worlds seen and 100 not: card 1 is best where the rule looks, card 0
    where it does not; card 2 is 5 points worse everywhere."""
    seen = [[0.0 + (w % 2), 0.5 + (w % 2), -5.0 + (w % 2)] for w in range(100)]
    unseen = [[1.0, 0.0, -4.0] for _ in range(100)]
    return [[world[k] for world in seen + unseen] for k in range(3)]


def test_a_replay_prunes_at_the_first_check_and_scores_on_the_unseen_worlds(
    stopping: ModuleType,
) -> None:
    values = recorded_values()
    # no pruning: every card plays all 100 seen worlds; card 1 is chosen, 1 point worse unseen
    assert stopping.replay(values, stopping.Rule.parse("none"), HARD) == (1.0, 300)
    # card 2 is dropped at the check after 10 worlds; 0 and 1 differ by exactly 0.5 in every
    # world (no variance), so card 0 goes too at that check and the search stops
    regret, used = stopping.replay(values, stopping.Rule.parse("2/10"), HARD)
    assert (regret, used) == (1.0, 30)


def test_a_replay_stops_when_the_cards_left_are_close(stopping: ModuleType) -> None:
    # two cards that alternate which is better: never clearly apart, so only "close" stops it
    values = [[float(w % 2) for w in range(200)], [float((w + 1) % 2) for w in range(200)]]
    values[0][0] += 0.01  # card 0 ahead by a hair where the rule looks
    assert stopping.replay(values, stopping.Rule.parse("2/10"), HARD)[1] == 200
    regret, used = stopping.replay(values, stopping.Rule.parse("2/10/1.0"), HARD)
    assert used == 20  # stopped at the first check: 10 worlds, two cards
    assert regret == pytest.approx(0.0)


def test_recording_plays_every_card_in_twice_the_worlds_of_its_budget(
    stopping: ModuleType,
) -> None:
    config = replace(HARD, playouts=60)
    recorded = 0
    for seed in range(6):
        hand = random_position(Rules(), seed, 9 + seed)
        view = hand.view(hand.to_play or 0)
        values = stopping.record(view, config, 1)
        if len(set(view.legal)) < 2:
            assert values is None  # nothing to compare
        if values is None:
            continue
        recorded += 1
        assert 2 <= len(values) <= len(set(view.legal))
        assert {len(v) for v in values} == {2 * -(-60 // len(values))}
        assert values == stopping.record(view, config, 1)  # seeded
    assert recorded
